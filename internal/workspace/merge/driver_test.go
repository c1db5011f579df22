package merge

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/index"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
)

// entryHeadings lists the "## " lines of a log, in order.
func entryHeadings(data []byte) []string {
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "## ") {
			out = append(out, strings.TrimPrefix(l, "## "))
		}
	}
	return out
}

func TestDriverProgressUnion(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	base, ours, theirs := f.diverged()
	req := f.request(store.ProgressFile, base.progress, ours.progress, theirs.progress)

	require.NoError(t, Driver(f.st, req))

	got := f.read(req.Ours)
	// Ours byte for byte, then what only theirs has.
	require.True(t, bytes.HasPrefix(got, ours.progress), "the result extends ours:\n%s", got)
	hs := entryHeadings(got)
	require.Len(t, hs, 5, "%q", hs)
	assert.True(t, strings.HasPrefix(hs[0], "Task - Created"))
	assert.True(t, strings.HasPrefix(hs[1], "Task - Planned"))
	assert.True(t, strings.HasPrefix(hs[2], "T1 - Iteration 1 "))
	assert.True(t, strings.HasPrefix(hs[3], "T1 - Iteration 2 "), "ours' own entry comes before theirs'")
	assert.True(t, strings.HasPrefix(hs[4], "T2 - Iteration 1 "), "theirs-only entry is appended last")
	assert.Equal(t, 1, bytes.Count(got, []byte("**Did:** one\n")), "the shared entry is kept once")
	assert.Contains(t, string(got), "theirs works on T2")
	assert.Contains(t, string(got), "ours goes on")

	// The other way round: theirs' entry first, ours' appended.
	req = f.request(store.ProgressFile, base.progress, theirs.progress, ours.progress)
	require.NoError(t, Driver(f.st, req))
	hs = entryHeadings(f.read(req.Ours))
	require.Len(t, hs, 5)
	assert.True(t, strings.HasPrefix(hs[3], "T2 - Iteration 1 "))
	assert.True(t, strings.HasPrefix(hs[4], "T1 - Iteration 2 "))
}

func TestDriverProgressUnionCases(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	base, ours, theirs := f.diverged()
	// The same entry appended on both sides (a cherry-pick of a checkpoint).
	same := base.fork("same").checkpoint("T2", "theirs works on T2")
	same.progress = theirs.progress
	// Both sides append the same entry X, then ours A and theirs B: ours,
	// then B once, X not repeated.
	x := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T2", Iteration: 1, Stamp: "2026-01-14T11:00:00Z",
		Fields: []progresslog.Field{{Name: "Did", Value: "the same on both"}}}
	a := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T2", Iteration: 2, Stamp: "2026-01-14T11:01:00Z",
		Fields: []progresslog.Field{{Name: "Did", Value: "ours"}}}
	b := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T2", Iteration: 2, Stamp: "2026-01-14T11:02:00Z",
		Fields: []progresslog.Field{{Name: "Did", Value: "theirs"}}}
	bothThenOurs := appendAll(t, base.progress, x, a)
	bothThenTheirs := appendAll(t, base.progress, x, b)
	withTheirs := appendAll(t, bothThenOurs, b)

	tests := []struct {
		name               string
		base, ours, theirs []byte
		want               []byte
	}{
		{"identical appends are kept once", base.progress, theirs.progress, same.progress, theirs.progress},
		{"theirs adds nothing", base.progress, ours.progress, base.progress, ours.progress},
		{"ours adds nothing: theirs' entries appended", base.progress, base.progress, theirs.progress, theirs.progress},
		{"no base (an add on both sides)", nil, ours.progress, ours.progress, ours.progress},
		{"no base, each side its own entries", nil, ours.progress, theirs.progress, unionOf(t, ours.progress, theirs.progress)},
		{"the same entry appended on both sides, then each its own", base.progress, bothThenOurs, bothThenTheirs, withTheirs},
		{"empty base (an add on both sides)", []byte{}, ours.progress, ours.progress, ours.progress},
		{"empty ours, no base: rebuilt from theirs", nil, []byte{}, base.progress, base.progress},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := f.request(store.ProgressFile, tt.base, tt.ours, tt.theirs)
			require.NoError(t, Driver(f.st, req))
			assert.Equal(t, string(tt.want), string(f.read(req.Ours)))
		})
	}
}

// appendAll appends entries to a log.
func appendAll(t *testing.T, log []byte, es ...progresslog.Entry) []byte {
	t.Helper()
	out := append([]byte(nil), log...)
	for _, e := range es {
		var err error
		out, err = progresslog.Append(out, e)
		require.NoError(t, err)
	}
	return out
}

// unionOf is ours then the entries only theirs has, appended.
func unionOf(t *testing.T, ours, theirs []byte) []byte {
	t.Helper()
	have := map[string]bool{}
	for _, e := range progresslog.Parse(ours).Entries {
		have[e.Key()] = true
	}
	out := ours
	for _, e := range progresslog.Parse(theirs).Entries {
		if !have[e.Key()] {
			e.Line = 0
			out = appendAll(t, out, e)
		}
	}
	return out
}

func TestDriverProgressKeepsMode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	base, ours, theirs := f.diverged()
	req := f.request(store.ProgressFile, base.progress, ours.progress, theirs.progress)
	require.NoError(t, os.Chmod(req.Ours, 0o600))
	require.NoError(t, Driver(f.st, req))
	fi, err := os.Stat(req.Ours)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	// No temporary file is left beside it.
	names, err := os.ReadDir(f.tmp)
	require.NoError(t, err)
	for _, n := range names {
		assert.False(t, strings.Contains(n.Name(), ".itr-"), "left %s", n.Name())
	}
}

func TestDriverGuardrailsUnion(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	base := f.newTask().guardrail("Shared lesson")
	theirs := base.fork("other").guardrail("From theirs")
	ours := base.fork("main").guardrail("From ours")
	both := base.fork("both").guardrail("From ours")

	t.Run("each side added one", func(t *testing.T) {
		req := f.request(store.GuardrailsFile, base.guardrails, ours.guardrails, theirs.guardrails)
		require.NoError(t, Driver(f.st, req))
		got := f.read(req.Ours)
		require.True(t, bytes.HasPrefix(got, ours.guardrails))
		assert.Equal(t, []string{"Shared lesson", "From ours", "From theirs"}, entryHeadings(got))
	})
	t.Run("the same lesson on both sides is kept once", func(t *testing.T) {
		req := f.request(store.GuardrailsFile, base.guardrails, ours.guardrails, both.guardrails)
		require.NoError(t, Driver(f.st, req))
		assert.Equal(t, string(ours.guardrails), string(f.read(req.Ours)))
	})
	t.Run("a guardrails.md with no lesson is fine", func(t *testing.T) {
		empty := []byte("# Guardrails\n\nRead before starting any iteration.\n")
		req := f.request(store.GuardrailsFile, empty, empty, theirs.guardrails)
		require.NoError(t, Driver(f.st, req))
		assert.Equal(t, string(theirs.guardrails), string(f.read(req.Ours)))
	})
}

// refusal is one input the driver must refuse.
type refusal struct {
	name string
	file string // store.ProgressFile, GuardrailsFile or StateFile
	// setup returns the request, given one with valid versions written.
	setup func(t *testing.T, f *fixture, req Request) Request
	want  []string // substrings of the message, in order
}

// refusalsFor runs each refusal and checks the message and that ours is
// left byte for byte (and, for a link, that its target is untouched).
func runRefusals(t *testing.T, f *fixture, valid map[string][3][]byte, cases []refusal) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			v := valid[tt.file]
			req := f.request(tt.file, v[0], v[1], v[2])
			req = tt.setup(t, f, req)
			before := snapshot(t, req.Ours)
			assertRefused(t, Driver(f.st, req), req.Path, tt.want)
			assert.Equal(t, before, snapshot(t, req.Ours), "ours must be left as it was")
		})
	}
}

// assertRefused checks the driver's refusal of path: the driver's prefix,
// the words of want in that order, and the advice that git keeps the
// conflict.
func assertRefused(t *testing.T, err error, path string, want []string) {
	t.Helper()
	require.Error(t, err)
	msg := err.Error()
	assert.True(t, strings.HasPrefix(msg, "merge driver: "+path+": "), msg)
	assert.True(t, strings.HasSuffix(msg, "; git keeps the conflict: resolve it with `itr reconcile` or by hand"), msg)
	rest := msg
	for _, w := range want {
		i := strings.Index(rest, w)
		require.GreaterOrEqual(t, i, 0, "%q not in (the rest of) %q", w, msg)
		rest = rest[i+len(w):]
	}
}

// snapshot describes a path without following a link: its kind, the
// link's target, or the file's bytes.
func snapshot(t *testing.T, p string) string {
	t.Helper()
	fi, err := os.Lstat(p)
	if os.IsNotExist(err) {
		return "missing"
	}
	require.NoError(t, err)
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(p)
		require.NoError(t, err)
		data, _ := os.ReadFile(p)
		return "link to " + target + ": " + string(data)
	case fi.IsDir():
		return "dir"
	case !fi.Mode().IsRegular():
		return "special " + fi.Mode().String()
	}
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	return "file: " + string(data)
}

// Setups for refusals.

func withPath(which, p string) func(*testing.T, *fixture, Request) Request {
	return func(t *testing.T, f *fixture, req Request) Request {
		switch which {
		case "base":
			req.Base = p
		case "ours":
			req.Ours = p
		case "theirs":
			req.Theirs = p
		}
		return req
	}
}

func missing(which string) func(*testing.T, *fixture, Request) Request {
	return func(t *testing.T, f *fixture, req Request) Request {
		return withPath(which, filepath.Join(f.tmp, "nothere"))(t, f, req)
	}
}

func directory(which string) func(*testing.T, *fixture, Request) Request {
	return func(t *testing.T, f *fixture, req Request) Request {
		d := filepath.Join(f.tmp, "adir")
		require.NoError(t, os.MkdirAll(d, 0o755))
		return withPath(which, d)(t, f, req)
	}
}

// symlink replaces the version with a link to a copy of it.
func symlink(which string) func(*testing.T, *fixture, Request) Request {
	return func(t *testing.T, f *fixture, req Request) Request {
		src := map[string]string{"base": req.Base, "ours": req.Ours, "theirs": req.Theirs}[which]
		target := filepath.Join(f.tmp, which+".target")
		require.NoError(t, os.WriteFile(target, f.read(src), 0o644))
		link := filepath.Join(f.tmp, which+".link")
		_ = os.Remove(link)
		require.NoError(t, os.Symlink(which+".target", link))
		return withPath(which, link)(t, f, req)
	}
}

func fifo(which string) func(*testing.T, *fixture, Request) Request {
	return func(t *testing.T, f *fixture, req Request) Request {
		p := filepath.Join(f.tmp, which+".fifo")
		_ = os.Remove(p)
		mkfifo(t, p)
		return withPath(which, p)(t, f, req)
	}
}

// content rewrites a version with data.
func content(which string, data []byte) func(*testing.T, *fixture, Request) Request {
	return func(t *testing.T, f *fixture, req Request) Request {
		p := map[string]string{"base": req.Base, "ours": req.Ours, "theirs": req.Theirs}[which]
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return req
	}
}

func noFile(which string) func(*testing.T, *fixture, Request) Request {
	return withPath(which, "")
}

func TestDriverRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	base, ours, theirs := f.diverged()
	gBase := append([]byte(nil), base.guardrails...)
	gOurs, err := progresslog.AppendGuardrail(gBase, progresslog.Guardrail{Name: "Ours", When: "w", Problem: "p", Solution: "s"})
	require.NoError(t, err)
	gTheirs, err := progresslog.AppendGuardrail(gBase, progresslog.Guardrail{Name: "Theirs", When: "w", Problem: "p", Solution: "s"})
	require.NoError(t, err)
	valid := map[string][3][]byte{
		store.ProgressFile:   {base.progress, ours.progress, theirs.progress},
		store.GuardrailsFile: {gBase, gOurs, gTheirs},
		store.StateFile:      {base.state.Encode(), ours.state.Encode(), theirs.state.Encode()},
	}
	// The base with T1's first iteration rewritten by hand, and removed.
	rewritten := bytes.Replace(theirs.progress, []byte("**Did:** one\n"), []byte("**Did:** one, edited by hand\n"), 1)
	require.NotEqual(t, theirs.progress, rewritten)
	var removed []byte
	{
		l := progresslog.Parse(theirs.progress)
		var kept []progresslog.Entry
		for _, e := range l.Entries {
			if !(e.Kind == progresslog.KindIteration && e.Unit == "T1") {
				kept = append(kept, e)
			}
		}
		removed = nil
		for _, e := range kept {
			removed, err = progresslog.Append(removed, e)
			require.NoError(t, err)
		}
	}
	conflicted := append(append([]byte(nil), base.progress...),
		"\n<<<<<<< ours\n## T1 - Iteration 2 - 2026-01-14T11:00:00Z\n**Did:** a\n=======\n## T2 - Iteration 1 - 2026-01-14T11:00:00Z\n**Did:** b\n>>>>>>> theirs\n"...)
	gConflicted := append(append([]byte(nil), gBase...),
		"\n<<<<<<< ours\n## A\n- **When**: w\n=======\n## B\n- **When**: w\n>>>>>>> theirs\n"...)
	gRewritten := bytes.Replace(gTheirs, []byte("# Guardrails"), []byte("# Lessons"), 1)
	withNUL := append(append([]byte(nil), theirs.progress...), "\x00\x00binary\x00"...)
	latin1 := append(append([]byte(nil), gTheirs...), "\n## Caf\xe9\n- **When**: w\n"...)

	cases := []refusal{
		{"not a file itr merges", store.ProgressFile, func(t *testing.T, f *fixture, req Request) Request {
			req.Path = "README.md"
			return req
		}, []string{"not a file itr merges (progress.md, guardrails.md, decisions.md, state.json, tasks.md, plan.md, the root's INDEX.md)"}},

		{"theirs missing", store.ProgressFile, missing("theirs"), []string{"theirs (%B ", "/nothere): is missing"}},
		{"ours missing (nothing created)", store.ProgressFile, missing("ours"), []string{"ours (%A ", "/nothere): is missing"}},
		{"ours not given", store.ProgressFile, noFile("ours"), []string{"ours (%A): no file given"}},
		{"theirs a directory", store.ProgressFile, directory("theirs"), []string{"theirs (%B ", "/adir): is a directory"}},
		{"ours a directory", store.ProgressFile, directory("ours"), []string{"ours (%A ", "/adir): is a directory"}},
		{"base a directory", store.ProgressFile, directory("base"), []string{"base (%O ", "/adir): is a directory"}},
		{"ours a symbolic link", store.ProgressFile, symlink("ours"), []string{"ours (%A ", "/ours.link): is a symbolic link (to ours.target); the driver never reads or writes through one"}},
		{"theirs a symbolic link", store.ProgressFile, symlink("theirs"), []string{"theirs (%B ", "/theirs.link): is a symbolic link (to theirs.target)"}},
		{"base a symbolic link", store.ProgressFile, symlink("base"), []string{"base (%O ", "is a symbolic link"}},
		{"theirs a fifo", store.ProgressFile, fifo("theirs"), []string{"theirs (%B ", "/theirs.fifo): is not a regular file (p"}},

		{"theirs has NUL bytes", store.ProgressFile, content("theirs", withNUL), []string{"theirs (%B ", "): a NUL byte on line ", ": binary data, not a log"}},
		{"base has NUL bytes", store.ProgressFile, content("base", []byte("# Progress Log\n\x00")), []string{"base (%O ", "a NUL byte on line 2"}},
		{"ours not UTF-8", store.ProgressFile, content("ours", []byte("# Progress Log\n\n## Caf\xe9\n")), []string{"ours (%A ", "bytes that are not UTF-8 on line 3"}},
		{"theirs has text but no entry", store.ProgressFile, content("theirs", []byte("# Progress Log\n\njust notes, no entries\n")), []string{"theirs (%B ", `): no entry headings ("## ..."), not a log`}},
		{"ours has text but no entry", store.ProgressFile, content("ours", []byte("# Progress Log\n\njust notes\n")), []string{"ours (%A ", "no entry headings"}},
		{"theirs has conflict markers", store.ProgressFile, content("theirs", conflicted), []string{"theirs (%B ", "holds git conflict markers"}},
		{"ours has conflict markers", store.ProgressFile, content("ours", conflicted), []string{"ours (%A ", "holds git conflict markers"}},
		{"theirs rewrote an entry of the base", store.ProgressFile, content("theirs", rewritten), []string{"theirs (%B ", `): rewrote entry "T1 - Iteration 1 - `, "of the base (line ", "now line ", "entries are append-only"}},
		{"ours rewrote an entry of the base", store.ProgressFile, content("ours", rewritten), []string{"ours (%A ", `rewrote entry "T1 - Iteration 1 - `}},
		{"theirs removed an entry of the base", store.ProgressFile, content("theirs", removed), []string{"theirs (%B ", `lacks entry "T1 - Iteration 1 - `, "of the base (line ", "entries are append-only"}},
		{"theirs changed the title", store.ProgressFile, content("theirs", bytes.Replace(theirs.progress, []byte("# Progress Log"), []byte("# My Log"), 1)), []string{"theirs (%B ", "changed the text before the first entry (the title) of the base"}},

		{"guardrails: theirs missing", store.GuardrailsFile, missing("theirs"), []string{"theirs (%B ", "is missing"}},
		{"guardrails: ours a symbolic link", store.GuardrailsFile, symlink("ours"), []string{"ours (%A ", "is a symbolic link"}},
		{"guardrails: theirs not UTF-8", store.GuardrailsFile, content("theirs", latin1), []string{"theirs (%B ", "bytes that are not UTF-8 on line ", "binary data, not a log"}},
		{"guardrails: ours has conflict markers", store.GuardrailsFile, content("ours", gConflicted), []string{"ours (%A ", "holds git conflict markers"}},
		{"guardrails: theirs changed the title", store.GuardrailsFile, content("theirs", gRewritten), []string{"theirs (%B ", "changed the text before the first lesson"}},
		{"guardrails: theirs removed a lesson", store.GuardrailsFile, func(t *testing.T, f *fixture, req Request) Request {
			b, err := progresslog.AppendGuardrail(gBase, progresslog.Guardrail{Name: "Old", When: "w"})
			require.NoError(t, err)
			req = content("base", b)(t, f, req)
			return content("ours", append(append([]byte(nil), b...), "\n## New\n- **When**: w\n"...))(t, f, req)
		}, []string{"theirs (%B ", `lacks lesson "Old" of the base`}},

		{"state: ours a symbolic link", store.StateFile, symlink("ours"), []string{"ours (%A ", "is a symbolic link"}},
		{"state: base missing and ours not a state.json", store.StateFile, func(t *testing.T, f *fixture, req Request) Request {
			req = missing("base")(t, f, req)
			return content("ours", ours.progress)(t, f, req)
		}, []string{"ours (%A ", "): not a state.json: "}},
		{"state: theirs does not decode", store.StateFile, content("theirs", []byte(`{"task": "Demo", "slug": `)), []string{"theirs (%B ", "): not a state.json: line "}},
		{"state: base has NUL bytes", store.StateFile, content("base", []byte("{\x00}")), []string{"base (%O ", "a NUL byte on line 1"}},
		{"state: ours not UTF-8", store.StateFile, content("ours", []byte("{\"task\": \"Caf\xe9\"}")), []string{"ours (%A ", "bytes that are not UTF-8"}},
		{"state: ours has conflict markers", store.StateFile, content("ours", []byte("<<<<<<< ours\n{}\n=======\n{}\n>>>>>>> theirs\n")), []string{"ours (%A ", "not a state.json"}},
	}
	runRefusals(t, f, valid, cases)
}

func TestDriverRefusesUnwritableOurs(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only folder")
	}
	f := newFixture(t)
	base, ours, theirs := f.diverged()
	req := f.request(store.ProgressFile, base.progress, ours.progress, theirs.progress)
	require.NoError(t, os.Chmod(f.tmp, 0o555))
	t.Cleanup(func() { _ = os.Chmod(f.tmp, 0o755) })
	err := Driver(f.st, req)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "write the result over ours (%A ")
	assert.Equal(t, string(ours.progress), string(f.read(req.Ours)))
}

func TestQuoteName(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "a/b.md", quoteName("a/b.md"))
	assert.Equal(t, `"a\nb.md"`, quoteName("a\nb.md"))
	assert.Equal(t, "café.md", quoteName("café.md"))
}

func TestDriverQuotesOddPath(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	req := Request{Path: "x/progress.md", Ours: f.temp("ours", []byte("# Progress Log\n")), Theirs: filepath.Join(f.tmp, "no\nthere")}
	err := Driver(f.st, req)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `theirs (%B "`)
	assert.Contains(t, err.Error(), `no\nthere"): is missing`)
	assert.NotContains(t, err.Error(), "\n")
}

// Files whose size is not what reading them gives: the driver refuses them
// as changed while read rather than merging a part of them. Linux's /proc
// and /sys hold such files (a size of 0, or of a page, whatever they hold).
func TestDriverRefusesFileThatChangesWhileRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	base, ours, theirs := f.diverged()
	tests := []struct {
		name, path, want string
	}{
		{"longer than its size", "/proc/self/comm", "changed while the driver was reading it"},
		{"shorter than its size", "/sys/kernel/mm/transparent_hugepage/enabled", "read: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fi, err := os.Lstat(tt.path)
			if err != nil || !fi.Mode().IsRegular() {
				t.Skipf("no %s here", tt.path)
			}
			data, err := os.ReadFile(tt.path)
			if err != nil || int64(len(data)) == fi.Size() {
				t.Skipf("%s reads as its size says", tt.path)
			}
			req := f.request(store.ProgressFile, base.progress, ours.progress, theirs.progress)
			req.Theirs = tt.path
			err = Driver(f.st, req)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "theirs (%B "+tt.path+"): "+tt.want)
			assert.Equal(t, string(ours.progress), string(f.read(req.Ours)))
		})
	}
}

func TestDriverIndex(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := func(slug, last string) index.Row {
		return index.Row{Slug: slug, Name: slug + " | name", Mode: "development", Status: "execute, 0/1 done", Started: "-", Progress: "0%", LastActivity: last}
	}
	base := index.Render([]index.Row{r("a", "1"), r("b", "1")})
	ours := index.Render([]index.Row{r("a", "2"), r("b", "1")})
	theirs := index.Render([]index.Row{r("a", "1"), r("b", "3"), r("c", "3")})
	req := Request{Path: index.Path(f.st), Base: f.temp("base", base), Ours: f.temp("ours", ours), Theirs: f.temp("theirs", theirs)}
	require.NoError(t, Driver(f.st, req))
	assert.Equal(t, string(index.Render([]index.Row{r("a", "2"), r("b", "3"), r("c", "3")})), string(f.read(req.Ours)))

	// Only the root's INDEX.md is itr's; a task's own is not touched.
	req = Request{Path: f.st.Root + "/lit/outputs/INDEX.md", Base: f.temp("base", base), Ours: f.temp("ours", ours), Theirs: f.temp("theirs", theirs)}
	err := Driver(f.st, req)
	require.ErrorContains(t, err, "not a file itr merges: itr's INDEX.md is "+index.Path(f.st))
	assert.Equal(t, string(ours), string(f.read(req.Ours)), "ours is left as it was")

	// A side that is not an index keeps the conflict.
	req = Request{Path: index.Path(f.st), Base: f.temp("base", base), Ours: f.temp("ours", []byte("<<<<<<< HEAD\n")), Theirs: f.temp("theirs", theirs)}
	require.ErrorContains(t, Driver(f.st, req), "ours: INDEX.md: no table")
}
