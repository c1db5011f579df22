package record

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/index"
	"github.com/itr-dev/itr/internal/workspace/merge"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/state"
)

// indexChanges are the changes that keep INDEX.md in step with a commit
// that leaves the task slug as s (archived in the tag archive, when set):
// the index with the task's row rewritten on top of the one committed at
// rev, and the merge attribute that lets the merge driver join it. None
// unless .itr.yaml says `index: true`; none already in have are added.
func (w *writer) indexChanges(rev, slug string, s *state.State, archive string, have []gitstate.FileChange) ([]gitstate.FileChange, error) {
	if !w.Config.Index || s == nil {
		return nil, nil
	}
	row := index.RowOf(slug, s, index.PlanAt(w.Store, rev, slug, have), archive)
	data, changed, err := index.Update(w.Store, rev, slug, &row)
	if err != nil {
		return nil, err
	}
	var out []gitstate.FileChange
	if changed {
		out = append(out, gitstate.FileChange{Path: index.Path(w.Store), Data: data})
	}
	attrsPath := w.Root + "/.gitattributes"
	for _, c := range have {
		if c.Path == attrsPath {
			return out, nil
		}
	}
	if attrs, changed, err := merge.Attributes(w.Store); err != nil {
		return nil, err
	} else if changed {
		out = append(out, gitstate.FileChange{Path: attrsPath, Data: attrs})
	}
	return out, nil
}

// IndexReport says what itr list --write-index did. Its JSON field names
// are part of itr's interface.
type IndexReport struct {
	Path   string `json:"path"`
	Rows   int    `json:"rows"`
	Commit string `json:"commit,omitempty"` // "" when the index was in step already
}

// WriteIndex rebuilds INDEX.md from every task, active and archived, and
// commits it (with the merge attribute for it) when it differs from HEAD's.
// It is refused unless .itr.yaml says `index: true`: an index nothing
// keeps in step would be wrong after the next change.
func (w *writer) WriteIndex() (*IndexReport, error) {
	if !w.Config.Index {
		return nil, fmt.Errorf("%s is not kept: add `index: true` to %s (then every itr commit keeps it in step), and run this again", index.Path(w.Store), store.ConfigFile)
	}
	unlock, err := w.lockIdle()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return RetryMoved(func() (*IndexReport, error) {
		head, err := w.Repo.Head()
		if err != nil {
			return nil, err
		}
		rows, err := index.Build(w.Store)
		if err != nil {
			return nil, err
		}
		rep := &IndexReport{Path: index.Path(w.Store), Rows: len(rows)}
		data := index.Render(rows)
		var changes []gitstate.FileChange
		var committed []byte
		if !head.Unborn {
			if committed, err = w.Repo.ReadFile(head.Hash, rep.Path); err != nil && !errors.Is(err, gitstate.ErrNotFound) {
				return nil, err
			}
		}
		disk, _ := w.ReadWorktree(rep.Path)
		if !bytes.Equal(committed, data) || !bytes.Equal(disk, data) {
			changes = append(changes, gitstate.FileChange{Path: rep.Path, Data: data})
		}
		if attrs, changed, err := merge.Attributes(w.Store); err != nil {
			return nil, err
		} else if changed {
			changes = append(changes, gitstate.FileChange{Path: w.Root + "/.gitattributes", Data: attrs})
		}
		if len(changes) == 0 {
			return rep, nil
		}
		msg := fmt.Sprintf("itr: rewrite %s (%d task%s)\n\n%s", rep.Path, len(rows), store.Plural(len(rows), "", "s"),
			gitstate.FormatTrailers([]gitstate.Trailer{{Key: store.TrailerEvent, Value: store.EventIndex}}))
		expect := head.Hash
		commitGate.Lock()
		c, err := w.Repo.CommitFiles(gitstate.CommitRequest{Changes: changes, Message: msg, When: w.Now(),
			Expect: expect, Worktree: true, Author: w.identity(), Guard: []string{w.Root}})
		commitGate.Unlock()
		if err != nil {
			return nil, err
		}
		if err := merge.Register(w.Store); err != nil {
			return nil, fmt.Errorf("%s is written (%s), but registering itr's merge driver failed: %w; run `itr setup`", rep.Path, store.Short(c.Hash), err)
		}
		rep.Commit = c.Hash
		return rep, nil
	})
}
