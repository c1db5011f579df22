//go:build !windows

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	ggconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/itr-dev/itr/gitstate"
)

// This file is `-gogit`: each part of gitstate that replaces go-git, against
// go-git's own way of doing the same thing, in the same process, on the same
// repositories. Times are medians of in-process operations (each engine in
// turn, the order swapped every round); bytes are what the Go runtime
// allocated during one operation (runtime.MemStats.TotalAlloc). Every
// result is checked against the git CLI; what broke is in the notes. The
// racing part counts what each engine loses or breaks next to a running git.

// ggCommits is the length of the history of both repositories (part 3
// walks all of it).
const ggCommits = 1000

// ggRaceWrites is how many commits each engine writes beside a racing git.
const ggRaceWrites = 200

// ggStats is one engine's measurements of one part.
type ggStats struct {
	times []time.Duration
	bytes []uint64
	err   error // the first failure; measuring stops there
}

// med is the median time.
func (s ggStats) med() time.Duration {
	if len(s.times) == 0 {
		return 0
	}
	return median(s.times)
}

// medBytes is the median of the bytes allocated.
func (s ggStats) medBytes() uint64 {
	if len(s.bytes) == 0 {
		return 0
	}
	b := slices.Clone(s.bytes)
	slices.Sort(b)
	return b[len(b)/2]
}

// ggRow is one line of the table.
type ggRow struct {
	part, repo string
	gs, gg     ggStats
	notes      []string
	bytesNote  string // what the bytes columns mean when not bytes per operation
}

// ggRepo is a repository both engines read.
type ggRepo struct {
	name  string // SMALL or LARGE
	dir   string
	files int
	path  string // a file changed by the last commit (stored as a delta)
}

// benchGoGit builds the repositories, measures every part and prints the
// table.
func benchGoGit(dir string, runs int, large bool, env []string) {
	goEnv := os.Environ() // the go command's own HOME: its build and module caches
	ggProcessEnv(env)
	dir, err := filepath.Abs(dir)
	check(err)
	start := time.Now()
	fmt.Printf("gitstate against go-git %s — %s, %d cores, runs=%d, medians of in-process operations (load average %s)\n\n",
		goGitVersion(), time.Now().UTC().Format(time.RFC3339), runtime.NumCPU(), runs, loadAverage())
	sizes := []repoSize{{"SMALL", 99, 10, ggCommits}}
	if large {
		sizes = append(sizes, repoSize{"LARGE", 99980, 960, ggCommits})
	}
	var repos []ggRepo
	for _, size := range sizes {
		r := ggRepo{name: size.name, dir: filepath.Join(dir, "gogit-"+strings.ToLower(size.name)), files: size.files}
		r.path = ggPath(size, (size.commits-1)*7919%size.files)
		if _, err := os.Stat(r.dir + ".built"); err != nil {
			fmt.Printf("building %s (%d files, %d commits with trailers, packed)...\n", size.name, size.files, size.commits)
			t := time.Now()
			check(buildTrailerRepo(r.dir, size, env))
			check(os.WriteFile(r.dir+".built", nil, 0o644))
			fmt.Printf("  built in %s\n", time.Since(t).Round(time.Millisecond))
		}
		repos = append(repos, r)
	}

	var rows []ggRow
	lap := time.Now()
	add := func(rs ...ggRow) {
		rows = append(rows, rs...)
		fmt.Printf("  %-12s %s %s\n", time.Since(lap).Round(10*time.Millisecond), rs[0].repo, rs[0].part)
		lap = time.Now()
	}
	for _, r := range repos {
		add(ggOpenHead(r, runs, env))
	}
	for _, r := range repos {
		add(ggReadFile(r, runs, env))
	}
	for _, r := range repos {
		add(ggHistory(r, runs, env))
	}
	for _, r := range repos {
		add(ggIndex(r, runs, env))
	}
	add(ggConfig(dir, repos[0], runs, env)...)
	for _, r := range repos {
		add(ggAlternates(dir, r, runs, env)...)
	}
	for _, r := range repos {
		n := runs
		if r.name == "LARGE" {
			n = min(runs, 7) // go-git rewrites the whole index and every tree
		}
		add(ggWrite(dir, r, n, env))
	}
	add(ggRaceRow(dir, repos[0], "commit", env))
	add(ggRaceRow(dir, repos[0], "gc", env))
	add(ggProcessStart(dir, repos[0], runs, env, goEnv))

	fmt.Printf("\nratio = go-git ÷ gitstate (above 1: gitstate is faster). B/op: bytes allocated per operation.\n\n")
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "part\trepo\tgitstate\tgo-git\tratio\tgitstate B/op\tgo-git B/op\tnotes")
	for _, row := range rows {
		ratio := "—"
		if row.gs.med() > 0 && row.gg.med() > 0 {
			ratio = fmt.Sprintf("%.2f", float64(row.gg.med())/float64(row.gs.med()))
		}
		notes := row.notes
		if row.bytesNote != "" {
			notes = append([]string{row.bytesNote}, notes...)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", row.part, row.repo, ggTime(row.gs), ggTime(row.gg), ratio,
			ggBytes(row.gs), ggBytes(row.gg), strings.Join(notes, "; "))
	}
	check(tw.Flush())
	fmt.Printf("\n(the whole comparison took %s; load average %s at the end)\n", time.Since(start).Round(time.Second), loadAverage())
}

// loadAverage is the 1-minute load average, or "?" where there is none
// (the other processes of a busy machine widen every median).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// goGitVersion is the go-git module version linked into this binary.
func goGitVersion() string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/go-git/go-git/v5").Output()
	if err != nil {
		return "v5"
	}
	return strings.TrimSpace(string(out))
}

// ggProcessEnv makes this process see the isolated HOME the git commands
// see, without the identity variables (part 5 reads identity from config).
func ggProcessEnv(env []string) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
			os.Unsetenv(k)
		}
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "XDG_CONFIG_HOME" || k == "GIT_CONFIG_NOSYSTEM" {
			os.Setenv(k, v)
		}
	}
}

// ggTime formats a median time for the table.
func ggTime(s ggStats) string {
	if s.err != nil && len(s.times) == 0 {
		return "failed"
	}
	d := s.med()
	if d < time.Millisecond {
		return fmt.Sprintf("%.0f µs", float64(d.Nanoseconds())/1000)
	}
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}

// ggBytes formats the median bytes for the table.
func ggBytes(s ggStats) string {
	if len(s.bytes) == 0 {
		return "—"
	}
	return ggSize(s.medBytes())
}

// ggSize formats a byte count.
func ggSize(b uint64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// ggPath is the path of file i, as buildRepo names it.
func ggPath(size repoSize, i int) string {
	d := i % size.dirs
	return fmt.Sprintf("pkg%02d/sub%03d/file%06d.txt", d%30, d, i)
}

// buildTrailerRepo writes a repository as buildRepo does, but with every
// message ending in two trailers and every file long enough for
// fast-import to store its changes as deltas.
func buildTrailerRepo(dir string, size repoSize, env []string) error {
	keep := strings.Repeat("a line that later versions keep\n", 8)
	msg := func(c int) string { return fmt.Sprintf("iteration %d\n\nItr-Unit: T1\nItr-Iteration: %d\n", c, c) }
	return importRepo(dir, size, env, msg, func(i, c int) string {
		if c == 0 {
			return fmt.Sprintf("file %d\n%s", i, keep)
		}
		return fmt.Sprintf("file %d changed in %d\n%s", i, c, keep)
	})
}

// ggGit runs git and returns its standard output; the error holds its
// standard error.
func ggGit(env []string, dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, firstLine(stderr.String()))
	}
	return string(out), nil
}

// firstLine is the first line of s, trimmed.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// ggMeasure runs op once, after a collection, and returns its wall time
// and the bytes allocated while it ran.
func ggMeasure(op func() error) (time.Duration, uint64, error) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	err := op()
	d := time.Since(start)
	runtime.ReadMemStats(&after)
	return d, after.TotalAlloc - before.TotalAlloc, err
}

// ggCompare runs each engine's operation runs times, in turn, swapping
// which goes first every round. An engine's first failure ends its runs.
func ggCompare(runs int, gs, gg func() error) (ggStats, ggStats) {
	var s [2]ggStats
	ops := [2]func() error{gs, gg}
	for i := 0; i < runs; i++ {
		for k := 0; k < 2; k++ {
			e := (k + i) % 2
			if s[e].err != nil {
				continue
			}
			d, b, err := ggMeasure(ops[e])
			if err != nil {
				s[e].err = err
				continue
			}
			s[e].times = append(s[e].times, d)
			s[e].bytes = append(s[e].bytes, b)
		}
	}
	return s[0], s[1]
}

// ggNotes words each engine's failure.
func ggNotes(gs, gg ggStats, ok string) []string {
	var notes []string
	if gs.err != nil {
		notes = append(notes, "gitstate FAILED: "+gs.err.Error())
	}
	if gg.err != nil {
		notes = append(notes, "go-git FAILED: "+gg.err.Error())
	}
	if len(notes) == 0 && ok != "" {
		notes = append(notes, ok)
	}
	return notes
}

// ggOpen opens a repository go-git's usual way (found from a folder
// inside it, as itr is).
func ggOpen(dir string) (*git.Repository, error) {
	r, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil, fmt.Errorf("go-git open %s: %w", dir, err)
	}
	return r, nil
}

// ggHead opens the repository at dir with go-git, reads HEAD and hands
// both to fn, then releases the repository.
func ggHead(dir string, fn func(repo *git.Repository, h *plumbing.Reference) error) error {
	repo, err := ggOpen(dir)
	if err != nil {
		return err
	}
	defer ggClose(repo)
	h, err := repo.Head()
	if err != nil {
		return fmt.Errorf("go-git HEAD: %w", err)
	}
	return fn(repo, h)
}

// ggClose releases what go-git's storage keeps open.
func ggClose(r *git.Repository) {
	if c, ok := r.Storer.(interface{ Close() error }); ok {
		c.Close()
	}
}

// ggOpenHead is part 1: open, read HEAD, resolve the branch.
func ggOpenHead(r ggRepo, runs int, env []string) ggRow {
	want, err := ggGit(env, r.dir, "rev-parse", "refs/heads/main")
	check(err)
	want = strings.TrimSpace(want)
	gs := func() error {
		repo, err := gitstate.Open(r.dir)
		if err != nil {
			return err
		}
		defer repo.Close()
		h, err := repo.Head()
		if err != nil {
			return err
		}
		b, err := repo.ResolveRev("main")
		if err != nil {
			return err
		}
		if h.Hash != want || b != want || h.Branch != "refs/heads/main" {
			return fmt.Errorf("HEAD %s %s, main %s; git says %s", h.Branch, h.Hash, b, want)
		}
		return nil
	}
	gg := func() error {
		return ggHead(r.dir, func(repo *git.Repository, h *plumbing.Reference) error {
			b, err := repo.Reference(plumbing.NewBranchReferenceName("main"), true)
			if err != nil {
				return fmt.Errorf("go-git main: %w", err)
			}
			if h.Hash().String() != want || b.Hash().String() != want || h.Name() != "refs/heads/main" {
				return fmt.Errorf("HEAD %s %s, main %s; git says %s", h.Name(), h.Hash(), b.Hash(), want)
			}
			return nil
		})
	}
	a, b := ggCompare(runs, gs, gg)
	return ggRow{part: "1 open + HEAD + resolve main", repo: r.name, gs: a, gg: b, notes: ggNotes(a, b, "both equal git rev-parse")}
}

// ggReadFile is part 2: one file at HEAD (a tree walk and a blob stored
// as a delta), in a fresh open as every itr process does.
func ggReadFile(r ggRepo, runs int, env []string) ggRow {
	want, err := ggGit(env, r.dir, "cat-file", "blob", "HEAD:"+r.path)
	check(err)
	a, b := ggCompare(runs, func() error { return gsRead(r.dir, r.path, want) }, func() error { return ggRead(r.dir, r.path, want) })
	return ggRow{part: "2 read 1 file at HEAD (open, tree walk, delta blob)", repo: r.name, gs: a, gg: b,
		notes: ggNotes(a, b, "both equal git cat-file")}
}

// gsRead opens dir with gitstate and checks path at HEAD against want.
func gsRead(dir, path, want string) error {
	repo, err := gitstate.Open(dir)
	if err != nil {
		return err
	}
	defer repo.Close()
	data, err := repo.ReadFile("HEAD", path)
	if err != nil {
		return err
	}
	if string(data) != want {
		return fmt.Errorf("%s: read %q, git says %q", path, data, want)
	}
	return nil
}

// ggRead opens dir with go-git and checks path at HEAD against want.
func ggRead(dir, path, want string) error {
	repo, err := ggOpen(dir)
	if err != nil {
		return err
	}
	defer ggClose(repo)
	return ggReadIn(repo, path, want)
}

// ggReadIn reads path at HEAD with go-git and checks it against want.
func ggReadIn(repo *git.Repository, path, want string) error {
	h, err := repo.Head()
	if err != nil {
		return fmt.Errorf("go-git HEAD: %w", err)
	}
	c, err := repo.CommitObject(h.Hash())
	if err != nil {
		return fmt.Errorf("go-git commit %s: %w", h.Hash(), err)
	}
	t, err := c.Tree()
	if err != nil {
		return fmt.Errorf("go-git tree of %s: %w", h.Hash(), err)
	}
	f, err := t.File(path)
	if err != nil {
		return fmt.Errorf("go-git %s: %w", path, err)
	}
	data, err := f.Contents()
	if err != nil {
		return fmt.Errorf("go-git blob %s: %w", path, err)
	}
	if data != want {
		return fmt.Errorf("%s: read %q, git says %q", path, data, want)
	}
	return nil
}

// ggHistory is part 3: first-parent history with trailers (both parse
// with gitstate's trailer parser; go-git has none).
func ggHistory(r ggRepo, runs int, env []string) ggRow {
	out, err := ggGit(env, r.dir, "rev-list", "--first-parent", "-n", strconv.Itoa(ggCommits), "HEAD")
	check(err)
	want := strings.Fields(out)
	wantTrailers := 2 * len(want)
	gs := func() error {
		repo, err := gitstate.Open(r.dir)
		if err != nil {
			return err
		}
		defer repo.Close()
		n, tr := 0, 0
		var bad error
		err = repo.History("", func(c gitstate.Commit) bool {
			if c.Hash != want[n] {
				bad = fmt.Errorf("commit %d is %s, git says %s", n, c.Hash, want[n])
				return false
			}
			if _, ok := c.Trailer("Itr-Iteration"); ok {
				tr += len(c.Trailers)
			}
			n++
			return n < len(want)
		})
		if err != nil {
			return err
		}
		if bad != nil {
			return bad
		}
		if n != len(want) || tr != wantTrailers {
			return fmt.Errorf("%d commits and %d trailers, want %d and %d", n, tr, len(want), wantTrailers)
		}
		return nil
	}
	gg := func() error {
		return ggHead(r.dir, func(repo *git.Repository, h *plumbing.Reference) error {
			c, err := repo.CommitObject(h.Hash())
			if err != nil {
				return fmt.Errorf("go-git commit: %w", err)
			}
			n, tr := 0, 0
			for {
				if c.Hash.String() != want[n] {
					return fmt.Errorf("commit %d is %s, git says %s", n, c.Hash, want[n])
				}
				trailers := gitstate.ParseTrailers(c.Message)
				for _, t := range trailers {
					if strings.EqualFold(t.Key, "Itr-Iteration") {
						tr += len(trailers)
						break
					}
				}
				n++
				if n == len(want) || c.NumParents() == 0 {
					break
				}
				if c, err = c.Parent(0); err != nil {
					return fmt.Errorf("go-git parent: %w", err)
				}
			}
			if n != len(want) || tr != wantTrailers {
				return fmt.Errorf("%d commits and %d trailers, want %d and %d", n, tr, len(want), wantTrailers)
			}
			return nil
		})
	}
	a, b := ggCompare(runs, gs, gg)
	return ggRow{part: fmt.Sprintf("3 first-parent history, %d commits + trailers", len(want)), repo: r.name, gs: a, gg: b,
		notes: ggNotes(a, b, "both equal git rev-list --first-parent")}
}

// ggIndex is part 4: the index, in an open repository.
func ggIndex(r ggRepo, runs int, env []string) ggRow {
	out, err := ggGit(env, r.dir, "ls-files", "-s")
	check(err)
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		meta, path, _ := strings.Cut(l, "\t")
		f := strings.Fields(meta)
		want = append(want, path+" "+f[2]+" "+f[1])
	}
	gsRepo, err := gitstate.Open(r.dir)
	check(err)
	defer gsRepo.Close()
	ggRepo, err := ggOpen(r.dir)
	check(err)
	defer ggClose(ggRepo)
	var gsEntries []gitstate.IndexEntry
	var ggEntries []*index.Entry
	gs := func() error {
		var err error
		gsEntries, err = gsRepo.Staged("")
		return err
	}
	gg := func() error {
		idx, err := ggRepo.Storer.Index()
		if err != nil {
			return fmt.Errorf("go-git index: %w", err)
		}
		ggEntries = idx.Entries
		return nil
	}
	a, b := ggCompare(runs, gs, gg)
	var gsGot, ggGot []string
	for _, e := range gsEntries {
		gsGot = append(gsGot, e.Path+" "+strconv.Itoa(e.Stage)+" "+e.Hash)
	}
	for _, e := range ggEntries {
		ggGot = append(ggGot, e.Name+" "+strconv.Itoa(int(e.Stage))+" "+e.Hash.String())
	}
	if a.err == nil && !slices.Equal(gsGot, want) {
		a.err = fmt.Errorf("%d entries differ from git ls-files -s (%d)", len(gsGot), len(want))
	}
	if b.err == nil && !slices.Equal(ggGot, want) {
		b.err = fmt.Errorf("%d entries differ from git ls-files -s (%d)", len(ggGot), len(want))
	}
	return ggRow{part: fmt.Sprintf("4 read the index (%d entries)", len(want)), repo: r.name, gs: a, gg: b,
		notes: ggNotes(a, b, "both equal git ls-files -s")}
}

// ggConfigText is the repository config of part 5: a user section, an
// include that sets the identity, a section with a subsection as itr keeps
// its merge driver, one without, and a user section after the include. git
// reads the include in place: the name from the include, the email from
// the section after it.
const ggConfigText = `[user]
	name = Before Include
[include]
	path = identity.inc
[merge "itrbench"]
	name = itr bench driver
	driver = itr merge-driver %O %A %B %P
[itrbench]
	mode = measured
[user]
	email = after@example.com
`

const ggIncludeText = `[user]
	name = Included Name
	email = included@example.com
`

// ggConfig is part 5: one section of the repository's own config file,
// and the identity through include.path.
func ggConfig(dir string, r ggRepo, runs int, env []string) []ggRow {
	cfgRepo := filepath.Join(dir, "gogit-config")
	check(os.RemoveAll(cfgRepo))
	check(run(env, "", "git", "clone", "-q", "--no-checkout", r.dir, cfgRepo))
	gitDir := filepath.Join(cfgRepo, ".git")
	old, err := os.ReadFile(filepath.Join(gitDir, "config"))
	check(err)
	check(os.WriteFile(filepath.Join(gitDir, "config"), append(old, ggConfigText...), 0o644))
	check(os.WriteFile(filepath.Join(gitDir, "identity.inc"), []byte(ggIncludeText), 0o644))
	gitValue := func(key string) string {
		v, err := ggGit(env, cfgRepo, "config", key)
		check(err)
		return strings.TrimSpace(v)
	}
	wantSection := [][2]string{{"name", gitValue("merge.itrbench.name")}, {"driver", gitValue("merge.itrbench.driver")}}

	gsRepo, err := gitstate.Open(cfgRepo)
	check(err)
	defer gsRepo.Close()
	ggRepo, err := ggOpen(cfgRepo)
	check(err)
	defer ggClose(ggRepo)

	gsSection := func() error {
		kv, err := gsRepo.ConfigSection("merge", "itrbench")
		if err != nil {
			return err
		}
		if !slices.Equal(kv, wantSection) {
			return fmt.Errorf("[merge \"itrbench\"] is %v, git says %v", kv, wantSection)
		}
		return nil
	}
	ggSection := func() error {
		cfg, err := ggRepo.Config()
		if err != nil {
			return fmt.Errorf("go-git config: %w", err)
		}
		var kv [][2]string
		for _, o := range cfg.Raw.Section("merge").Subsection("itrbench").Options {
			kv = append(kv, [2]string{o.Key, o.Value})
		}
		if !slices.Equal(kv, wantSection) {
			return fmt.Errorf("[merge \"itrbench\"] is %v, git says %v", kv, wantSection)
		}
		return nil
	}
	a, b := ggCompare(runs, gsSection, ggSection)
	notes := ggNotes(a, b, "both equal git config")
	// A section without a subsection, which itr never asks for.
	if kv, err := gsRepo.ConfigSection("itrbench", ""); err != nil || len(kv) == 0 {
		notes = append(notes, fmt.Sprintf("gitstate's ConfigSection(\"itrbench\", \"\") finds nothing where git has itrbench.mode=%s", gitValue("itrbench.mode")))
	}
	rows := []ggRow{{part: "5a config: [merge \"x\"] of the repository's config", repo: r.name, gs: a, gg: b, notes: notes}}

	want := gitValue("user.name") + " <" + gitValue("user.email") + ">"
	var gsWho, ggWho string
	gsIdent := func() error {
		s, err := gsRepo.Committer(time.Time{})
		if err != nil {
			return err
		}
		gsWho = s.Name + " <" + s.Email + ">"
		return nil
	}
	ggIdent := func() error {
		cfg, err := ggRepo.ConfigScoped(ggconfig.GlobalScope)
		if err != nil {
			return fmt.Errorf("go-git config: %w", err)
		}
		ggWho = cfg.User.Name + " <" + cfg.User.Email + ">"
		return nil
	}
	a, b = ggCompare(runs, gsIdent, ggIdent)
	notes = []string{"git: " + want}
	for _, e := range []struct {
		name, who string
		s         *ggStats
	}{{"gitstate", gsWho, &a}, {"go-git", ggWho, &b}} {
		switch {
		case e.s.err != nil:
			notes = append(notes, e.name+" FAILED: "+e.s.err.Error())
		case e.who == want:
			notes = append(notes, e.name+" right")
		default:
			notes = append(notes, e.name+" WRONG: "+e.who)
			e.s.err = errors.New("wrong identity")
		}
	}
	if ggIncludes(ggRepo) == 0 {
		notes = append(notes, "go-git reads [include] as a plain section and never opens identity.inc")
	}
	rows = append(rows, ggRow{part: "5b config: identity through include.path", repo: r.name, gs: a, gg: b, notes: notes})
	return rows
}

// ggIncludes is how many included files go-git's config decoder loaded.
func ggIncludes(r *git.Repository) int {
	cfg, err := r.Config()
	if err != nil {
		return 0
	}
	return len(cfg.Raw.Includes)
}

// ggAlternates is part 6: a file at HEAD read through alternates (git clone --shared: the
// clone has no objects of its own). go-git is measured as PlainOpen opens
// it (6a), and with its storage told where alternates may point (6b).
func ggAlternates(dir string, r ggRepo, runs int, env []string) []ggRow {
	alt := filepath.Join(dir, "gogit-shared-"+strings.ToLower(r.name))
	check(os.RemoveAll(alt))
	check(run(env, "", "git", "clone", "-q", "--shared", "--no-checkout", r.dir, alt))
	want, err := ggGit(env, alt, "cat-file", "blob", "HEAD:"+r.path)
	check(err)
	a, b := ggCompare(runs, func() error { return gsRead(alt, r.path, want) }, func() error { return ggRead(alt, r.path, want) })
	notes := ggNotes(a, b, "both equal git cat-file")
	if b.err != nil {
		notes = append(notes, "PlainOpen's object store is chrooted at .git: the absolute path in objects/info/alternates crosses go-billy's boundary and the error is dropped")
	}
	rows := []ggRow{{part: "6a read 1 file through alternates (clone --shared), go-git PlainOpen", repo: r.name, gs: a, gg: b, notes: notes}}
	a, b = ggCompare(runs, func() error { return gsRead(alt, r.path, want) }, func() error { return ggReadAltFS(alt, r.path, want) })
	rows = append(rows, ggRow{part: "6b the same, go-git with filesystem.Options{AlternatesFS: osfs.New(\"/\")}", repo: r.name, gs: a, gg: b,
		notes: ggNotes(a, b, "both equal git cat-file")})
	return rows
}

// ggReadAltFS is ggRead on a go-git storage that may follow alternates
// anywhere on the filesystem.
func ggReadAltFS(dir, path, want string) error {
	wt := osfs.New(dir)
	dot, err := wt.Chroot(git.GitDirName)
	if err != nil {
		return fmt.Errorf("go-git chroot: %w", err)
	}
	st := filesystem.NewStorageWithOptions(dot, cache.NewObjectLRUDefault(), filesystem.Options{AlternatesFS: osfs.New("/")})
	repo, err := git.Open(st, wt)
	if err != nil {
		return fmt.Errorf("go-git open %s: %w", dir, err)
	}
	defer st.Close()
	return ggReadIn(repo, path, want)
}

// ggWriter writes one commit of two files (in the working tree too) onto
// the checked-out branch of the repository in dir and returns its hash.
type ggWriter func(dir string, round int) (string, error)

// ggFiles are the two files of a write round: path and content.
func ggFiles(round int) [][2]string {
	return [][2]string{
		{"gogit-bench/a.txt", fmt.Sprintf("a %d\n", round)},
		{"gogit-bench/b.txt", fmt.Sprintf("b %d\n", round)},
	}
}

// gsWrite is gitstate's CommitFiles with the files also written to the
// working tree.
func gsWrite(dir string, round int) (string, error) {
	repo, err := gitstate.Open(dir)
	if err != nil {
		return "", err
	}
	defer repo.Close()
	var changes []gitstate.FileChange
	for _, f := range ggFiles(round) {
		changes = append(changes, gitstate.FileChange{Path: f[0], Data: []byte(f[1])})
	}
	c, err := repo.CommitFiles(gitstate.CommitRequest{
		Changes:  changes,
		Message:  fmt.Sprintf("write %d\n\nItr-Unit: T1\n", round),
		Worktree: true,
		Author:   &gitstate.Signature{Name: "Bench", Email: "bench@example.com"},
	})
	if err != nil {
		return "", err
	}
	return c.Hash, nil
}

// ggWriteCommit is go-git's way: write the files, worktree.Add each
// (without go-git's status walk), worktree.Commit.
func ggWriteCommit(dir string, round int) (string, error) {
	repo, err := ggOpen(dir)
	if err != nil {
		return "", err
	}
	defer ggClose(repo)
	w, err := repo.Worktree()
	if err != nil {
		return "", fmt.Errorf("go-git worktree: %w", err)
	}
	for _, f := range ggFiles(round) {
		p := filepath.Join(dir, filepath.FromSlash(f[0]))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("write %s: %w", p, err)
		}
		if err := os.WriteFile(p, []byte(f[1]), 0o644); err != nil {
			return "", fmt.Errorf("write %s: %w", p, err)
		}
		if err := w.AddWithOptions(&git.AddOptions{Path: f[0], SkipStatus: true}); err != nil {
			return "", fmt.Errorf("go-git add %s: %w", f[0], err)
		}
	}
	sig := &object.Signature{Name: "Bench", Email: "bench@example.com", When: time.Now()}
	h, err := w.Commit(fmt.Sprintf("write %d\n\nItr-Unit: T1\n", round), &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		return "", fmt.Errorf("go-git commit: %w", err)
	}
	return h.String(), nil
}

// ggWrite is part 7: one commit of two files, each engine in its own
// clone, rounds alternating; each result checked by git.
func ggWrite(dir string, r ggRepo, runs int, env []string) ggRow {
	names := [2]string{"gitstate", "go-git"}
	writers := [2]ggWriter{gsWrite, ggWriteCommit}
	var clones [2]string
	for e := range clones {
		clones[e] = filepath.Join(dir, "gogit-write-"+strings.ToLower(r.name)+"-"+names[e])
		ggFreshClone(env, r.dir, clones[e])
	}
	var s [2]ggStats
	var hashes [2][]string
	var dirty, wrong [2]int
	var dirtySample [2]string
	for i := 0; i < runs; i++ {
		for k := 0; k < 2; k++ {
			e := (k + i) % 2
			if s[e].err != nil {
				continue
			}
			var h string
			d, b, err := ggMeasure(func() error {
				var err error
				h, err = writers[e](clones[e], i)
				return err
			})
			if err != nil {
				s[e].err = err
				continue
			}
			s[e].times = append(s[e].times, d)
			s[e].bytes = append(s[e].bytes, b)
			hashes[e] = append(hashes[e], h)
			if st, err := ggGit(env, clones[e], "status", "--porcelain"); err != nil || st != "" {
				dirty[e]++
				if dirtySample[e] == "" {
					dirtySample[e] = firstLine(st)
					if err != nil {
						dirtySample[e] = err.Error()
					}
				}
			}
			for _, f := range ggFiles(i) {
				if got, err := ggGit(env, clones[e], "cat-file", "blob", "HEAD:"+f[0]); err != nil || got != f[1] {
					wrong[e]++
				}
			}
		}
	}
	var notes []string
	for e := range clones {
		var n []string
		if s[e].err != nil {
			n = append(n, "FAILED: "+s[e].err.Error())
		}
		n = append(n, ggFsck(env, clones[e]))
		if dirty[e] > 0 {
			n = append(n, fmt.Sprintf("git status not clean after %d of %d (%s)", dirty[e], len(hashes[e]), dirtySample[e]))
		} else {
			n = append(n, "status clean")
		}
		if wrong[e] > 0 {
			n = append(n, fmt.Sprintf("%d files wrong at HEAD", wrong[e]))
		}
		n = append(n, ggReflog(env, clones[e], hashes[e]))
		notes = append(notes, names[e]+": "+strings.Join(n, ", "))
	}
	return ggRow{part: "7 write 1 commit of 2 files (+ worktree, index, branch)", repo: r.name, gs: s[0], gg: s[1], notes: notes}
}

// ggFreshClone makes dst a checked-out clone of base at base's HEAD. A
// clone kept from an earlier run is reset instead of made again (a
// checkout of LARGE writes 100,000 files).
func ggFreshClone(env []string, base, dst string) {
	head, err := ggGit(env, base, "rev-parse", "HEAD")
	check(err)
	head = strings.TrimSpace(head)
	// Only a folder with its own .git: git run anywhere else would find
	// the repository the bench runs in.
	if fi, err := os.Stat(filepath.Join(dst, ".git")); err != nil || !fi.IsDir() {
		clone(env, base, dst)
		return
	}
	if _, err := ggGit(env, dst, "rev-parse", "--verify", "-q", head+"^{commit}"); err == nil {
		_, err1 := ggGit(env, dst, "checkout", "-q", "-f", "-B", "main", head)
		_, err2 := ggGit(env, dst, "clean", "-fdq")
		st, err3 := ggGit(env, dst, "status", "--porcelain")
		if err1 == nil && err2 == nil && err3 == nil && st == "" {
			return
		}
	}
	clone(env, base, dst)
}

// ggFsck words what git fsck --strict says of the repository.
func ggFsck(env []string, dir string) string {
	cmd := exec.Command("git", "fsck", "--strict", "--no-dangling", "--no-progress")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) == 1 && lines[0] == "" {
		lines = nil
	}
	if err == nil && len(lines) == 0 {
		return "fsck --strict ok"
	}
	first := ""
	if len(lines) > 0 {
		first = lines[0]
	}
	return fmt.Sprintf("fsck --strict FAILED (%d lines: %s)", len(lines), first)
}

// ggReflog counts the commits of hashes that the branch's reflog records.
func ggReflog(env []string, dir string, hashes []string) string {
	out, err := ggGit(env, dir, "reflog", "show", "--format=%H", "refs/heads/main")
	if err != nil {
		return "reflog unreadable: " + err.Error()
	}
	in := map[string]bool{}
	for _, h := range strings.Fields(out) {
		in[h] = true
	}
	n := 0
	for _, h := range hashes {
		if in[h] {
			n++
		}
	}
	if n == len(hashes) {
		return "reflog has every commit"
	}
	return fmt.Sprintf("reflog MISSING %d of %d commits", len(hashes)-n, len(hashes))
}

// ggRace is what one engine did next to a racing git.
type ggRace struct {
	stats        ggStats
	failed       int
	failSample   string
	lostOwn      int
	beside       int // the other writer's successful runs
	besideFailed int
	besideSample string
	lostBeside   int
	fsck, status string
	roots        int
}

// ggRaceRow is part 8: ggRaceWrites commits with each engine while git
// commits (beside "commit") or repacks and packs refs (beside "gc") in a
// loop.
func ggRaceRow(dir string, r ggRepo, beside string, env []string) ggRow {
	var res [2]ggRace
	names := [2]string{"gitstate", "go-git"}
	for e, w := range [2]ggWriter{gsWrite, ggWriteCommit} {
		res[e] = ggRaceOne(dir, r, beside, names[e], w, env)
	}
	part := fmt.Sprintf("8 race: %d writes beside a git commit --allow-empty loop", ggRaceWrites)
	if beside == "gc" {
		part = fmt.Sprintf("8 race: %d writes beside a git repack -ad + pack-refs loop", ggRaceWrites)
	}
	var notes []string
	for e := range res {
		x := res[e]
		n := []string{fmt.Sprintf("failed %d", x.failed)}
		if x.failSample != "" {
			n[0] += " (" + x.failSample + ")"
		}
		n = append(n, fmt.Sprintf("lost own %d", x.lostOwn))
		if beside == "commit" {
			n = append(n, fmt.Sprintf("lost git's %d of %d", x.lostBeside, x.beside))
		} else {
			n = append(n, fmt.Sprintf("%d repacks", x.beside))
		}
		if x.besideFailed > 0 {
			n = append(n, fmt.Sprintf("git failed %d (%s)", x.besideFailed, x.besideSample))
		}
		if x.roots != 1 {
			n = append(n, fmt.Sprintf("%d root commits", x.roots))
		}
		n = append(n, x.fsck, x.status)
		notes = append(notes, names[e]+": "+strings.Join(n, ", "))
	}
	return ggRow{part: part, repo: r.name, gs: res[0].stats, gg: res[1].stats, notes: notes}
}

// ggRaceOne is one engine's writes beside one racing git loop, in a
// fresh clone, and what git finds afterwards.
func ggRaceOne(dir string, r ggRepo, beside, name string, write ggWriter, env []string) ggRace {
	repo := filepath.Join(dir, "gogit-race-"+beside+"-"+name)
	clone(env, r.dir, repo)
	var res ggRace
	stop, done := make(chan struct{}), make(chan struct{})
	var besideMsgs []string
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			var err error
			switch beside {
			case "commit":
				msg := fmt.Sprintf("beside %d", i)
				if _, err = ggGit(env, repo, "commit", "--allow-empty", "-q", "-m", msg); err == nil {
					besideMsgs = append(besideMsgs, msg)
				}
			case "gc":
				if _, err = ggGit(env, repo, "repack", "-adq"); err == nil {
					_, err = ggGit(env, repo, "pack-refs", "--all", "--prune")
				}
			}
			if err != nil {
				res.besideFailed++
				if res.besideSample == "" {
					res.besideSample = err.Error()
				}
			} else {
				res.beside++
			}
		}
	}()
	var own []string
	for i := 0; i < ggRaceWrites; i++ {
		var h string
		d, b, err := ggMeasure(func() error {
			var err error
			h, err = write(repo, i)
			return err
		})
		if err != nil {
			res.failed++
			if res.failSample == "" {
				res.failSample = err.Error()
			}
			continue
		}
		res.stats.times = append(res.stats.times, d)
		res.stats.bytes = append(res.stats.bytes, b)
		own = append(own, h)
	}
	close(stop)
	<-done
	if beside == "commit" {
		res.beside = len(besideMsgs)
	}

	log, err := ggGit(env, repo, "log", "--format=%H %s", "refs/heads/main")
	if err != nil {
		res.fsck = "history unreadable: " + err.Error()
		res.lostOwn, res.lostBeside = len(own), len(besideMsgs)
		return res
	}
	hashes, subjects := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		h, s, _ := strings.Cut(l, " ")
		hashes[h], subjects[s] = true, true
	}
	for _, h := range own {
		if !hashes[h] {
			res.lostOwn++
		}
	}
	for _, m := range besideMsgs {
		if !subjects[m] {
			res.lostBeside++
		}
	}
	if roots, err := ggGit(env, repo, "rev-list", "--max-parents=0", "refs/heads/main"); err == nil {
		res.roots = len(strings.Fields(roots))
	}
	res.fsck = ggFsck(env, repo)
	st, err := ggGit(env, repo, "status", "--porcelain")
	switch {
	case err != nil:
		res.status = "status FAILED: " + err.Error()
	case st == "":
		res.status = "status clean"
	default:
		res.status = fmt.Sprintf("status NOT clean (%d lines: %s)", len(strings.Split(strings.TrimSpace(st), "\n")), firstLine(st))
	}
	return res
}

// ggProcessStart times two tiny binaries (internal/bench/initcost) that
// open the repository and print HEAD, one with gitstate and one with
// go-git, and sums their package initialisation from GODEBUG=inittrace=1.
func ggProcessStart(dir string, r ggRepo, runs int, env, goEnv []string) ggRow {
	binDir, err := filepath.Abs(filepath.Join(dir, "gogit-bin"))
	check(err)
	check(os.MkdirAll(binDir, 0o755))
	names := [2]string{"gitstate", "gogit"}
	var bins [2]string
	for e, n := range names {
		bins[e] = filepath.Join(binDir, "initcost-"+n)
		cmd := exec.Command("go", "build", "-o", bins[e], "./internal/bench/initcost/"+n)
		cmd.Env = append(slices.Clone(goEnv), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			check(fmt.Errorf("go build initcost/%s: %w\n%s", n, err, out))
		}
	}
	var s [2]ggStats
	for i := 0; i < 3*runs; i++ {
		for k := 0; k < 2; k++ {
			e := (k + i) % 2
			d, _ := timed(env, r.dir, bins[e], r.dir)
			s[e].times = append(s[e].times, d)
		}
	}
	var inits [2]ggInit
	for e := range bins {
		inits[e] = ggInitTrace(env, r.dir, bins[e], 2*runs+1)
		s[e].bytes = []uint64{inits[e].bytes}
	}
	var only []string
	var onlyClock time.Duration
	for _, p := range inits[1].order {
		if _, ok := inits[0].clock[p]; !ok {
			onlyClock += inits[1].clock[p]
			only = append(only, p)
		}
	}
	slices.SortFunc(only, func(a, b string) int { return int(inits[1].clock[b] - inits[1].clock[a]) })
	var top []string
	for _, p := range only[:min(3, len(only))] {
		top = append(top, fmt.Sprintf("%s %.2f ms", p, float64(inits[1].clock[p].Microseconds())/1000))
	}
	size := func(p string) string {
		fi, err := os.Stat(p)
		check(err)
		return fmt.Sprintf("%.1f MiB", float64(fi.Size())/(1<<20))
	}
	notes := []string{
		fmt.Sprintf("package init %.2f ms vs %.2f ms (inittrace, medians of %d)", float64(inits[0].total.Microseconds())/1000, float64(inits[1].total.Microseconds())/1000, 2*runs+1),
		fmt.Sprintf("%d packages only go-git links init in %.2f ms, most %s", len(only), float64(onlyClock.Microseconds())/1000, strings.Join(top, ", ")),
		fmt.Sprintf("binaries %s vs %s", size(bins[0]), size(bins[1])),
	}
	return ggRow{part: "9 process: init + open + HEAD (whole binary)", repo: r.name, gs: s[0], gg: s[1], notes: notes,
		bytesNote: "B/op = bytes allocated by package init"}
}

// ggInit is the package initialisation of a binary: per package its
// median clock time, and the median totals.
type ggInit struct {
	total time.Duration
	bytes uint64
	clock map[string]time.Duration
	order []string
}

// ggInitTrace runs bin n times with GODEBUG=inittrace=1 and takes the
// medians of what each package's init cost.
func ggInitTrace(env []string, dir, bin string, n int) ggInit {
	per := map[string][]time.Duration{}
	var totals []time.Duration
	var allocs []uint64
	var order []string
	for i := 0; i < n; i++ {
		cmd := exec.Command(bin, dir)
		cmd.Dir, cmd.Env = dir, append(slices.Clone(env), "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		check(cmd.Run())
		var total time.Duration
		var b uint64
		for _, l := range strings.Split(stderr.String(), "\n") {
			// init PKG @T ms, C ms clock, B bytes, A allocs
			f := strings.Fields(l)
			if len(f) < 10 || f[0] != "init" {
				continue
			}
			c, err1 := strconv.ParseFloat(f[4], 64)
			by, err2 := strconv.ParseUint(f[7], 10, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			d := time.Duration(c * float64(time.Millisecond))
			if i == 0 {
				order = append(order, f[1])
			}
			per[f[1]] = append(per[f[1]], d)
			total += d
			b += by
		}
		totals = append(totals, total)
		allocs = append(allocs, b)
	}
	out := ggInit{total: median(totals), clock: map[string]time.Duration{}, order: order}
	slices.Sort(allocs)
	out.bytes = allocs[len(allocs)/2]
	for p, ds := range per {
		out.clock[p] = median(ds)
	}
	return out
}
