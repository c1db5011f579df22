package index

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/reconcile"
)

// Path is the index's slash path relative to the repository top.
func Path(st *store.Store) string { return st.Root + "/" + File }

// Build returns a row for every task as the repository holds it: each
// active task (its state.json at HEAD), then each archived slug that is
// not active again (its newest archive). A task whose state.json cannot
// be read gets a row that says so.
func Build(st *store.Store) ([]Row, error) {
	slugs, err := st.Slugs()
	if err != nil {
		return nil, err
	}
	var rows []Row
	active := map[string]bool{}
	for _, slug := range slugs {
		t, err := st.LoadLight(slug)
		if errors.Is(err, store.ErrNoTask) {
			continue // on disk only: not committed yet
		}
		active[slug] = true
		switch {
		case err != nil:
			rows = append(rows, unreadable(slug, err))
		case t.State == nil:
			rows = append(rows, unreadable(slug, t.StateErr))
		default:
			rows = append(rows, RowOf(slug, t.State, PlanAt(st, "HEAD", slug, nil), ""))
		}
	}
	archives, err := st.Archives()
	if err != nil {
		return nil, err
	}
	for _, a := range archives {
		if active[a.Slug] {
			continue
		}
		t := &store.Task{Slug: a.Slug, Dir: st.TaskDir(a.Slug)}
		if err := st.ReadTaskAt(t, a.Commit); err != nil {
			rows = append(rows, unreadable(a.Slug, err))
			continue
		}
		if t.State == nil {
			rows = append(rows, unreadable(a.Slug, t.StateErr))
			continue
		}
		s := t.State
		if s.Outcome == nil {
			// Archived before itr had outcomes: its Archived entry says
			// how it ended.
			if o := reconcile.OutcomeOf(s, t.Entries); o != nil {
				s = s.Clone()
				s.Outcome = o
			}
		}
		rows = append(rows, RowOf(a.Slug, s, PlanAt(st, a.Commit, a.Slug, nil), a.Ref))
	}
	return rows, nil
}

func unreadable(slug string, err error) Row {
	return Row{Slug: slug, Name: slug, Mode: "-", Status: "unreadable: " + store.OneLine(err.Error(), 120), Started: "-", Progress: "-", LastActivity: "-", Items: "-", KeyFinding: "-"}
}

// PlanAt is the plan of task slug as a commit holds it: the changes it
// makes (a plan file among them wins), else the plan at rev. nil when
// there is none, it does not read, or it is still the template: the row
// then reads the ledgers alone.
func PlanAt(st *store.Store, rev, slug string, changes []gitstate.FileChange) *plan.Plan {
	for _, name := range []string{store.TasksFile, store.PlanFile} {
		path := st.Rel(slug, name)
		var data []byte
		found := false
		for _, c := range changes {
			if c.Path == path {
				data, found = c.Data, !c.Delete
			}
		}
		if !found && rev != "" {
			b, err := st.Repo.ReadFile(rev, path)
			if err != nil {
				continue
			}
			data, found = b, true
		}
		if !found {
			continue
		}
		p, err := plan.Parse(path, data)
		if err != nil || p.Placeholder() {
			return nil
		}
		return p
	}
	return nil
}

// Update returns the index with the row of slug set to r (taken out when
// r is nil) on top of the index committed at rev; when rev holds none, or
// one itr cannot read, the whole index is built first. changed is false
// when the result is what rev holds.
func Update(st *store.Store, rev, slug string, r *Row) (data []byte, changed bool, err error) {
	var committed []byte
	if rev != "" {
		committed, err = st.Repo.ReadFile(rev, Path(st))
		if err != nil && !errors.Is(err, gitstate.ErrNotFound) {
			return nil, false, err
		}
	}
	rows, perr := Parse(committed)
	if committed == nil || perr != nil {
		if rows, err = Build(st); err != nil {
			return nil, false, fmt.Errorf("build %s: %w", Path(st), err)
		}
	}
	data = Render(Set(rows, slug, r))
	return data, !bytes.Equal(data, committed), nil
}

// Stale compares the index committed at HEAD with a rebuild and returns
// what differs ("" when it is in step): the first row that is missing,
// extra or different.
func Stale(st *store.Store) (string, error) {
	committed, err := st.Repo.ReadFile("HEAD", Path(st))
	if errors.Is(err, gitstate.ErrNotFound) {
		return "it is missing", nil
	}
	if err != nil {
		return "", err
	}
	rows, err := Build(st)
	if err != nil {
		return "", err
	}
	want := Render(rows)
	if bytes.Equal(want, committed) {
		return "", nil
	}
	have, err := Parse(committed)
	if err != nil {
		return err.Error(), nil
	}
	got := map[string]Row{}
	for _, r := range have {
		got[r.Slug] = r
	}
	for _, r := range rows {
		h, ok := got[r.Slug]
		switch {
		case !ok:
			return fmt.Sprintf("task %s has no row", r.Slug), nil
		case h != r:
			return fmt.Sprintf("the row of %s says %q, the task %q", r.Slug, h.Status+", last activity "+h.LastActivity, r.Status+", last activity "+r.LastActivity), nil
		}
		delete(got, r.Slug)
	}
	for s := range got {
		return fmt.Sprintf("task %s has a row but is neither active nor archived", s), nil
	}
	return "its text is not what itr writes", nil
}
