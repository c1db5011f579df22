package plan

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse checks that Parse never panics, that every error is an *Error,
// and that a plan it accepts survives Render: parsing the rendering gives
// the same plan (line numbers aside) and rendering again gives the same
// bytes.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("testdata/*.md")
	require.NoError(f, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(filepath.Base(file), data)
	}
	f.Add("tasks.md", []byte(diamond))
	f.Add("tasks.md", doc("## Tasks", "- [ ] **T1**: x", "  detail", "  - Criteria:", "    - a", "      ```", "## not heading", "  -", "", "note", "- [x] **T2:** y", "  - Depends: T1", "  - Max iterations: {N}"))
	f.Add("plan.md", doc("# P", "**K**: v", "```", "## Phases", "- [ ] **R1**: fenced", "```", "## Phases", "intro", "* [X] R1: bare", "## Dependencies", "- R1 (only)", "x -> y"))
	f.Add("tasks.md", []byte("## Tasks\r\n- [ ] **{ID}**: {title}\r\n\t- Depends: {none|T1}\r\n"))
	f.Add("plan.md", doc("## Phases", "- [ ] **R1**: review", "  - Output: `outputs/review.md`, `outputs/notes.md`", "  - Min words: 300", "  - Complete: sentences", "- [ ] **R2**: memo", "  - Output: outputs/a.md, outputs/b.md", "  - Min words: {N}"))
	f.Add("plan.md", doc("## Phases", "- [ ] **R1**: gather", "  - Output: `outputs/sources.md`, outputs/notes/", "- [ ] **R2**: memo", "  - Inputs: R1.output, `sources/cases.md`", "  - Depends: none", "- [ ] **R3**: x", "  - Inputs: none"))
	f.Add("tasks.md", doc("## Tasks", "- [ ] **T1**: a", "  - Inputs: T1.output, ../x", "- [ ] **T2**: b", "  - Inputs: T9.OUTPUTS,", "    `a`,b"))
	f.Add("plan.md", doc("## Phases", "- [ ] **R1**: memo", "  - Items: 17", "  - Counter: footnotes in outputs/memo.md", "  - Counter: cites in `a.md` matching `^\\[`", "- [ ] **R2**: parts", "  - Items: intro,", "    methods"))
	f.Add("tasks.md", doc("## Dependencies", "T1 -> T2 -> T1", "## Tasks", "- [ ] **T1**: a", "- [ ] **T2**: b"))
	f.Add("plan.md", doc("# Memos", "**Truncation markers:** only [continue, [TBD]", "**Max size:** 40 KB", "## Phases", "- [ ] **L1**: memo",
		"  - Output: `outputs/memo.md`", "  - Truncation markers: [DRAFT], `...`", "  - Must end with:", "    ---", "    END OF MEMORANDUM",
		"  - Sections: Summary, `Risks, open`", "  - Max size: 25k tokens", "- [ ] **L2**: x", "  - Must end with: `---` or `## Footnotes`", "  - Max size: none"))
	f.Fuzz(func(t *testing.T, file string, data []byte) {
		p, err := Parse(file, data)
		if err != nil {
			var perr *Error
			require.True(t, errors.As(err, &perr), "error %v is not an *Error", err)
			require.Nil(t, p)
			return
		}
		out := p.Render()
		q, err := Parse(file, out)
		require.NoError(t, err, "parse of the rendering failed; rendering:\n%s", out)
		require.Equal(t, shape(p), shape(q), "rendering:\n%s", out)
		require.Equal(t, string(out), string(q.Render()))

		order := p.Order()
		require.ElementsMatch(t, p.IDs(), order)
		pos := map[string]int{}
		for i, id := range order {
			pos[id] = i
		}
		for _, id := range order {
			for _, d := range p.Deps(id) {
				require.Less(t, pos[d], pos[id], "%s must come after its dependency %s", id, d)
			}
		}
		for _, id := range p.Ready(nil) {
			require.Empty(t, p.Waiting(id, nil))
		}
	})
}

// FuzzSync checks that Sync never panics, never writes into its input, is
// idempotent, reports a change exactly when the bytes differ, changes only
// boxes and the Status and Total values (syncDiff), and that a plan that
// parsed still parses to the same plan with the boxes following done.
func FuzzSync(f *testing.F) {
	files, err := filepath.Glob("testdata/*.md")
	require.NoError(f, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data, uint8(0x15), uint8(1), uint8(2), uint8(3), uint8(0))
	}
	f.Add([]byte(itrTemplate), uint8(0x7f), uint8(1), uint8(0), uint8(0), uint8(0))
	f.Add([]byte("\uFEFF**Status**:\r**Total:** 3\r\n## Phases\r- [X] **R1**: a\n```\n- [ ] **R2**: b"), uint8(0), uint8(0), uint8(0), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, mask, d, ip, pe, bl uint8) {
		var done func(string) bool
		if mask&0x80 == 0 {
			done = func(id string) bool {
				h := uint(0)
				for i := 0; i < len(id); i++ {
					h = h*31 + uint(id[i])
				}
				return mask>>(h%7)&1 == 1
			}
		}
		c := Counts{Done: int(d), InProgress: int(ip), Pending: int(pe), Blocked: int(bl)}
		in := bytes.Clone(data)
		out, changed := Sync(data, done, c)
		require.Equal(t, string(in), string(data), "Sync wrote into its input")
		require.Equal(t, !bytes.Equal(data, out), changed)
		again, changed := Sync(out, done, c)
		require.False(t, changed, "a second Sync changed:\n%q\n%q", out, again)
		require.Equal(t, string(out), string(again))
		require.NoError(t, syncDiff(data, out, done, c), "in %q\nout %q", data, out)
		require.NoError(t, syncedPlan("tasks.md", data, out, done, c))
	})
}

// FuzzParseInputs checks that an Inputs value never panics the reader, and
// that what it accepts is entries that each read back as themselves.
func FuzzParseInputs(f *testing.F) {
	for _, v := range []string{"T1.output", "none", "-", "T1.output, `sources/a.md`\nnotes/", "../x", "/abs", "a`b", "T1.Outputs, T1.output", ",,", "QA12.output.md"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		refs, bad := parseInputs(v)
		if bad != "" {
			require.Nil(t, refs)
			return
		}
		seen := map[Input]bool{}
		for _, in := range refs {
			require.False(t, seen[in], "entry %v twice", in)
			seen[in] = true
			require.True(t, (in.Unit == "") != (in.Name == ""), "entry %#v names both or neither", in)
			again, bad := parseInputs(in.String())
			require.Empty(t, bad)
			require.Equal(t, []Input{in}, again)
		}
	})
}
