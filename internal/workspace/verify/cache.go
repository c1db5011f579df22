package verify

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/itr-dev/itr/internal/workspace/store"
)

// cacheVersion names the format of the remembered walk; a file of another
// version is not read (a new itr may check more).
const cacheVersion = "itr-verify-walk 3"

// NoCacheEnv names the variable that, set to 1, makes itr verify walk the
// whole history without reading or writing what it remembered (to compare
// the two, or measure the full walk).
const NoCacheEnv = "ITR_VERIFY_NO_CACHE"

// walkCache is what a walk of the task's history remembers of its end,
// when that history held nothing to report (no break, open or repaired, no
// miscounted commit): the commit it ended on, and the state the walk had
// there, so the next verify walks only the commits made since. It is kept
// in this worktree's git directory, one file a task (cacheFile).
//
// It is used only when its commit is on HEAD's first-parent line after
// the task's Created commit, and HEAD's progress.md, guardrails.md and decisions.md
// start with the versions it remembers (a rewrite of history or of a log
// invalidates it): the walk from there is then the full walk's, since
// every version the full walk had seen up to that commit was a prefix of
// that commit's log, which is a prefix of HEAD's.
type walkCache struct {
	task    string // progress.md's path: the task under its root
	commit  string // the commit the walk ended on (HEAD then)
	index   int    // commits of the line walked up to it, inclusive
	commits int    // the task's own commits counted (Report.Commits)
	// The logs at commit: blob, length and SHA-256 of the bytes; entries
	// of progress.md; the newest commit seen that held each.
	log, guard, decide    cachedLog
	entries               int
	logAt, guardAt, decAt string
	walked                []string // every commit checked: the line and merged branches
}

// cachedLog is one log as the remembered walk left it.
type cachedLog struct {
	hash   string // "" when the file was not there
	length int
	digest string // SHA-256 hex of the bytes
}

// resumes counts the walks that started from a remembered one (for tests).
var resumes atomic.Int64

// cacheOff reports whether the environment asks for the full walk.
func cacheOff() bool {
	v := strings.ToLower(strings.TrimSpace(os.Getenv(NoCacheEnv)))
	return v != "" && v != "0" && v != "false" && v != "no" && v != "off"
}

// cacheFile is where the walk of the task slug is remembered.
func (v *verifier) cacheFile() string {
	return v.st.Repo.WorktreeItrPath("itr-verify", v.slug)
}

// loadCache reads the remembered walk of the task, or nil when there is
// none usable: another format, another task path, or logs at HEAD that do
// not start with the remembered ones.
func (v *verifier) loadCache() *walkCache {
	if cacheOff() || v.t.Head.Hash == "" {
		return nil
	}
	data, err := os.ReadFile(v.cacheFile())
	if err != nil {
		return nil
	}
	c, err := parseCache(data)
	if err != nil || c.task != v.progress.rel {
		return nil
	}
	if !v.startsWith(v.progress, c.log) || !v.startsWith(v.guard, c.guard) || !v.startsWith(v.decide, c.decide) {
		return nil
	}
	return c
}

// startsWith reports whether HEAD's version of a log starts with the one
// remembered (it is that blob, or its first bytes hash the same).
func (v *verifier) startsWith(tr *track, l cachedLog) bool {
	if l.hash == tr.headHash {
		return true
	}
	if l.hash == "" || len(tr.head) < l.length {
		return false
	}
	if tr == v.progress {
		return v.prefixes.digest(l.length) == l.digest
	}
	sum := sha256.Sum256(tr.head[:l.length])
	return hex.EncodeToString(sum[:]) == l.digest
}

// resume sets the walk's state to the remembered one at its commit.
func (v *verifier) resume(c *walkCache) {
	resumes.Add(1)
	v.index = c.index
	v.rep.Commits = c.commits
	p, g := v.progress, v.guard
	p.prev, p.prevHash, p.prevAt, p.entries, p.trusted = nil, c.log.hash, c.logAt, c.entries, false
	if c.log.hash != "" {
		p.prev = p.head[:c.log.length]
	}
	g.prev, g.prevHash, g.prevAt = nil, c.guard.hash, c.guardAt
	if c.guard.hash != "" {
		g.prev = g.head[:c.guard.length]
	}
	d := v.decide
	d.prev, d.prevHash, d.prevAt = nil, c.decide.hash, c.decAt
	if c.decide.hash != "" {
		d.prev = d.head[:c.decide.length]
	}
	v.walked = make(map[string]bool, len(c.walked)+64)
	for _, h := range c.walked {
		v.walked[h] = true
	}
}

// saveCache remembers the walk that ended on HEAD (commit), when it found
// nothing to report and its logs are HEAD's. Failing to write it changes
// nothing but the time of the next verify.
func (v *verifier) saveCache(commit string, removed bool) {
	p, g, d := v.progress, v.guard, v.decide
	if cacheOff() || commit == "" || commit != v.t.Head.Hash || removed || v.rebased || len(v.open) > 0 || len(v.rep.Repaired) > 0 ||
		p.pending != nil || p.prevHash != p.headHash || g.prevHash != g.headHash || d.prevHash != d.headHash {
		return
	}
	c := &walkCache{task: p.rel, commit: commit, index: v.index, commits: v.rep.Commits, entries: p.entries,
		log: logOf(p.head, p.headHash), guard: logOf(g.head, g.headHash), logAt: p.prevAt, guardAt: g.prevAt,
		decide: logOf(d.head, d.headHash), decAt: d.prevAt}
	for h := range v.walked {
		c.walked = append(c.walked, h)
	}
	path := v.cacheFile()
	data := c.encode()
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return
	}
	if err := writeAtomic(path, data); err != nil {
		_ = os.Remove(path) // never leave a stale one behind
	}
}

// logOf describes a log's version for the cache.
func logOf(data []byte, hash string) cachedLog {
	if hash == "" {
		return cachedLog{}
	}
	sum := sha256.Sum256(data)
	return cachedLog{hash: hash, length: len(data), digest: hex.EncodeToString(sum[:])}
}

// encode writes the cache as lines of "key value...", the walked commits
// next, one a line, and last "sum " and the SHA-256 of every line before
// it: a file edited by hand or cut short is not read.
func (c *walkCache) encode() []byte {
	var b bytes.Buffer
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	fmt.Fprintf(&b, "%s\ntask %s\ncommit %s\nindex %d\ncommits %d\nentries %d\n", cacheVersion, strconv.Quote(c.task), c.commit, c.index, c.commits, c.entries)
	fmt.Fprintf(&b, "log %s %d %s %s\n", dash(c.log.hash), c.log.length, dash(c.log.digest), dash(c.logAt))
	fmt.Fprintf(&b, "guard %s %d %s %s\n", dash(c.guard.hash), c.guard.length, dash(c.guard.digest), dash(c.guardAt))
	fmt.Fprintf(&b, "decide %s %d %s %s\n", dash(c.decide.hash), c.decide.length, dash(c.decide.digest), dash(c.decAt))
	fmt.Fprintf(&b, "walked %d\n", len(c.walked))
	for _, h := range c.walked {
		b.WriteString(h)
		b.WriteByte('\n')
	}
	sum := sha256.Sum256(b.Bytes())
	fmt.Fprintf(&b, "sum %s\n", hex.EncodeToString(sum[:]))
	return b.Bytes()
}

// checked is the body of a remembered file whose last line is "sum " and
// the SHA-256 of the lines before it, else an error.
func checked(data []byte) ([]byte, error) {
	i := bytes.LastIndex(data, []byte("\nsum "))
	if i < 0 || !bytes.HasSuffix(data, []byte("\n")) {
		return nil, fmt.Errorf("no sum line")
	}
	body, want := data[:i+1], string(data[i+len("\nsum "):len(data)-1])
	sum := sha256.Sum256(body)
	if want != hex.EncodeToString(sum[:]) {
		return nil, fmt.Errorf("the sum does not match the file: edited or cut short")
	}
	return body, nil
}

// parseCache reads what encode wrote.
func parseCache(data []byte) (*walkCache, error) {
	data, err := checked(data)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	line := func() string {
		if !sc.Scan() {
			return ""
		}
		return sc.Text()
	}
	if line() != cacheVersion {
		return nil, fmt.Errorf("not %s", cacheVersion)
	}
	c := &walkCache{}
	undash := func(s string) string {
		if s == "-" {
			return ""
		}
		return s
	}
	field := func(key string) []string {
		f := strings.Fields(line())
		if len(f) == 0 || f[0] != key {
			return nil
		}
		return f[1:]
	}
	num := func(s []string, i int) int {
		if i >= len(s) {
			return -1
		}
		n, err := strconv.Atoi(s[i])
		if err != nil {
			return -1
		}
		return n
	}
	task, ok := strings.CutPrefix(line(), "task ")
	if !ok {
		return nil, fmt.Errorf("no task line")
	}
	if c.task, err = strconv.Unquote(task); err != nil {
		return nil, fmt.Errorf("bad task line: %w", err)
	}
	if f := field("commit"); len(f) == 1 {
		c.commit = f[0]
	}
	c.index, c.commits, c.entries = num(field("index"), 0), num(field("commits"), 0), num(field("entries"), 0)
	lg, gd, dc := field("log"), field("guard"), field("decide")
	if c.commit == "" || c.index < 0 || c.commits < 0 || c.entries < 0 || len(lg) != 4 || len(gd) != 4 || len(dc) != 4 {
		return nil, fmt.Errorf("bad header")
	}
	c.log = cachedLog{hash: undash(lg[0]), length: num(lg, 1), digest: undash(lg[2])}
	c.guard = cachedLog{hash: undash(gd[0]), length: num(gd, 1), digest: undash(gd[2])}
	c.decide = cachedLog{hash: undash(dc[0]), length: num(dc, 1), digest: undash(dc[2])}
	c.logAt, c.guardAt, c.decAt = undash(lg[3]), undash(gd[3]), undash(dc[3])
	if c.log.length < 0 || c.guard.length < 0 || c.decide.length < 0 {
		return nil, fmt.Errorf("bad length")
	}
	n := num(field("walked"), 0)
	if n < 0 {
		return nil, fmt.Errorf("bad walked line")
	}
	c.walked = make([]string, 0, n)
	for sc.Scan() {
		c.walked = append(c.walked, sc.Text())
	}
	if len(c.walked) != n {
		return nil, fmt.Errorf("%d walked commits of %d", len(c.walked), n)
	}
	return c, nil
}

// writeAtomic writes a file whole or not at all: a temporary file renamed
// over it.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("remember the verified history: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("remember the verified history: %w", err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("remember the verified history: %w", err)
	}
	return nil
}

// The check that state.json is the fold of the log (and that the plan and
// the log parse) reads the whole log: at 10,000 entries, most of what a
// verify with a remembered walk costs. It is a pure function of the task's
// slug, its progress.md and state.json as committed and its plan file, so
// when it found nothing for those bytes, it is remembered by their digest
// (foldKey) and not redone for the same bytes.

// foldFile is where the digest of the inputs of the last fold check that
// found nothing is kept.
func foldFile(st *store.Store, slug string) string {
	return st.Repo.WorktreeItrPath("itr-verify-fold", slug)
}

// foldKey digests what the fold check of t reads: the slug, the blobs of
// progress.md and state.json at HEAD, and the plan file's name and the
// digest of the bytes it was read from (Task.PlanSum). ok is false when
// there is no key to give.
func foldKey(st *store.Store, t *store.Task) (key string, ok bool) {
	if cacheOff() || t.PlanErr != nil || t.StateErr != nil || t.HeadFiles[store.ProgressFile] == "" || (t.PlanName != "" && t.PlanSum == "") {
		return "", false
	}
	return foldKeyOf(st, t.Slug, t.HeadFiles[store.ProgressFile], t.HeadFiles[store.StateFile], t.PlanName, t.PlanSum), true
}

// foldKeyOf is foldKey of its parts.
func foldKeyOf(st *store.Store, slug, progressBlob, stateBlob, planName, planSum string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s", cacheVersion, st.Rel(slug, store.ProgressFile),
		progressBlob, stateBlob, planName, planSum)
	return hex.EncodeToString(h.Sum(nil))
}

// FoldFound remembers that the fold check finds nothing for the task slug
// with progress.md and state.json committed as the given blobs and the
// plan file as read (its name and Task.PlanSum): what a caller that
// proved it (the view's facts of those bytes, stepped by a record, hold no
// problem and fold into that state.json) tells, so the next verify does
// not read the log to find it again.
func FoldFound(st *store.Store, slug, progressBlob, stateBlob, planName, planSum string) {
	if cacheOff() || progressBlob == "" || stateBlob == "" || (planName != "" && planSum == "") {
		return
	}
	rememberFold(st, slug, foldKeyOf(st, slug, progressBlob, stateBlob, planName, planSum))
}

// foldSkips counts the fold checks not redone (for tests).
var foldSkips atomic.Int64

// foldClean reports whether the fold check found nothing for key before.
func foldClean(st *store.Store, slug, key string) bool {
	data, err := os.ReadFile(foldFile(st, slug))
	return err == nil && strings.TrimSpace(string(data)) == key
}

// rememberFold remembers that the fold check found nothing for key.
func rememberFold(st *store.Store, slug, key string) {
	if foldClean(st, slug, key) {
		return
	}
	if err := writeAtomic(foldFile(st, slug), []byte(key+"\n")); err != nil {
		_ = os.Remove(foldFile(st, slug))
	}
}
