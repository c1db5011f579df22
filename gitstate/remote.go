package gitstate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Network is what itr asks of a repository's remotes: fetch, push with
// compare-and-swap, merge and rebase. It always runs the git CLI, in the
// repository's environment, so the user's credentials, transports,
// proxies, hooks and configuration apply exactly as they do to git itself;
// a hand-written transport would get none of them right.
type Network struct {
	git  string
	dir  string
	env  []string
	repo Repository // for HEAD, read without a process
}

// ErrNoNetwork means the repository is not one git can reach remotes
// from (the fake of the tests).
var ErrNoNetwork = errors.New("no network for this repository")

// ErrPushRejected means the remote refused a push that was not a
// fast-forward (someone pushed first); integrate and push again.
var ErrPushRejected = errors.New("push rejected")

// NetworkOf returns the network of a repository opened by OpenAt.
func NetworkOf(r Repository) (*Network, error) {
	git, err := gitProgram()
	if err != nil {
		return nil, err
	}
	switch x := r.(type) {
	case *Repo:
		dir := x.root
		if dir == "" {
			dir = x.gitDir
		}
		return &Network{git: git, dir: dir, env: os.Environ(), repo: r}, nil
	case *GitRepo:
		return &Network{git: git, dir: x.dir(), env: x.env, repo: r}, nil
	}
	return nil, fmt.Errorf("%w (%T)", ErrNoNetwork, r)
}

// run runs git with args; extra is added to the environment. Prompts are
// off: a command that needs a password it cannot get fails with git's own
// message instead of waiting on a terminal nobody watches.
func (n *Network) run(extra []string, args ...string) ([]byte, error) {
	env := append(append([]string{}, n.env...), "GIT_TERMINAL_PROMPT=0")
	return runGit(n.git, n.dir, append(env, extra...), nil, args...)
}

// Unpushed counts the commits of HEAD that no remote-tracking ref of
// remote has: what a push to it would give it, as far as this clone knows.
func (n *Network) Unpushed(remote string) (int, error) {
	out, err := n.run(nil, "rev-list", "--count", "HEAD", "--not", "--remotes="+remote, "--")
	if err != nil {
		return 0, fmt.Errorf("count the commits %s lacks: %w", remote, err)
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

// Upstream is where the current branch fetches from and pushes to, as
// git's configuration says.
type Upstream struct {
	Branch     string // the current branch's short name ("" when HEAD is detached)
	Remote     string // branch.<b>.remote, else the default remote; "" when none
	MergeRef   string // branch.<b>.merge (refs/heads/main); "" when not tracking
	PushRemote string // branch.<b>.pushRemote, else remote.pushDefault, else Remote
	// Rebase is branch.<b>.rebase, else pull.rebase: "" or "false" merge,
	// anything else rebases.
	Rebase string
	// Remotes are the configured remotes' names, sorted as git lists them.
	Remotes []string
	// Fetch are the configured fetch refspecs of Remote.
	Fetch []string
	// PushDefault is push.default ("" is git's default, simple).
	PushDefault string
}

// PushTarget is the branch of the push remote that git push would update
// for the current branch under push.default, or an error that says why git
// would refuse, as git says it.
func (u Upstream) PushTarget() (string, error) {
	own := "refs/heads/" + u.Branch
	switch strings.ToLower(u.PushDefault) {
	case "nothing":
		return "", fmt.Errorf("push.default is nothing: git push pushes no branch unless named; push %s yourself, or set push.default", u.Branch)
	case "current", "matching":
		return own, nil
	case "upstream", "tracking":
		if u.MergeRef == "" || u.PushRemote != u.Remote {
			return own, nil
		}
		return u.MergeRef, nil
	}
	// simple: the upstream must have the branch's own name when pushing to
	// the remote it fetches from.
	if u.MergeRef != "" && u.PushRemote == u.Remote && u.MergeRef != own {
		return "", fmt.Errorf("the branch %s tracks %s of %s, whose name differs, and git push refuses that under push.default=simple; set push.default=upstream to push there, or give the branch the same name", u.Branch, strings.TrimPrefix(u.MergeRef, "refs/heads/"), u.Remote)
	}
	return own, nil
}

// Tracking is the remote-tracking ref of MergeRef on Remote
// (refs/remotes/origin/main), or "" when not tracking.
func (u Upstream) Tracking() string {
	if u.Remote == "" || u.MergeRef == "" {
		return ""
	}
	return "refs/remotes/" + u.Remote + "/" + strings.TrimPrefix(u.MergeRef, "refs/heads/")
}

// Rebases reports whether integrating rebases instead of merging.
func (u Upstream) Rebases() bool {
	switch strings.ToLower(u.Rebase) {
	case "", "false", "no", "off", "0":
		return false
	}
	return true
}

// Upstream reads the current branch's upstream and the remotes, in one
// git process.
func (n *Network) Upstream() (Upstream, error) {
	var branch string
	if h, err := n.repo.Head(); err == nil {
		branch = strings.TrimPrefix(h.Branch, "refs/heads/")
	}
	if r, ok := n.repo.(*Repo); ok {
		// The native engine reads git's configuration stack as git does
		// (includes, GIT_CONFIG_COUNT): no process.
		if cs, err := r.configFor(branch); err == nil {
			u := parseRemoteConfig(remoteRecords(cs), branch)
			u.Branch = branch
			return u, nil
		}
	}
	out, err := n.run(nil, "config", "-z", "--get-regexp", `^(pull\.rebase|push\.default|remote\.pushdefault|branch\..*\.(remote|merge|rebase|pushremote)|remote\..*\.(url|fetch))$`)
	if err != nil && exitCode(err) != 1 { // 1: no key matched
		return Upstream{Branch: branch}, fmt.Errorf("read the remotes' configuration: %w", err)
	}
	u := parseRemoteConfig(out, branch)
	u.Branch = branch
	return u, nil
}

// parseRemoteConfig reads the output of git config -z --get-regexp
// (records "key\nvalue\x00", or "key\x00" for a key written without a
// value; section and key lowercased, a subsection as written) into the
// upstream of branch ("" for a detached HEAD): its remote, merge ref,
// rebase and push remote with git's fallbacks, the remotes in the order
// listed and the fetch refspecs of the chosen remote. Branch is left to
// the caller. A subsection may hold dots (branch.release.v1.2.merge), so
// the key is what follows the last one.
func parseRemoteConfig(out []byte, branch string) Upstream {
	rc := remoteConfig{branch: branch, seen: map[string]bool{}, fetch: map[string][]string{}}
	for _, rec := range bytes.Split(out, []byte{0}) {
		key, val, hasVal := strings.Cut(string(rec), "\n")
		if key == "" {
			continue
		}
		sect, sub, name := remoteConfigKey(key)
		if !hasVal && name == "rebase" {
			val = "true" // a boolean key written without "= value" is true
		}
		rc.add(sect, sub, name, val)
	}
	return rc.upstream()
}

// remoteConfigKey splits a key of git config --get-regexp into its section,
// subsection ("" none) and name: the name is what follows the last dot.
func remoteConfigKey(key string) (sect, sub, name string) {
	sect, rest, _ := strings.Cut(key, ".")
	dot := strings.LastIndexByte(rest, '.')
	sub, name = "", rest
	if dot >= 0 {
		sub, name = rest[:dot], rest[dot+1:]
	}
	return sect, sub, name
}

// remoteConfig gathers the records of parseRemoteConfig: the upstream of
// branch as configured, pull.rebase and remote.pushDefault to fall back
// on, the remotes seen and each remote's fetch refspecs.
type remoteConfig struct {
	branch      string
	u           Upstream
	pullRebase  string
	pushDefault string
	seen        map[string]bool
	fetch       map[string][]string
}

// add records one key; keys other than the ones parseRemoteConfig reads
// are ignored.
func (rc *remoteConfig) add(sect, sub, name, val string) {
	switch sect {
	case "pull":
		if name == "rebase" {
			rc.pullRebase = val
		}
	case "push":
		if sub == "" && name == "default" {
			rc.u.PushDefault = val
		}
	case "remote":
		rc.addRemote(sub, name, val)
	case "branch":
		if sub == rc.branch && rc.branch != "" {
			rc.addBranch(name, val)
		}
	}
}

// addRemote records a remote.* key: remote.pushDefault, or a remote's url
// (which lists the remote, once) or fetch refspec.
func (rc *remoteConfig) addRemote(sub, name, val string) {
	switch {
	case sub == "" && name == "pushdefault":
		rc.pushDefault = val
	case sub != "" && name == "url":
		if !rc.seen[sub] {
			rc.seen[sub] = true
			rc.u.Remotes = append(rc.u.Remotes, sub)
		}
	case sub != "" && name == "fetch":
		rc.fetch[sub] = append(rc.fetch[sub], val)
	}
}

// addBranch records a branch.<branch>.* key of the branch.
func (rc *remoteConfig) addBranch(name, val string) {
	switch name {
	case "remote":
		rc.u.Remote = val
	case "merge":
		rc.u.MergeRef = val
	case "rebase":
		rc.u.Rebase = val
	case "pushremote":
		rc.u.PushRemote = val
	}
}

// upstream is the upstream gathered, with git's fallbacks: pull.rebase for
// the rebase, DefaultRemote for the remote, remote.pushDefault and then the
// remote for the push remote; and the chosen remote's fetch refspecs.
func (rc *remoteConfig) upstream() Upstream {
	u := rc.u
	if u.Rebase == "" {
		u.Rebase = rc.pullRebase
	}
	if u.Remote == "" {
		u.Remote = DefaultRemote(u.Remotes, rc.pushDefault)
	}
	if u.PushRemote == "" {
		u.PushRemote = rc.pushDefault
	}
	if u.PushRemote == "" {
		u.PushRemote = u.Remote
	}
	u.Fetch = rc.fetch[u.Remote]
	return u
}

// DefaultRemote is the remote a repository without an upstream uses:
// remote.pushDefault, else the only remote, else "origin" when there is
// one, else "".
func DefaultRemote(remotes []string, pushDefault string) string {
	switch {
	case pushDefault != "":
		return pushDefault
	case len(remotes) == 1:
		return remotes[0]
	}
	for _, r := range remotes {
		if r == "origin" {
			return r
		}
	}
	return ""
}

// RefUpdate is one ref to move on a remote by compare-and-swap: from Old
// ("" the ref must not exist) to New ("" deletes it).
type RefUpdate struct {
	Ref      string
	New, Old string
}

// RemoteError is a git command on a remote that failed for a reason other
// than a rejected update: the remote could not be reached, refused the
// credentials, or is not a repository. It names the remote and what git
// said.
type RemoteError struct {
	Remote string
	Op     string // "fetch" or "push"
	Stderr string
	Err    error
}

// Error implements error.
func (e *RemoteError) Error() string {
	msg := lastLines(e.Stderr, 3)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("%s %s: %s", e.Op, e.Remote, msg)
}

// Unwrap is the underlying error.
func (e *RemoteError) Unwrap() error { return e.Err }

// lastLines is the last n non-empty lines of s, joined by "; ".
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "hint:") {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}

// PushStatus is what a push did to one ref, from git push --porcelain:
// Flag is git's (' ' fast-forward, '+' forced, '-' deleted, '*' new, '!'
// rejected, '=' up to date) and Summary its words.
type PushStatus struct {
	Ref     string
	Flag    byte
	Summary string
}

// Rejected reports whether the update was refused.
func (s PushStatus) Rejected() bool { return s.Flag == '!' }

// parsePushPorcelain reads the status lines of git push --porcelain:
// "<flag>\t<from>:<to>\t<summary>".
func parsePushPorcelain(out []byte) []PushStatus {
	var st []PushStatus
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 3 || line[1] != '\t' {
			continue
		}
		parts := strings.SplitN(line[2:], "\t", 2)
		_, to, ok := strings.Cut(parts[0], ":")
		if !ok {
			continue
		}
		s := PushStatus{Ref: to, Flag: line[0]}
		if len(parts) == 2 {
			s.Summary = parts[1]
		}
		st = append(st, s)
	}
	return st
}

// PushCAS moves refs on the remote by compare-and-swap, all or none
// (git push --atomic with a lease per ref): the remote applies them only
// if each still holds its Old value. When one does not, nothing changes
// and the error is a *RefChangedError (ErrRefChanged) naming the first
// ref that moved; the caller fetches and decides again. Hooks are not run
// (--no-verify): these are itr's refs, not the user's work.
func (n *Network) PushCAS(remote string, ups []RefUpdate) error {
	args := []string{"push", "--porcelain", "--atomic", "--no-verify", "--quiet", remote}
	for _, u := range ups {
		args = append(args, "--force-with-lease="+u.Ref+":"+u.Old)
	}
	for _, u := range ups {
		args = append(args, u.New+":"+u.Ref)
	}
	out, err := n.run(nil, args...)
	if err == nil {
		return nil
	}
	// With --atomic, the ref that moved says "stale info" (or the remote
	// says it failed to lock or update it); the others "atomic push failed".
	// A refusal no retry changes (a hook or a policy of the remote) is a
	// *RemoteError, not a moved ref.
	var first *PushStatus
	for _, s := range parsePushPorcelain(out) {
		if !s.Rejected() {
			continue
		}
		if !leaseLost(s.Summary) {
			rerr := remoteErr(remote, "push", err).(*RemoteError) //nolint:errorlint // remoteErr always returns a fresh *RemoteError; nothing wraps it
			rerr.Stderr = strings.TrimRight(rerr.Stderr, "\n") + "\n" + s.Ref + " " + s.Summary
			return rerr
		}
		if first == nil || strings.Contains(first.Summary, "atomic push failed") {
			first = &s
		}
	}
	if first != nil {
		return &RefChangedError{Ref: first.Ref, Want: oldOf(ups, first.Ref), Have: "another value (" + first.Summary + ")"}
	}
	return remoteErr(remote, "push", err)
}

// leaseLost reports whether a rejected push status of PushCAS says the
// ref did not hold the expected value: git's own lease check ("[rejected]
// (stale info)", and "atomic push failed" for the refs pushed with it) or
// the remote losing the race for the ref's lock. Any other remote
// rejection ("pre-receive hook declined", a server's policy) is not.
func leaseLost(summary string) bool {
	if strings.HasPrefix(summary, "[rejected]") {
		return true
	}
	for _, why := range []string{"stale info", "atomic push fail", "lock", "failed to update ref", "atomic transaction failed"} {
		if strings.Contains(summary, why) {
			return true
		}
	}
	return false
}

func oldOf(ups []RefUpdate, ref string) string {
	for _, u := range ups {
		if u.Ref == ref {
			return u.Old
		}
	}
	return ""
}

// remoteErr wraps a failed git command on a remote.
func remoteErr(remote, op string, err error) error {
	var ge *GitError
	if errors.As(err, &ge) {
		return &RemoteError{Remote: remote, Op: op, Stderr: ge.Stderr, Err: err}
	}
	return &RemoteError{Remote: remote, Op: op, Err: err}
}

// Push pushes refspecs to the remote, never forcing (a refspec with a
// leading + is refused here), and returns what happened to each ref. A
// ref the remote refused as not a fast-forward makes the error wrap
// ErrPushRejected; the statuses are returned with it. Hooks run as for
// git push.
func (n *Network) Push(remote string, refspecs []string) ([]PushStatus, error) {
	for _, r := range refspecs {
		if strings.HasPrefix(r, "+") {
			return nil, fmt.Errorf("push %s: refspec %q forces; itr never force-pushes", remote, r)
		}
	}
	args := append([]string{"push", "--porcelain", remote}, refspecs...)
	out, err := n.run(nil, args...)
	st := parsePushPorcelain(out)
	if err == nil {
		return st, nil
	}
	var refused []string
	for _, s := range st {
		if s.Rejected() {
			refused = append(refused, s.Ref+" ("+s.Summary+")")
		}
	}
	if len(refused) > 0 {
		return st, fmt.Errorf("push %s: %w: %s", remote, ErrPushRejected, strings.Join(refused, ", "))
	}
	return st, remoteErr(remote, "push", err)
}

// Fetch runs git fetch of refspecs from the remote (none: the remote's
// configured ones); prune deletes local refs under the refspecs'
// destinations that the remote no longer has. Tags are fetched only as
// the refspecs ask.
func (n *Network) Fetch(remote string, refspecs []string, prune bool) error {
	args := []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head"}
	if prune {
		args = append(args, "--prune")
	}
	args = append(append(args, remote), refspecs...)
	if _, err := n.run(nil, args...); err != nil {
		return remoteErr(remote, "fetch", err)
	}
	return nil
}

// Counts returns how many commits a has that b has not, and b that a has
// not (git rev-list --left-right --count a...b).
func (n *Network) Counts(a, b string) (ahead, behind int, err error) {
	out, err := n.run(nil, "rev-list", "--left-right", "--count", a+"..."+b, "--")
	if err != nil {
		return 0, 0, fmt.Errorf("compare %s with %s: %w", a, b, err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("compare %s with %s: unexpected %q", a, b, out)
	}
	ahead, _ = strconv.Atoi(f[0])
	behind, _ = strconv.Atoi(f[1])
	return ahead, behind, nil
}

// Integration is how Integrate brought the upstream in.
type Integration string

// The integrations.
const (
	UpToDate    Integration = "up-to-date"
	FastForward Integration = "fast-forward"
	Merged      Integration = "merge"
	Rebased     Integration = "rebase"
)

// ConflictError is an integration git stopped on: the merge or rebase is
// left in progress, with the paths still unmerged.
type ConflictError struct {
	Op       Integration // Merged or Rebased
	Unmerged []string
	Stderr   string
}

// Error implements error.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("the %s stopped on conflicts in %s", e.Op, strings.Join(e.Unmerged, ", "))
}

// Integrate brings the commit upstream into the current branch: a
// fast-forward when the branch has nothing of its own, else git merge
// (with message) or git rebase as rebase says, with the user's
// configuration (merge drivers, rerere, hooks). A stop on conflicts is a
// *ConflictError and leaves the operation in progress for Continue or the
// user.
func (n *Network) Integrate(upstream string, rebase bool, message string) (Integration, error) {
	ahead, behind, err := n.Counts("HEAD", upstream)
	if err != nil {
		return "", err
	}
	switch {
	case behind == 0:
		return UpToDate, nil
	case ahead == 0:
		if _, err := n.run(nil, "merge", "--ff-only", "--quiet", upstream); err != nil {
			return "", fmt.Errorf("fast-forward to %s: %w", upstream, err)
		}
		return FastForward, nil
	}
	op, args := Merged, []string{"merge", "--no-edit", "--no-stat", "--quiet", "-m", message, upstream}
	if rebase {
		op, args = Rebased, []string{"rebase", "--quiet", upstream}
	}
	if _, err := n.run([]string{"GIT_EDITOR=true"}, args...); err != nil {
		if paths, uerr := n.Unmerged(); uerr == nil && len(paths) > 0 {
			var ge *GitError
			stderr := ""
			if errors.As(err, &ge) {
				stderr = ge.Stderr
			}
			return op, &ConflictError{Op: op, Unmerged: paths, Stderr: stderr}
		}
		return op, fmt.Errorf("%s %s: %w", op, upstream, err)
	}
	return op, nil
}

// Unmerged lists the paths with conflicts in the index.
func (n *Network) Unmerged() ([]string, error) {
	out, err := n.run(nil, "diff", "--name-only", "--diff-filter=U", "-z")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			paths = append(paths, string(p))
		}
	}
	return paths, nil
}

// Continue concludes a merge or rebase whose conflicts are resolved and
// staged (git commit --no-edit, git rebase --continue). A rebase that
// stops on the next commit is a *ConflictError again.
func (n *Network) Continue(op Integration) error {
	args := []string{"commit", "--no-edit", "--quiet"}
	if op == Rebased {
		args = []string{"rebase", "--continue"}
	}
	if _, err := n.run([]string{"GIT_EDITOR=true"}, args...); err != nil {
		if paths, uerr := n.Unmerged(); uerr == nil && len(paths) > 0 {
			return &ConflictError{Op: op, Unmerged: paths}
		}
		return fmt.Errorf("conclude the %s: %w", op, err)
	}
	return nil
}

// remoteRecords renders the entries of cs that Upstream reads as git
// config -z --get-regexp would print them, for parseRemoteConfig.
func remoteRecords(cs *configSet) []byte {
	var b bytes.Buffer
	for _, e := range cs.entries {
		keep := false
		switch e.section {
		case "pull":
			keep = e.subsection == "" && e.key == "rebase"
		case "push":
			keep = e.subsection == "" && e.key == "default"
		case "remote":
			keep = e.subsection == "" && e.key == "pushdefault" || e.subsection != "" && (e.key == "url" || e.key == "fetch")
		case "branch":
			keep = e.subsection != "" && (e.key == "remote" || e.key == "merge" || e.key == "rebase" || e.key == "pushremote")
		}
		if !keep {
			continue
		}
		b.WriteString(e.section)
		if e.subsection != "" {
			b.WriteString("." + e.subsection)
		}
		b.WriteString("." + e.key + "\n" + e.value)
		b.WriteByte(0)
	}
	return b.Bytes()
}
