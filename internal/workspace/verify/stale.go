package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
)

// Stale inputs: a done unit read its inputs (the plan's Inputs: files, or
// another unit's outputs) as they were when it was done. When one changes
// in a later commit, or in the working tree, or an upstream unit (one it
// depends on or reads) is reopened after it was done, its work may no
// longer hold. They are found from git alone: the commit where the unit
// became done (or was last re-checked) is the newest of the task's itr
// commits naming the unit with Itr-Status done, and each input's blob
// there is compared with HEAD's. Only done units with inputs or
// dependencies cost anything, and the walk reads commits only (no trees)
// until it has found each such unit's done commit.

// The kinds of stale input.
const (
	StaleChanged     = "changed"     // a commit after done changed the input
	StaleUncommitted = "uncommitted" // the working tree differs from HEAD
	StaleReopened    = "reopened"    // an upstream unit was reopened after done
)

// StaleInput is one input of a done unit that changed after the unit was
// done. Its JSON field names are part of itr's interface (status and
// verify --json).
type StaleInput struct {
	// Unit is the done unit; Kind what happened (changed, uncommitted,
	// reopened).
	Unit string `json:"unit"`
	Kind string `json:"kind"`
	// Input is the input as the plan names it ("outputs/survey.md", or the
	// upstream unit for reopened); From the unit whose output it is.
	Input string `json:"input"`
	From  string `json:"from,omitempty"`
	// Path is the input's path in the repository ("" for reopened).
	Path string `json:"path,omitempty"`
	// DoneCommit is the commit where Unit became done, or was last
	// re-checked: what it read is the input as that commit holds it.
	DoneCommit string `json:"done_commit"`
	// Commit is the newest commit after DoneCommit that changed the input
	// (or reopened the upstream unit), Subject its subject; Commits counts
	// the commits that changed it since.
	Commit  string `json:"commit,omitempty"`
	Subject string `json:"subject,omitempty"`
	Commits int    `json:"commits,omitempty"`
}

// String reads `R2: its input outputs/survey.md (R1's output) changed in
// commit 1a2b3c4 (shorten the survey) after R2 was done (at 5d6e7f8)`.
func (s StaleInput) String() string {
	in := s.Input
	if s.From != "" {
		in += " (" + s.From + "'s output)"
	}
	switch s.Kind {
	case StaleUncommitted:
		return fmt.Sprintf("%s: its input %s has changes in the working tree that no commit holds, since %s was done", s.Unit, in, s.Unit)
	case StaleReopened:
		return fmt.Sprintf("%s: %s, which it builds on, was reopened in commit %s (%s) after %s was done (at %s)",
			s.Unit, s.Input, store.Short(s.Commit), store.OneLine(s.Subject, 60), s.Unit, store.Short(s.DoneCommit))
	}
	more := ""
	if s.Commits > 1 {
		more = fmt.Sprintf(" (and %d commit%s before it)", s.Commits-1, store.Plural(s.Commits-1, "", "s"))
	}
	return fmt.Sprintf("%s: its input %s changed in commit %s (%s)%s after %s was done (at %s)",
		s.Unit, in, store.Short(s.Commit), store.OneLine(s.Subject, 60), more, s.Unit, store.Short(s.DoneCommit))
}

// Fix says the way on: read the change, then re-check the unit or reopen it.
func (s StaleInput) Fix() string {
	look := fmt.Sprintf("read what changed (`git diff %s -- %s`)", store.Short(s.DoneCommit), s.Path)
	switch s.Kind {
	case StaleUncommitted:
		look = fmt.Sprintf("read what changed (`git diff -- %s`), and commit it or put it back", s.Path)
	case StaleReopened:
		look = fmt.Sprintf("read %s's work as it stands now", s.Input)
	}
	return fmt.Sprintf("%s; if %s still holds, record that with `itr recheck %s --did ...`, else send it back with `itr reopen %s --reason ...`", look, s.Unit, s.Unit, s.Unit)
}

// maxStaleWalk bounds the walk back for the commits where units became
// done: a unit done further back is not checked.
const maxStaleWalk = 2000

// doneMark is a point of the walk: where a unit became done, or an
// upstream unit was reopened.
type doneMark struct {
	at  int // index in the walk, 0 = HEAD
	hit gitstate.Commit
}

// StaleInputs finds the done units of task t whose inputs changed after
// they were done (in a commit, or with worktree in the working tree too) or
// whose upstream unit was reopened since, in natural ID order of the unit.
func StaleInputs(st *store.Store, t *store.Task, worktree bool) ([]StaleInput, error) {
	if t == nil || t.State == nil || t.Plan == nil || t.Head.Hash == "" {
		return nil, nil
	}
	want := map[string][]string{} // done unit → its upstream units
	all, units := t.State.Ordered()
	for i, id := range all {
		if u := units[i]; u == nil || u.Status != state.Done {
			continue
		}
		if up := upstream(t.Plan, id); len(up) > 0 || len(t.Plan.InputFiles(id)) > 0 {
			want[id] = up
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	commits, done, reopens, err := walkDone(st, t, want)
	if err != nil {
		return nil, err
	}
	var out []StaleInput
	ids := make([]string, 0, len(done))
	for id := range done {
		ids = append(ids, id)
	}
	state.SortIDs(ids)
	for _, id := range ids {
		mark := done[id]
		for _, in := range t.Plan.InputFiles(id) {
			s, err := staleInput(st, t, commits, mark, id, in, worktree)
			if err != nil {
				return nil, err
			}
			if s != nil {
				out = append(out, *s)
			}
		}
		for _, r := range reopens {
			// An upstream unit not done now is named by the advice's
			// recheck already (re-check once it is done again).
			up := t.State.Units[unitOf(r.hit)]
			if r.at < mark.at && slices.Contains(want[id], unitOf(r.hit)) && up != nil && up.Status == state.Done {
				out = append(out, StaleInput{Unit: id, Kind: StaleReopened, Input: unitOf(r.hit), DoneCommit: mark.hit.Hash, Commit: r.hit.Hash, Subject: r.hit.Subject})
			}
		}
	}
	return out, nil
}

// upstream are the units unit id depends on or reads the outputs of.
func upstream(p *plan.Plan, id string) []string {
	up := append([]string(nil), p.Deps(id)...)
	if u := p.Unit(id); u != nil {
		for _, in := range u.InputRefs() {
			if in.Unit != "" && !slices.Contains(up, in.Unit) {
				up = append(up, in.Unit)
			}
		}
	}
	return up
}

func unitOf(c gitstate.Commit) string {
	v, _ := c.Trailer(store.TrailerUnit)
	return v
}

// walkDone walks first parents back from HEAD, commits only, until it has
// found the commit where each unit of want became done (the newest of the
// task's itr commits naming it with Itr-Status done), the task's Created
// commit, or maxStaleWalk commits; it notes the reopens of units on the
// way.
func walkDone(st *store.Store, t *store.Task, want map[string][]string) (commits []gitstate.Commit, done map[string]doneMark, reopens []doneMark, err error) {
	done = map[string]doneMark{}
	err = st.Repo.History(t.Head.Hash, func(c gitstate.Commit) bool {
		i := len(commits)
		commits = append(commits, c)
		if slug, _ := c.Trailer(store.TrailerTask); slug == t.Slug {
			ev, _ := c.Trailer(store.TrailerEvent)
			unit := unitOf(c)
			status, _ := c.Trailer(store.TrailerStatus)
			if _, ok := want[unit]; ok && status == string(state.Done) {
				if _, seen := done[unit]; !seen {
					done[unit] = doneMark{at: i, hit: c}
				}
			}
			if ev == store.EventReopened {
				reopens = append(reopens, doneMark{at: i, hit: c})
			}
			if ev == store.EventCreated {
				return false
			}
		}
		return len(done) < len(want) && len(commits) < maxStaleWalk
	})
	return commits, done, reopens, err
}

// staleInput compares one input of unit id as the commit where it became
// done holds it with HEAD (and the working tree), nil when it is the same.
func staleInput(st *store.Store, t *store.Task, commits []gitstate.Commit, mark doneMark, id string, in plan.InputFile, worktree bool) (*StaleInput, error) {
	paths := st.NamePaths(t.Slug, in.Name)
	dir := strings.HasSuffix(in.Name, "/")
	at := func(rev string) (string, string, error) { return inputID(st, rev, paths, dir) }
	base, _, err := at(mark.hit.Hash)
	if err != nil {
		return nil, err
	}
	head, rel, err := at(t.Head.Hash)
	if err != nil {
		return nil, err
	}
	s := &StaleInput{Unit: id, Input: in.Name, From: in.From, Path: rel, DoneCommit: mark.hit.Hash}
	if base != head {
		// The newest commit that changed it, and how many did, walking
		// back to the done commit.
		s.Kind = StaleChanged
		newer := head
		for i := 1; i <= mark.at; i++ {
			h, _, err := at(commits[i].Hash)
			if err != nil {
				return nil, err
			}
			if h != newer {
				if s.Commit == "" {
					s.Commit, s.Subject = commits[i-1].Hash, commits[i-1].Subject
				}
				s.Commits++
			}
			newer = h
		}
		return s, nil
	}
	if !worktree || dir || head == "" {
		return nil, nil
	}
	data, err := st.Repo.WorktreeFile(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, nil // unreadable here: status warns of the file elsewhere
	case st.Repo.BlobID(data) == head:
		return nil, nil
	}
	s.Kind = StaleUncommitted
	return s, nil
}

// inputID is what identifies an input at rev: the blob id of the first of
// paths that exists (a folder's files and ids, sorted, when dir), "" when
// none does; rel is the path it was found at (the first when none was).
func inputID(st *store.Store, rev string, paths []string, dir bool) (id, rel string, err error) {
	for _, p := range paths {
		if dir {
			files, err := st.Repo.TreeFiles(rev, strings.TrimSuffix(p, "/"))
			if errors.Is(err, gitstate.ErrNotFound) || err == nil && len(files) == 0 {
				continue
			}
			if err != nil {
				return "", "", err
			}
			keys := make([]string, 0, len(files))
			for k, v := range files {
				keys = append(keys, k+" "+v)
			}
			sort.Strings(keys)
			return strings.Join(keys, "\n"), p, nil
		}
		h, err := st.Repo.FileHashAt(rev, p)
		if errors.Is(err, gitstate.ErrNotFound) {
			continue
		}
		if err != nil {
			return "", "", err
		}
		return h, p, nil
	}
	return "", paths[0], nil
}

// StaleFindings words stale inputs as warnings of itr verify: the
// history is not wrong for them, so they do not change its exit code.
func StaleFindings(stale []StaleInput) []Finding {
	var out []Finding
	for _, s := range stale {
		file := s.Path
		if file == "" {
			file = s.Unit
		}
		out = append(out, Finding{File: file, Commit: s.Commit, Problem: "done unit " + s.String(), Fix: s.Fix()})
	}
	return out
}
