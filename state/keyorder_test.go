package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyOrderByInsertion is keyOrder as it was written first: each new key
// inserted right after its nearest canonical predecessor, one at a time.
// It is quadratic; the test checks the linear one gives the same order.
func keyOrderByInsertion(o object, canon []string, present map[string]any) []string {
	var keys []string
	in := map[string]bool{}
	for _, k := range o.order {
		_, known := present[k]
		_, unknown := o.unknown[k]
		if (known || unknown) && !in[k] {
			keys = append(keys, k)
			in[k] = true
		}
	}
	for ci, k := range canon {
		if _, ok := present[k]; !ok || in[k] {
			continue
		}
		pos := 0
		for pj := ci - 1; pj >= 0; pj-- {
			if in[canon[pj]] {
				pos = slices.Index(keys, canon[pj]) + 1
				break
			}
		}
		keys = append(keys[:pos], append([]string{k}, keys[pos:]...)...)
		in[k] = true
	}
	return keys
}

func TestKeyOrderMatchesInsertion(t *testing.T) {
	tests := []struct {
		name    string
		order   []string
		unknown []string
		canon   []string
		present []string
	}{
		{"empty", nil, nil, nil, nil},
		{"all new", nil, nil, []string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{"new before kept", []string{"c"}, nil, []string{"a", "b", "c", "d"}, []string{"a", "b", "c", "d"}},
		{"kept out of order", []string{"c", "a"}, nil, []string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{"unknown kept", []string{"x", "b"}, []string{"x"}, []string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{"dropped key", []string{"a", "b", "c"}, nil, []string{"a", "b", "c"}, []string{"a", "c"}},
		{"duplicate canon", nil, nil, []string{"a", "b", "a", "c"}, []string{"a", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkKeyOrder(t, tt.order, tt.unknown, tt.canon, tt.present)
		})
	}
	r := rand.New(rand.NewSource(1))
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	for i := 0; i < 2000; i++ {
		pick := func() []string {
			var out []string
			for _, n := range names {
				if r.Intn(2) == 0 {
					out = append(out, n)
				}
			}
			r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
			return out
		}
		canon := append([]string(nil), names[:r.Intn(len(names)+1)]...)
		t.Run(fmt.Sprint("random ", i), func(t *testing.T) {
			checkKeyOrder(t, pick(), pick(), canon, pick())
		})
	}
}

func checkKeyOrder(t *testing.T, order, unknown, canon, present []string) {
	t.Helper()
	o := object{order: order, unknown: map[string]json.RawMessage{}}
	for _, k := range unknown {
		o.unknown[k] = json.RawMessage(`1`)
	}
	p := map[string]any{}
	for _, k := range present {
		p[k] = 1
	}
	got, want := keyOrder(o, canon, p), keyOrderByInsertion(o, canon, p)
	if !slices.Equal(got, want) {
		t.Fatalf("keyOrder(order %q, unknown %q, canon %q, present %q) = %q, want %q", order, unknown, canon, present, got, want)
	}
}

// TestIDsAfterDecode: the IDs Decode read in natural order are returned
// without sorting only while Units holds exactly them; a unit added,
// removed or swapped for another, and a file whose units are out of order,
// still give the natural order.
func TestIDsAfterDecode(t *testing.T) {
	file := func(ids ...string) []byte {
		var b []byte
		b = append(b, `{"task": "x", "slug": "x", "mode": "development", "phase": "execute", "tasks": {`...)
		for i, id := range ids {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, fmt.Sprintf(`"%s": {"status": "pending"}`, id)...)
		}
		return append(b, "}}"...)
	}
	tests := []struct {
		name   string
		file   []string
		change func(s *State)
		want   []string
	}{
		{"as decoded", []string{"T1", "T2", "T10"}, func(*State) {}, []string{"T1", "T2", "T10"}},
		{"out of order in the file", []string{"T10", "T1", "T2"}, func(*State) {}, []string{"T1", "T2", "T10"}},
		{"one added", []string{"T1", "T2", "T10"}, func(s *State) { s.Units["T3"] = &Unit{ID: "T3"} }, []string{"T1", "T2", "T3", "T10"}},
		{"one removed", []string{"T1", "T2", "T10"}, func(s *State) { delete(s.Units, "T2") }, []string{"T1", "T10"}},
		{"one swapped", []string{"T1", "T2", "T10"}, func(s *State) {
			delete(s.Units, "T2")
			s.Units["A1"] = &Unit{ID: "A1"}
		}, []string{"A1", "T1", "T10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Decode(file(tt.file...))
			if err != nil {
				t.Fatal(err)
			}
			tt.change(s)
			got := s.IDs()
			if !slices.Equal(got, tt.want) {
				t.Fatalf("IDs() = %q, want %q", got, tt.want)
			}
			got[0] = "changed" // the caller's copy
			if again := s.IDs(); !slices.Equal(again, tt.want) {
				t.Fatalf("IDs() after the caller changed its copy = %q, want %q", again, tt.want)
			}
		})
	}
}

// TestPlainStringMatchesUnmarshal: a string plainString takes is the one
// json.Unmarshal gives; the others it leaves to json.Unmarshal.
func TestPlainStringMatchesUnmarshal(t *testing.T) {
	for _, raw := range []string{`""`, `"T1"`, `"in_progress"`, `"a b ~!"`, `"a\"b"`, `"a\\b"`, `"é"`, "\"a\tb\"", `"\u0041"`, `"abc`, `abc"`, `"`, `12`, `null`} {
		got, ok := plainString([]byte(raw))
		if !ok {
			continue
		}
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil || got != want {
			t.Errorf("plainString(%s) = %q, json.Unmarshal gives %q (%v)", raw, got, want, err)
		}
	}
	for _, raw := range []string{`"a\"b"`, `"a\\b"`, `"é"`, "\"a\tb\"", `"\u0041"`, `"abc`, `abc"`, `"`, `12`, `null`} {
		if _, ok := plainString([]byte(raw)); ok {
			t.Errorf("plainString(%s) took it; only printable ASCII without a backslash is plain", raw)
		}
	}
}

// TestDuplicateKeyInLargeObject: a key given twice is refused also in an
// object with more keys than twice scans.
func TestDuplicateKeyInLargeObject(t *testing.T) {
	for _, n := range []int{2, 8, 9, 20} {
		var b []byte
		b = append(b, '{')
		for i := 0; i < n; i++ {
			b = append(b, fmt.Sprintf(`"k%d": 1, `, i)...)
		}
		b = append(b, `"k1": 2}`...)
		if _, _, err := splitObject(b, "x"); err == nil {
			t.Errorf("%d keys then k1 again: no error", n)
		}
		b = append(b[:len(b)-len(`"k1": 2}`)], `"new": 2}`...)
		if kvs, ok, err := splitObject(b, "x"); err != nil || !ok || len(kvs) != n+1 {
			t.Errorf("%d distinct keys: %d keys, ok %v, %v", n+1, len(kvs), ok, err)
		}
	}
}

// writeUnitByMap is writeUnit as it was written first: the unit's keys in
// a map, placed by keyOrder.
func writeUnitByMap(u *Unit) string {
	var b bytes.Buffer
	m := map[string]any{}
	for _, f := range u.known() {
		m[f.key] = f.val
	}
	if u.inline() {
		writeInline(&b, keyOrder(u.extra, unitKeys, m), m, u.extra)
	} else {
		writeObject(&b, "  ", u.extra, unitKeys, m)
	}
	return b.String()
}

// TestWriteUnitMatchesKeyOrder: a unit written from its fields (the fast
// way, when its keys are canonical) is byte for byte what placing its keys
// by keyOrder writes, for units built in code and decoded ones, with and
// without unknown keys.
func TestWriteUnitMatchesKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	for round := 0; round < 500; round++ {
		u := &Unit{ID: "T1", Status: Statuses[rng.Intn(len(Statuses))]}
		set := func(f func()) {
			if rng.Intn(2) == 0 {
				f()
			}
		}
		set(func() { u.Reason = str("a \"quoted\" reason\n") })
		set(func() { u.ReasonKind = str("decision") })
		set(func() { u.IterationsUsed = num(rng.Intn(5)) })
		set(func() { u.MaxIterations = num(5) })
		set(func() { u.Restarts = num(1) })
		set(func() { u.VerifiedBy = str("bench ü") })
		set(func() { u.CompletedAt = str("2026-01-01T00:00:00Z") })
		if round%4 == 1 {
			// Decoded: the keys in the order a file had them.
			for _, f := range u.known() {
				u.extra.order = append(u.extra.order, f.key)
			}
			if len(u.extra.order) > 1 && rng.Intn(2) == 0 {
				u.extra.order[0], u.extra.order[1] = u.extra.order[1], u.extra.order[0]
			}
		}
		if round%4 == 2 {
			u.extra.setUnknown("x_note", json.RawMessage(`"kept"`))
		}
		var b bytes.Buffer
		writeUnit(&b, "  ", u)
		assert.Equal(t, writeUnitByMap(u), b.String(), "round %d", round)
	}
}

// TestWriteStringMatchesEncoder: the plain ASCII shortcut of writeString
// writes what encoding/json (HTML escaping off) writes.
func TestWriteStringMatchesEncoder(t *testing.T) {
	for _, s := range []string{"", "T1", "a b ~!@#$%^&*()<>", "q\"uote", `back\slash`, "tab\t", "ü", "\u2028", "\x7f", string([]byte{0xff})} {
		var b, want bytes.Buffer
		writeString(&b, s)
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(s))
		assert.Equal(t, strings.TrimRight(want.String(), "\n"), b.String(), "%q", s)
	}
}

// TestKeepOrder: ids given in natural order and exactly the units' are
// what IDs returns; anything else (out of order, a repeat, one missing or
// extra) is ignored and IDs sorts as before.
func TestKeepOrder(t *testing.T) {
	mk := func(ids ...string) *State {
		s := &State{Units: map[string]*Unit{}}
		for _, id := range ids {
			s.Units[id] = &Unit{ID: id, Status: Pending}
		}
		return s
	}
	for _, tc := range []struct {
		name string
		give []string
	}{
		{"natural", []string{"T1", "T2", "T10"}},
		{"out of order", []string{"T10", "T1", "T2"}},
		{"repeat", []string{"T1", "T1", "T2"}},
		{"other ID", []string{"T1", "T2", "T11"}},
		{"short", []string{"T1", "T2"}},
	} {
		s := mk("T1", "T2", "T10")
		s.KeepOrder(tc.give)
		assert.Equal(t, []string{"T1", "T2", "T10"}, s.IDs(), tc.name)
		s.Units["T3"] = &Unit{ID: "T3", Status: Pending}
		assert.Equal(t, []string{"T1", "T2", "T3", "T10"}, s.IDs(), tc.name+", a unit added after")
	}
}
