package state

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValidID: the seeds' IDs (seed 001's IV-A, PHASE_3_HIGH_SEVERITY,
// W2-001, RR, V, G; seed 003's S1, P1) are IDs; a dot, a leading digit or
// dash, a space, non-ASCII, "Task" and an ID longer than MaxIDLen are not,
// and CheckID names the rule.
func TestValidID(t *testing.T) {
	tests := []struct {
		id   string
		want string // "" for a valid ID, else a part of CheckID's error
	}{
		{id: "T1"}, {id: "QA12"}, {id: "IV-A"}, {id: "PHASE_3_HIGH_SEVERITY"}, {id: "W2-001"},
		{id: "RR"}, {id: "V"}, {id: "G"}, {id: "S1"}, {id: "t1"}, {id: "iv-a"}, {id: "A-"}, {id: "A_"},
		{id: "A--B"}, {id: "Tasks"}, {id: "T"}, {id: strings.Repeat("A", MaxIDLen)},
		{id: "IV.A", want: IDRule},
		{id: "1A", want: IDRule},
		{id: "-A", want: IDRule},
		{id: "_A", want: IDRule},
		{id: "A B", want: IDRule},
		{id: "A:B", want: IDRule},
		{id: "Ä1", want: IDRule},
		{id: "TÄ", want: IDRule},
		{id: "", want: IDRule},
		{id: "T1\n", want: IDRule},
		{id: "Task", want: `"Task" names the whole task in progress.md`},
		{id: "TASK", want: `"Task" names the whole task in progress.md`},
		{id: strings.Repeat("A", MaxIDLen+1), want: "longer than 64 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			err := CheckID(tt.id)
			if tt.want == "" {
				assert.True(t, ValidID(tt.id))
				assert.NoError(t, err)
				return
			}
			assert.False(t, ValidID(tt.id))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.True(t, strings.HasPrefix(err.Error(), "unit ID "), err.Error())
		})
	}
	assert.EqualError(t, CheckID("IV.A"), `unit ID "IV.A" is not valid: an ID starts with a letter and holds letters, digits, - and _ (such as T1, IV-A, PHASE_3)`)
}

// TestCompareIDsSeedOrder: the seeds' IDs sort the way a reader expects.
func TestCompareIDsSeedOrder(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"T2", "T10", -1}, {"IV-A", "IV-B", -1}, {"IV-B", "IV-A", 1}, {"IV-A", "IV-A", 0},
		{"W2-001", "W2-002", -1}, {"W2-9", "W2-10", -1}, {"W2-010", "W2-9", 1}, {"W10-1", "W2-1", 1},
		{"PHASE_2_X", "PHASE_10_A", -1}, {"PHASE_3", "PHASE_3_HIGH_SEVERITY", -1},
		{"S1", "S01", 1}, {"IV", "IV-A", -1}, {"G", "V", -1}, {"RR", "S1", -1},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, CompareIDs(tt.a, tt.b), "%s vs %s", tt.a, tt.b)
		assert.Equal(t, -tt.want, CompareIDs(tt.b, tt.a), "%s vs %s", tt.b, tt.a)
	}
	ids := []string{"W2-10", "IV-B", "T10", "PHASE_3_HIGH_SEVERITY", "W2-001", "IV-A", "T2", "G", "RR", "V", "W2-9"}
	SortIDs(ids)
	assert.Equal(t, []string{"G", "IV-A", "IV-B", "PHASE_3_HIGH_SEVERITY", "RR", "T2", "T10", "V", "W2-001", "W2-9", "W2-10"}, ids)
}

// TestCompareIDsTotalOrder: CompareIDs is antisymmetric and transitive on
// a mix of IDs and text that is none, so every sort agrees.
func TestCompareIDsTotalOrder(t *testing.T) {
	words := []string{"", "T", "T0", "T00", "T01", "T1", "T1a", "T1-2", "T1-10", "T10", "t1", "1", "01", "-", "-1", "IV-A", "IV-a", "iv-a", "W2-001", "W2-1", "W02-1", "A_1", "A-1", "A1"}
	for _, a := range words {
		assert.Equal(t, 0, CompareIDs(a, a))
		for _, b := range words {
			ab, ba := CompareIDs(a, b), CompareIDs(b, a)
			assert.Equal(t, ab, -ba, "%q vs %q", a, b)
			if a != b {
				assert.NotZero(t, ab, "%q vs %q", a, b)
			}
			for _, c := range words {
				if ab < 0 && CompareIDs(b, c) < 0 {
					assert.Negative(t, CompareIDs(a, c), "%q < %q < %q", a, b, c)
				}
			}
		}
	}
	sorted := slices.Clone(words)
	SortIDs(sorted)
	assert.True(t, slices.IsSortedFunc(sorted, CompareIDs))
}

// TestFoldID: IDs that differ only in case fold to one form.
func TestFoldID(t *testing.T) {
	assert.Equal(t, FoldID("IV-A"), FoldID("iv-a"))
	assert.NotEqual(t, FoldID("IV-A"), FoldID("IV-B"))
}
