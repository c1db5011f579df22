package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/workspace/index"
	"github.com/itr-dev/itr/workspace/merge"
	"github.com/itr-dev/itr/workspace/store"
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
	// versions reads base, ours and theirs of a conflicted path.
	versions := func(rel string) (v [4][]byte, err error) {
		for stage := 1; stage <= 3; stage++ {
			if h := stages[rel][stage]; h != "" {
				if v[stage], err = w.Repo.ReadBlob(h); err != nil {
					return v, err
				}
			}
		}
		return v, nil
	}
	progressRel, stateRel, guardRel := dir+"/"+store.ProgressFile, dir+"/"+store.StateFile, dir+"/"+store.GuardrailsFile
	var changes []gitstate.FileChange

	// The log.
	var logBytes []byte
	if conflicted(progressRel) {
		v, err := versions(progressRel)
		if err != nil {
			return nil, err
		}
		base, ours, theirs := v[1], v[2], v[3]
		// A side that rewrote or lacks entries of the base does not win
		// over what was committed: the base's text is kept, the side's
		// own new entries follow, and its version is saved.
		for i, side := range []*[]byte{&ours, &theirs} {
			kept, changed, err := keepCommitted(base, *side)
			if err != nil {
				return nil, err
			}
			if len(changed) == 0 {
				continue
			}
			name := [2]string{"ours", "theirs"}[i]
			msg := fmt.Sprintf("%s: %s rewrote or lacks committed entries (%s); the committed text is kept", progressRel, name, strings.Join(store.FirstN(changed, 3), "; "))
			if !opts.Check && !opts.DryRun {
				saved, err := w.save(slug, name+"-"+store.ProgressFile, *side)
				if err != nil {
					return nil, err
				}
				rep.Saved = append(rep.Saved, saved)
				msg += ", " + name + "'s version saved in " + saved
			}
			rep.Problems = append(rep.Problems, msg)
			*side = kept
		}
		var added int
		if logBytes, added, err = progresslog.Union(base, ours, theirs); err != nil {
			return nil, err
		}
		rep.Adopted = added
		changes = append(changes, gitstate.FileChange{Path: progressRel, Data: logBytes})
	} else if logBytes, err = w.ReadWorktree(progressRel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if conflicted(guardRel) {
		v, err := versions(guardRel)
		if err != nil {
			return nil, err
		}
		ours, theirs := v[2], v[3]
		g, err := progresslog.UnionGuardrails(ours, theirs)
		if err != nil {
			return nil, err
		}
		changes = append(changes, gitstate.FileChange{Path: guardRel, Data: g})
	}
	if decRel := dir + "/" + store.DecisionsFile; conflicted(decRel) {
		v, err := versions(decRel)
		if err != nil {
			return nil, err
		}
		d, err := progresslog.UnionDecisions(v[2], v[3])
		if err != nil {
			return nil, err
		}
		changes = append(changes, gitstate.FileChange{Path: decRel, Data: d})
	}

	// The state, folded from the merged log; what no event knows comes
	// from ours (or theirs).
	var ours, theirs []byte
	if conflicted(stateRel) {
		v, err := versions(stateRel)
		if err != nil {
			return nil, err
		}
		ours, theirs = v[2], v[3]
	} else if ours, err = w.ReadWorktree(stateRel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	merged, err := merge.FoldMerged(w.Store, slug, ours, theirs, logBytes, dir)
	if err != nil {
		return nil, err
	}
	disk, _ := w.ReadWorktree(stateRel)
	if conflicted(stateRel) || !bytes.Equal(disk, merged) {
		changes = append(changes, gitstate.FileChange{Path: stateRel, Data: merged})
		if recorded, err := state.Decode(disk); err == nil {
			derived, _ := state.Decode(merged)
			rep.Discrepancies = reconcile.Diff(recorded, derived, nil)
		}
		rep.Diff = progresslog.LineDiff(string(disk), string(merged))
	}
	// INDEX.md, derived from every task, is joined row by row (what the
	// merge driver does when git runs it).
	indexRel := index.Path(w.Store)
	if conflicted(indexRel) {
		v, err := versions(indexRel)
		if err != nil {
			return nil, err
		}
		joined, err := index.Merge(v[1], v[2], v[3])
		if err != nil {
			return nil, fmt.Errorf("%s: %w; resolve it by hand, or take either side and run `itr list --write-index` after the merge", indexRel, err)
		}
		changes = append(changes, gitstate.FileChange{Path: indexRel, Data: joined})
	}
	for _, c := range changes {
		rep.Staged = append(rep.Staged, c.Path)
	}
	var others []string
	for p := range stages {
		if conflicted(p) && path.Dir(p) != dir && p != indexRel {
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

// keepCommitted returns side with every entry of base as base has it: an
// entry of base that side rewrote or lacks is taken from base, and side's
// entries that base does not have follow, in side's order. changed lists
// the titles side rewrote or lacked (none: side is returned as it is).
func keepCommitted(base, side []byte) ([]byte, []string, error) {
	if len(base) == 0 || len(side) == 0 {
		return side, nil, nil
	}
	if _, err := progresslog.StrictUnion(base, side, side); err == nil || !(errors.Is(err, progresslog.ErrRewritten) || errors.Is(err, progresslog.ErrRemoved)) {
		return side, nil, nil
	}
	baseText := map[string]string{}
	for _, e := range progresslog.Parse(base).Entries {
		baseText[e.Title()] = e.Key()
	}
	var changed []string
	seen := map[string]bool{}
	var own strings.Builder
	own.WriteString("# Progress Log\n")
	for _, e := range progresslog.Parse(side).Entries {
		t := e.Title()
		seen[t] = true
		if bt, ok := baseText[t]; ok {
			if bt != e.Key() {
				changed = append(changed, "rewrote "+t)
			}
			continue
		}
		b, err := progresslog.RenderEntry(e, "\n")
		if err != nil {
			return nil, nil, err
		}
		own.WriteString("\n")
		own.Write(b)
	}
	for _, e := range progresslog.Parse(base).Entries {
		if !seen[e.Title()] {
			changed = append(changed, "lacks "+e.Title())
		}
	}
	kept, _, err := progresslog.Union(nil, base, []byte(own.String()))
	return kept, changed, err
}
