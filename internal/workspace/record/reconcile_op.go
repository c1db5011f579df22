package record

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/index"
	"github.com/itr-dev/itr/internal/workspace/merge"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// reconcileOperation resolves a task's files in the middle of a merge,
// rebase, cherry-pick or revert: it reads base, ours and theirs from the
// index, writes the union of both logs and the state folded from it,
// stages them, and leaves `git commit` (or `--continue`) to conclude the
// operation. It never concludes anything itself.
func (w *writer) reconcileOperation(slug, op string, opts ReconcileOptions) (*ReconcileReport, error) {
	rep := &ReconcileReport{Slug: slug, Operation: op, Discrepancies: []reconcile.Discrepancy{}, Problems: []string{}, Saved: []string{}, Staged: []string{}}
	dir := w.TaskDir(slug)
	all, err := w.Repo.Staged("")
	if err != nil {
		return nil, err
	}
	o := &opResolve{w: w, slug: slug, dir: dir, opts: opts, rep: rep, stages: map[string][4]string{}}
	for _, e := range all {
		s := o.stages[e.Path]
		s[e.Stage] = e.Hash
		o.stages[e.Path] = s
	}
	progressRel, stateRel, guardRel := dir+"/"+store.ProgressFile, dir+"/"+store.StateFile, dir+"/"+store.GuardrailsFile

	// The log.
	logBytes, err := o.mergeLog(progressRel)
	if err != nil {
		return nil, err
	}
	if err := o.join(guardRel, func(v [4][]byte) ([]byte, error) {
		ours, theirs := v[2], v[3]
		return progresslog.UnionGuardrails(ours, theirs)
	}); err != nil {
		return nil, err
	}
	if err := o.join(dir+"/"+store.DecisionsFile, func(v [4][]byte) ([]byte, error) {
		return progresslog.UnionDecisions(v[2], v[3])
	}); err != nil {
		return nil, err
	}

	// The state, folded from the merged log; what no event knows comes
	// from ours (or theirs).
	if err := o.mergeState(stateRel, logBytes); err != nil {
		return nil, err
	}
	// INDEX.md, derived from every task, is joined row by row (what the
	// merge driver does when git runs it).
	indexRel := index.Path(w.Store)
	if err := o.join(indexRel, func(v [4][]byte) ([]byte, error) {
		joined, err := index.Merge(v[1], v[2], v[3])
		if err != nil {
			return nil, fmt.Errorf("%s: %w; resolve it by hand, or take either side and run `itr list --write-index` after the merge", indexRel, err)
		}
		return joined, nil
	}); err != nil {
		return nil, err
	}
	for _, c := range o.changes {
		rep.Staged = append(rep.Staged, c.Path)
	}
	rep.Unresolved = o.unresolved(indexRel)
	if opts.Check || opts.DryRun || len(o.changes) == 0 {
		if !opts.DryRun {
			rep.Diff = ""
		}
		return rep, nil
	}
	if err := w.Repo.Stage(o.changes); err != nil {
		return nil, err
	}
	return rep, nil
}

// opResolve is the resolution of a task's files inside a git operation:
// the index stages of every path (base 1, ours 2, theirs 3 when
// conflicted) and the changes to stage.
type opResolve struct {
	w       *writer
	slug    string
	dir     string
	opts    ReconcileOptions
	rep     *ReconcileReport
	stages  map[string][4]string
	changes []gitstate.FileChange
}

// conflicted reports whether the path rel is unmerged.
func (o *opResolve) conflicted(rel string) bool {
	s := o.stages[rel]
	return s[1] != "" || s[2] != "" || s[3] != ""
}

// versions reads base, ours and theirs of a conflicted path.
func (o *opResolve) versions(rel string) (v [4][]byte, err error) {
	for stage := 1; stage <= 3; stage++ {
		if h := o.stages[rel][stage]; h != "" {
			if v[stage], err = o.w.Repo.ReadBlob(h); err != nil {
				return v, err
			}
		}
	}
	return v, nil
}

// join resolves the path rel when it is conflicted: join makes its
// content from base, ours and theirs, and it is staged.
func (o *opResolve) join(rel string, join func(v [4][]byte) ([]byte, error)) error {
	if !o.conflicted(rel) {
		return nil
	}
	v, err := o.versions(rel)
	if err != nil {
		return err
	}
	data, err := join(v)
	if err != nil {
		return err
	}
	o.changes = append(o.changes, gitstate.FileChange{Path: rel, Data: data})
	return nil
}

// mergeLog returns the task's log: the union of both sides when it is
// conflicted (staged), else the one in the working tree.
func (o *opResolve) mergeLog(progressRel string) ([]byte, error) {
	if !o.conflicted(progressRel) {
		logBytes, err := o.w.ReadWorktree(progressRel)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return logBytes, nil
	}
	v, err := o.versions(progressRel)
	if err != nil {
		return nil, err
	}
	base, ours, theirs := v[1], v[2], v[3]
	// A side that rewrote or lacks entries of the base does not win
	// over what was committed: the base's text is kept, the side's
	// own new entries follow, and its version is saved.
	for i, side := range []*[]byte{&ours, &theirs} {
		if err := o.keepCommittedSide(progressRel, [2]string{"ours", "theirs"}[i], base, side); err != nil {
			return nil, err
		}
	}
	logBytes, added, err := progresslog.Union(base, ours, theirs)
	if err != nil {
		return nil, err
	}
	o.rep.Adopted = added
	o.changes = append(o.changes, gitstate.FileChange{Path: progressRel, Data: logBytes})
	return logBytes, nil
}

// keepCommittedSide replaces the side name of the log with the base's
// text and the side's own new entries when it rewrote or lacks entries
// of the base, saving its version (when writing) and reporting it.
func (o *opResolve) keepCommittedSide(progressRel, name string, base []byte, side *[]byte) error {
	kept, changed, err := keepCommitted(base, *side)
	if err != nil {
		return err
	}
	if len(changed) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s: %s rewrote or lacks committed entries (%s); the committed text is kept", progressRel, name, strings.Join(store.FirstN(changed, 3), "; "))
	if !o.opts.Check && !o.opts.DryRun {
		saved, err := o.w.save(o.slug, name+"-"+store.ProgressFile, *side)
		if err != nil {
			return err
		}
		o.rep.Saved = append(o.rep.Saved, saved)
		msg += ", " + name + "'s version saved in " + saved
	}
	o.rep.Problems = append(o.rep.Problems, msg)
	*side = kept
	return nil
}

// mergeState folds the merged log into state.json (what no event knows
// comes from ours, or theirs), staged when it is conflicted or differs
// from the working tree's, with the discrepancies and the diff reported.
func (o *opResolve) mergeState(stateRel string, logBytes []byte) error {
	var ours, theirs []byte
	var err error
	if o.conflicted(stateRel) {
		v, err := o.versions(stateRel)
		if err != nil {
			return err
		}
		ours, theirs = v[2], v[3]
	} else if ours, err = o.w.ReadWorktree(stateRel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	merged, err := merge.FoldMerged(o.w.Store, o.slug, ours, theirs, logBytes, o.dir)
	if err != nil {
		return err
	}
	disk, _ := o.w.ReadWorktree(stateRel)
	if o.conflicted(stateRel) || !bytes.Equal(disk, merged) {
		o.changes = append(o.changes, gitstate.FileChange{Path: stateRel, Data: merged})
		if recorded, err := state.Decode(disk); err == nil {
			derived, _ := state.Decode(merged)
			o.rep.Discrepancies = reconcile.Diff(recorded, derived, nil)
		}
		o.rep.Diff = progresslog.LineDiff(string(disk), string(merged))
	}
	return nil
}

// unresolved lists, sorted, the conflicted paths outside the task's
// folder and INDEX.md, which the user still has to resolve.
func (o *opResolve) unresolved(indexRel string) []string {
	var others []string
	for p := range o.stages {
		if o.conflicted(p) && path.Dir(p) != o.dir && p != indexRel {
			others = append(others, p)
		}
	}
	sort.Strings(others)
	return others
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
