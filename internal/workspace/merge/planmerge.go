package merge

import (
	"bytes"
	"errors"
	"fmt"
	"path"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
)

// errPlanEdited is a plan both sides changed beyond its checkboxes and
// counts: a person decides.
var errPlanEdited = errors.New("both sides changed the plan itself (not only its checkboxes and counts): resolve it by hand, then run `itr plan`")

// mergePlan merges a plan file (tasks.md, plan.md), whose checkboxes,
// inline Status values (seed 003's "(Status: PENDING, DependsOn: P1)") and
// **Status:**/**Total:** lines are a view of the state that every
// checkpoint rewrites: two clones finishing different units change lines
// next to each other, which git's line merge calls a conflict. The plan's
// own text (units, titles, keys) is merged by whole version: the side that
// changed it wins, and both changing it differently is a conflict. The view
// is then written from the state folded from both sides' logs (as
// state.json's merge folds it); when that cannot be had, each unit's box
// is merged on its own (the side that changed it wins) and the counts are
// taken from the boxes.
func mergePlan(st *store.Store, req Request, base, ours, theirs []byte) ([]byte, error) {
	norm := func(data []byte) []byte {
		out, _ := plan.SyncStatus(data, func(string) state.Status { return state.Pending }, plan.Counts{})
		return out
	}
	bN, oN, tN := norm(base), norm(ours), norm(theirs)
	text := ours
	switch {
	case bytes.Equal(oN, tN), bytes.Equal(tN, bN):
	case bytes.Equal(oN, bN):
		text = theirs
	default:
		return nil, errPlanEdited
	}
	p, err := plan.Parse(req.Path, text)
	if err != nil {
		return nil, fmt.Errorf("the merged plan does not read: %w", err)
	}
	if s := mergedState(st, req, theirs); s != nil {
		out, _ := plan.SyncView(text, p.IDs(), s)
		return out, nil
	}
	box := func(data []byte) map[string]bool {
		m := map[string]bool{}
		if q, err := plan.Parse(req.Path, data); err == nil {
			for _, u := range q.Units {
				m[u.ID] = u.Done
			}
		}
		return m
	}
	bb, ob, tb := box(base), box(ours), box(theirs)
	done := func(id string) bool {
		if ob[id] == bb[id] {
			return tb[id]
		}
		return ob[id]
	}
	counts := plan.Tally(p.IDs(), func(id string) state.Status {
		if done(id) {
			return state.Done
		}
		return state.Pending
	})
	out, _ := plan.Sync(text, done, counts)
	return out, nil
}

// mergedState is the state folded from both sides' logs, as the
// state.json merge builds it, or nil when it cannot be had (a side without
// state.json, theirs not found).
func mergedState(st *store.Store, req Request, theirsPlan []byte) *state.State {
	dir := path.Dir(req.Path)
	stateRel := dir + "/" + store.StateFile
	head, err := st.Repo.Head()
	if err != nil || head.Hash == "" {
		return nil
	}
	theirsAt, err := commitWithBlob(st, req.Heads, req.Path, theirsPlan)
	if err != nil {
		return nil
	}
	ours, err1 := st.ReadAt(head.Hash, stateRel)
	theirs, err2 := st.ReadAt(theirsAt, stateRel)
	if err1 != nil || err2 != nil || ours == nil || theirs == nil {
		return nil
	}
	data, err := mergeState(st, req.Heads, stateRel, ours, theirs)
	if err != nil {
		return nil
	}
	s, err := state.Decode(data)
	if err != nil {
		return nil
	}
	return s
}
