package syncer

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/merge"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
)

// syncAttempts bounds the rounds of fetch, integrate and push when the
// remote's branch keeps moving under a sync.
const syncAttempts = 5

// Request asks to sync the current branch with a remote.
type Request struct {
	// Remote is the remote to sync with; "" is the branch's (for fetch)
	// and its push remote (for push).
	Remote string
}

// Report says what a sync fetched, integrated and pushed.
type Report struct {
	Remote string `json:"remote"`
	Branch string `json:"branch"`
	// Upstream is the remote branch synced with (refs/heads/main).
	Upstream string `json:"upstream"`
	// PushedTo is the branch of the push remote the push updates, as git
	// push would choose it (push.default).
	PushedTo string `json:"pushed_to"`
	// Fetched is how many commits the remote had that this branch had
	// not, in the last round.
	Fetched int `json:"fetched_commits"`
	// Integration is how they came in: up-to-date, fast-forward, merge,
	// rebase.
	Integration string `json:"integration"`
	// Resolved are itr's files whose conflicts reconcile resolved during
	// the merge or rebase.
	Resolved []string `json:"resolved,omitempty"`
	// Reconciled are the tasks whose state.json reconcile rebuilt after
	// integrating, with the commit that did it.
	Reconciled map[string]string `json:"reconciled,omitempty"`
	// Pushed is how many commits the push gave the remote's branch.
	Pushed int `json:"pushed_commits"`
	// Archives are the archive refs pushed or fetched.
	Archives []string `json:"archives,omitempty"`
	// Claims is how many claims the remote holds for this repository's
	// tasks after the sync.
	Claims int `json:"claims"`
	// Driver is set when sync registered itr's merge driver in this
	// clone's git config (a clone does not copy it), before merging.
	Driver bool `json:"registered_driver,omitempty"`
	// Attempts counts the rounds: more than one when the remote's branch
	// moved between fetch and push.
	Attempts int `json:"attempts"`
	// Warnings are what did not stop the sync but needs a look (an
	// archive ref that differs between the clones).
	Warnings []string `json:"warnings,omitempty"`
}

// Stopped is a sync that stopped on conflicts in files other than itr's:
// the merge or rebase is left in progress for the user.
type Stopped struct {
	Op       gitstate.Integration
	Unmerged []string
}

// Error implements error.
func (e *Stopped) Error() string {
	next := "resolve them, `git add` them and `git commit`"
	abort := "git merge --abort"
	if e.Op == gitstate.Rebased {
		next, abort = "resolve them, `git add` them and `git rebase --continue`", "git rebase --abort"
	}
	return fmt.Sprintf("sync stopped: the %s has conflicts in %s (itr's own files were resolved); %s, then run `itr sync` again, or undo it with `%s`",
		e.Op, strings.Join(store.FirstN(e.Unmerged, 8), ", "), next, abort)
}

// sync is Sync: the checks, then rounds of fetch, integrate and push
// until the branch is pushed, then the archives and the claims.
func (w *clone) sync(req Request) (*Report, error) {
	n, up, err := w.syncUpstream()
	if err != nil {
		return nil, err
	}
	to, err := syncTargetOf(req, up)
	if err != nil {
		return nil, err
	}
	rep := &Report{Remote: to.fetchFrom, Branch: up.Branch, Upstream: to.mergeRef, PushedTo: to.pushRef}
	if to.pushTo != to.fetchFrom {
		rep.Remote = to.fetchFrom + " (push: " + to.pushTo + ")"
	}
	slugs, err := w.Slugs()
	if err != nil {
		return nil, err
	}
	if len(slugs) > 0 {
		if err := w.syncDriver(rep); err != nil {
			return nil, err
		}
	}
	for rep.Attempts = 1; ; rep.Attempts++ {
		done, err := w.syncRound(n, up, to, rep)
		if err != nil {
			return rep, err
		}
		if done {
			break
		}
	}
	w.syncArchives(n, to.pushTo, rep)
	rep.Claims = w.claimCount(slugs)
	return rep, nil
}

// syncUpstream checks that the current branch can be synced (a root, no
// git operation in progress, a branch with commits) and returns the
// network and the branch's upstream.
func (w *clone) syncUpstream() (*gitstate.Network, gitstate.Upstream, error) {
	if err := w.CheckRoot(); err != nil {
		return nil, gitstate.Upstream{}, err
	}
	if op := w.Repo.Operation(); op != "" {
		return nil, gitstate.Upstream{}, fmt.Errorf("a git %s is in progress; finish it (git status says how) and run `itr sync` again", op)
	}
	n, err := gitstate.NetworkOf(w.Repo)
	if err != nil {
		return nil, gitstate.Upstream{}, err
	}
	up, err := n.Upstream()
	if err != nil {
		return nil, gitstate.Upstream{}, err
	}
	if up.Branch == "" {
		return nil, gitstate.Upstream{}, errors.New("HEAD is detached: check out the branch to sync (git switch BRANCH), then run `itr sync` again")
	}
	if head, err := w.Repo.Head(); err == nil && head.Unborn {
		// A clone of a remote whose HEAD names a branch it lacks lands here.
		return nil, gitstate.Upstream{}, fmt.Errorf("branch %s has no commits yet, so there is nothing to sync: check out the remote's branch (`git ls-remote --heads` lists them; `git switch -c NAME --track REMOTE/NAME`), or make a first commit", up.Branch)
	}
	return n, up, nil
}

// syncTarget is where a sync fetches from and pushes to.
type syncTarget struct {
	fetchFrom, pushTo string
	// mergeRef is the remote's branch fetched, pushRef the one the push
	// updates.
	mergeRef, pushRef string
	// short is mergeRef's branch name, tracking its remote-tracking ref.
	short, tracking string
}

// syncTargetOf chooses the remotes and branches a sync uses: the
// upstream's, or the remote req names.
func syncTargetOf(req Request, up gitstate.Upstream) (*syncTarget, error) {
	fetchFrom, pushTo, mergeRef := up.Remote, up.PushRemote, up.MergeRef
	if req.Remote != "" {
		if !slices.Contains(up.Remotes, req.Remote) {
			return nil, fmt.Errorf("%q is not a remote of this repository (remotes: %s); add it with `git remote add %s URL`", req.Remote, store.ListOrNone(up.Remotes), req.Remote)
		}
		if req.Remote != up.Remote {
			mergeRef = ""
		}
		fetchFrom, pushTo = req.Remote, req.Remote
	}
	if fetchFrom == "" {
		return nil, errors.New("this repository has no remote to sync with; add one with `git remote add origin URL`")
	}
	if mergeRef == "" {
		mergeRef = "refs/heads/" + up.Branch
	}
	// The branch the push updates is the one git push would: push.default
	// decides (simple, git's default, refuses an upstream of another name).
	pushRef := "refs/heads/" + up.Branch
	if req.Remote == "" {
		var err error
		if pushRef, err = up.PushTarget(); err != nil {
			return nil, err
		}
	}
	return &syncTarget{fetchFrom: fetchFrom, pushTo: pushTo, mergeRef: mergeRef, pushRef: pushRef,
		short:    strings.TrimPrefix(mergeRef, "refs/heads/"),
		tracking: gitstate.Upstream{Remote: fetchFrom, MergeRef: mergeRef}.Tracking()}, nil
}

// syncDriver registers itr's merge driver before merging (rep.Driver says
// whether this clone lacked it) and warns when .gitattributes lacks some
// of itr's merge lines.
func (w *clone) syncDriver(rep *Report) error {
	before, _ := w.Repo.ConfigSection("merge", "itr")
	if err := merge.Register(w.Store); err != nil {
		return fmt.Errorf("register itr's merge driver before merging: %w", err)
	}
	after, _ := w.Repo.ConfigSection("merge", "itr")
	rep.Driver = fmt.Sprint(before) != fmt.Sprint(after)
	if _, missing, err := merge.Attributes(w.Store); err == nil && missing {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s/.gitattributes lacks some of itr's merge lines (a task made by an older itr): run `itr setup` and commit it, so plan files merge without conflicts", w.Root))
	}
	return nil
}

// syncRound is one round of a sync: fetch, integrate, push. done is set
// when the branch needs no further round; a push rejected because the
// remote's branch moved asks for another (up to syncAttempts).
func (w *clone) syncRound(n *gitstate.Network, up gitstate.Upstream, to *syncTarget, rep *Report) (bool, error) {
	exists, err := w.fetchForSync(n, to.fetchFrom, to.mergeRef, to.tracking)
	if err != nil {
		return false, err
	}
	rep.Fetched = 0
	if exists {
		if err := w.syncIntegrate(n, up, to, rep); err != nil {
			return false, err
		}
	} else {
		rep.Integration = string(gitstate.UpToDate)
	}
	if exists && to.pushRef == to.mergeRef && to.pushTo == to.fetchFrom {
		ahead, _, err := n.Counts("HEAD", to.tracking)
		if err != nil {
			return false, err
		}
		if rep.Pushed = ahead; ahead == 0 {
			return true, nil
		}
	} else if count, err := n.Unpushed(to.pushTo); err == nil {
		// Another branch or remote than the one fetched: push (git
		// says when it is up to date), counting what no ref of the
		// push remote had.
		rep.Pushed = count
	}
	_, err = n.Push(to.pushTo, []string{"HEAD:" + to.pushRef})
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, gitstate.ErrPushRejected) || to.pushTo != to.fetchFrom || rep.Attempts >= syncAttempts {
		if errors.Is(err, gitstate.ErrPushRejected) {
			return false, fmt.Errorf("%w; the remote's branch kept moving over %d rounds, run `itr sync` again", err, rep.Attempts)
		}
		return false, err
	}
	return false, nil
}

// syncIntegrate brings the fetched branch into the current one under
// itr's lock, and rebuilds the tasks the integration changed.
func (w *clone) syncIntegrate(n *gitstate.Network, up gitstate.Upstream, to *syncTarget, rep *Report) error {
	if _, behind, err := n.Counts("HEAD", to.tracking); err == nil {
		rep.Fetched = behind
	}
	// itr's lock keeps other itr commands of this repository out
	// while the branch moves and its tasks are rebuilt.
	unlock, err := record.Lock(w.Store)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("Merge branch '%s' of %s (itr sync)", to.short, to.fetchFrom)
	err = w.integrate(n, to.tracking, up.Rebases(), msg, rep)
	if err == nil && rep.Integration != string(gitstate.UpToDate) {
		err = w.reconcileAfterSync(rep)
	}
	unlock()
	return err
}

// fetchForSync fetches the remote's branch into its remote-tracking ref
// and the claims of every task (pruned to what the remote holds). It
// reports whether the remote has the branch.
func (w *clone) fetchForSync(n *gitstate.Network, remote, mergeRef, tracking string) (bool, error) {
	claims := "+" + store.ClaimRefPrefix + "*:" + store.ClaimRefPrefix + "*"
	err := n.Fetch(remote, []string{"+" + mergeRef + ":" + tracking, claims}, true)
	if err == nil {
		return true, nil
	}
	if !strings.Contains(err.Error(), "couldn't find remote ref") {
		return false, err
	}
	// A remote without the branch yet: the push creates it.
	if err := n.Fetch(remote, []string{claims}, true); err != nil {
		return false, err
	}
	return false, nil
}

// integrate brings tracking in, resolving itr's files when git stops on
// them and concluding the operation; conflicts elsewhere stop the sync.
func (w *clone) integrate(n *gitstate.Network, tracking string, rebase bool, msg string, rep *Report) error {
	op, err := n.Integrate(tracking, rebase, msg)
	rep.Integration = string(op)
	// A rebase stops at each commit that conflicts: resolve each in turn.
	for round := 0; err != nil; round++ {
		var ce *gitstate.ConflictError
		if !errors.As(err, &ce) || round > 10_000 {
			return err
		}
		// itr's own files are resolved first, also when others conflict:
		// the person who resolves those finds itr's done (as the stop
		// says).
		ours, unresolved := splitConflicts(w.Root, ce.Unmerged)
		for _, slug := range ours {
			r, rerr := record.ReconcileLocked(w.Store, slug)
			if rerr != nil {
				return fmt.Errorf("resolve %s's files during the %s: %w", slug, ce.Op, rerr)
			}
			rep.Resolved = append(rep.Resolved, r.Staged...)
			unresolved = append(unresolved, r.Unresolved...)
		}
		if len(unresolved) > 0 {
			slices.Sort(unresolved)
			return &Stopped{Op: ce.Op, Unmerged: slices.Compact(unresolved)}
		}
		err = n.Continue(ce.Op)
	}
	return nil
}

// splitConflicts splits unmerged paths into the tasks under the task root
// whose logs or state hold some (itr resolves those) and the other paths.
func splitConflicts(root string, paths []string) (slugs, others []string) {
	seen := map[string]bool{}
	for _, p := range paths {
		rest, ok := strings.CutPrefix(p, root+"/")
		slug, name, inTask := strings.Cut(rest, "/")
		// The logs and the state are itr's to resolve; a plan both sides
		// rewrote (the driver merges its checkboxes and counts) is the
		// person's, like any other file.
		switch name {
		case store.ProgressFile, store.GuardrailsFile, store.DecisionsFile, store.StateFile:
		default:
			inTask = false
		}
		if !ok || !inTask || slug == "" {
			others = append(others, p)
			continue
		}
		if !seen[slug] {
			seen[slug] = true
			slugs = append(slugs, slug)
		}
	}
	return slugs, others
}

// reconcileAfterSync rebuilds the state of every task whose state.json
// disagrees with its log after the integration (trust git over state).
// The caller holds itr's lock.
func (w *clone) reconcileAfterSync(rep *Report) error {
	slugs, err := w.Slugs()
	if err != nil {
		return err
	}
	for _, slug := range slugs {
		r, err := record.ReconcileLocked(w.Store, slug)
		if err != nil {
			return fmt.Errorf("reconcile %s after the sync: %w", slug, err)
		}
		if r.Commit != "" {
			if rep.Reconciled == nil {
				rep.Reconciled = map[string]string{}
			}
			rep.Reconciled[slug] = r.Commit
		}
	}
	return nil
}
