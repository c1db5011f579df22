package workspace

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"sort"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// reconcileOperation resolves a task's files in the middle of a merge,
// rebase, cherry-pick or revert: it reads base, ours and theirs from the
// index, writes the union of both logs and the state folded from it,
// stages them, and leaves `git commit` (or `--continue`) to conclude the
// operation. It never concludes anything itself.
func (w *Workspace) reconcileOperation(slug, op string, opts ReconcileOptions) (*ReconcileReport, error) {
	rep := &ReconcileReport{Slug: slug, Operation: op, Discrepancies: []reconcile.Discrepancy{}, Problems: []string{}, Saved: []string{}, Staged: []string{}}
	dir := w.TaskDir(slug)
	all, err := w.Repo.Staged("")
	if err != nil {
		return nil, err
	}
	stages := map[string][4]string{}
	for _, e := range all {
		s := stages[e.Path]
		s[e.Stage] = e.Hash
		stages[e.Path] = s
	}
	conflicted := func(rel string) bool {
		s := stages[rel]
		return s[1] != "" || s[2] != "" || s[3] != ""
	}
	blob := func(h string) ([]byte, error) {
		if h == "" {
			return nil, nil
		}
		return w.Repo.ReadBlob(h)
	}
	progressRel, stateRel, guardRel := dir+"/"+ProgressFile, dir+"/"+StateFile, dir+"/"+GuardrailsFile
	var changes []gitstate.FileChange

	// The log.
	var logBytes []byte
	if conflicted(progressRel) {
		s := stages[progressRel]
		base, err := blob(s[1])
		if err != nil {
			return nil, err
		}
		ours, err := blob(s[2])
		if err != nil {
			return nil, err
		}
		theirs, err := blob(s[3])
		if err != nil {
			return nil, err
		}
		var added int
		if logBytes, added, err = progresslog.Union(base, ours, theirs); err != nil {
			return nil, err
		}
		rep.Adopted = added
		changes = append(changes, gitstate.FileChange{Path: progressRel, Data: logBytes})
	} else if logBytes, err = w.readWorktree(progressRel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if conflicted(guardRel) {
		s := stages[guardRel]
		ours, err := blob(s[2])
		if err != nil {
			return nil, err
		}
		theirs, err := blob(s[3])
		if err != nil {
			return nil, err
		}
		g, err := unionGuardrails(ours, theirs)
		if err != nil {
			return nil, err
		}
		changes = append(changes, gitstate.FileChange{Path: guardRel, Data: g})
	}

	// The state, folded from the merged log; what no event knows comes
	// from ours (or theirs).
	var ours, theirs []byte
	if conflicted(stateRel) {
		s := stages[stateRel]
		if ours, err = blob(s[2]); err != nil {
			return nil, err
		}
		if theirs, err = blob(s[3]); err != nil {
			return nil, err
		}
	} else if ours, err = w.readWorktree(stateRel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	merged, err := w.foldMerged(slug, ours, theirs, logBytes, dir)
	if err != nil {
		return nil, err
	}
	disk, _ := w.readWorktree(stateRel)
	if conflicted(stateRel) || !bytes.Equal(disk, merged) {
		changes = append(changes, gitstate.FileChange{Path: stateRel, Data: merged})
		if recorded, err := state.Decode(disk); err == nil {
			derived, _ := state.Decode(merged)
			rep.Discrepancies = reconcile.Diff(recorded, derived, nil)
		}
		rep.Diff = progresslog.LineDiff(string(disk), string(merged))
	}
	for _, c := range changes {
		rep.Staged = append(rep.Staged, c.Path)
	}
	var others []string
	for p := range stages {
		if conflicted(p) && path.Dir(p) != dir {
			others = append(others, p)
		}
	}
	sort.Strings(others)
	rep.Unresolved = others
	if opts.Check || opts.DryRun || len(changes) == 0 {
		if !opts.DryRun {
			rep.Diff = ""
		}
		return rep, nil
	}
	if err := w.Repo.Stage(changes); err != nil {
		return nil, err
	}
	return rep, nil
}
