package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNamedChecks(t *testing.T) {
	p, err := Parse("plan.md", doc("## Phases",
		"- [ ] **M1**: memo", "  - Output: `outputs/memo.md`", "  - Verify: `sh check.sh`",
		"  - Check words: `wc -w outputs/memo.md` (target >= 800)",
		"  - check footer: grep -c '^-- end of memo --$' outputs/memo.md",
		"- [ ] **M2**: plain", "  - Verify: go test ./..."))
	require.NoError(t, err)
	m1, m2 := p.Unit("M1"), p.Unit("M2")
	require.Len(t, m1.Checks, 2)
	words, footer := m1.Checks[0], m1.Checks[1]
	assert.Equal(t, "words", words.Name)
	assert.Equal(t, "wc -w outputs/memo.md", words.Command)
	assert.Equal(t, ">= 800", words.Target())
	assert.True(t, words.Met("800"))
	assert.False(t, words.Met("799"))
	assert.Equal(t, "footer", footer.Name)
	assert.Equal(t, "grep -c '^-- end of memo --$' outputs/memo.md", footer.Command)
	assert.Equal(t, "", footer.Target())
	assert.True(t, footer.Met("0"))
	run := m1.RunChecks()
	require.Len(t, run, 3)
	assert.Equal(t, []string{"verify", "words", "footer"}, []string{run[0].Name, run[1].Name, run[2].Name})
	assert.Equal(t, "sh check.sh", run[0].Command)
	assert.True(t, m1.HasCheck())
	assert.Nil(t, m2.RunChecks(), "a unit without named checks keeps its Verify line alone")
	assert.True(t, m2.HasCheck())

	out := string(p.Render())
	assert.Contains(t, out, "  - Check words: `wc -w outputs/memo.md` (target >= 800)\n  - Check footer: grep -c '^-- end of memo --$' outputs/memo.md\n")
	again, err := Parse("plan.md", []byte(out))
	require.NoError(t, err)
	assert.Equal(t, m1.Checks[0].Command, again.Unit("M1").Checks[0].Command)
	assert.Equal(t, string(p.Render()), string(again.Render()))
}

func TestNamedCheckErrors(t *testing.T) {
	tests := []struct {
		items []string
		want  string
	}{
		{[]string{"  - Check words:"}, `plan.md:3: M1: check words names no command on its line; write it as "Check words: ` + "`wc -w memo.md`" + ` (target >= 800)"`},
		{[]string{"  - Check 9lives: true"}, `plan.md:3: M1: check "9lives": the name is not a check's name`},
		{[]string{"  - Check verify: true"}, `plan.md:3: M1: check "verify": the name verify is the unit's Verify line; give this check another name`},
		{[]string{"  - Check words: wc -w m.md (target about 800)"}, `plan.md:3: M1: check words: the target "(target about 800)" does not read (the operator is not >=, <= or =)`},
		{[]string{"  - Check words: wc -w m.md (target >= many)"}, `plan.md:3: M1: check words: the target "(target >= many)" does not read (`},
		{[]string{"  - Check words: wc -w m.md", "  - Check Words: wc -c m.md"}, `plan.md:4: M1: check Words is given twice (first on line 3); give each check its own name`},
	}
	for _, tt := range tests {
		_, err := Parse("plan.md", doc(append([]string{"## Phases", "- [ ] **M1**: memo"}, tt.items...)...))
		require.Error(t, err, tt.items)
		assert.Contains(t, err.Error(), tt.want)
	}
}
