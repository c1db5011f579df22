// Package board is the read model of `itr serve`: every task of the
// repository on one board (its units by status, who holds what, the checks
// that need a look, its pace and the advisor's next action), and the stamp
// that says when any of it may have changed. It writes nothing.
package board

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/view"
	"github.com/itr-dev/itr/state"
)

// Board is every task of the repository as one board.
type Board struct {
	// Repo is the repository's folder name, Root the task root.
	Repo string `json:"repo"`
	Root string `json:"root"`
	// Stamp is the stamp (see Stamp) the board was read at.
	Stamp string `json:"stamp"`
	// Read is when the board was read (RFC 3339).
	Read string `json:"read"`
	// Tasks are the active tasks, by slug; Archived the archived ones.
	Tasks    []Task    `json:"tasks"`
	Archived []Archive `json:"archived"`
}

// Task is one active task on the board.
type Task struct {
	Slug    string `json:"slug"`
	Name    string `json:"name"`
	Mode    string `json:"mode,omitempty"`
	Phase   string `json:"phase,omitempty"`
	Done    int    `json:"done"`
	Total   int    `json:"total"`
	Percent int    `json:"percent"`
	// Columns are the units by status, in the lifecycle's order; a
	// status no unit has gets no column.
	Columns []Column `json:"columns"`
	// Claims are who holds what (itr claim); Checks the verification runs
	// that need a look; Pace where the work stands over time.
	Claims []store.Claim `json:"claims"`
	Checks []view.Check  `json:"checks"`
	Pace   view.Pace     `json:"pace"`
	// Next is the advisor's next action in words; Actions the moves the
	// rule book accepts now, as command lines (the first few); Hold why
	// no work can be recorded and what clears it.
	Next    string        `json:"next"`
	Actions []view.Action `json:"actions"`
	Hold    *view.Hold    `json:"hold,omitempty"`
	// LastCheckpoint is when the newest entry was recorded, SinceLast how
	// long ago.
	LastCheckpoint string   `json:"last_checkpoint,omitempty"`
	SinceLast      string   `json:"since_last,omitempty"`
	Warnings       []string `json:"warnings"`
	// Error is why the task could not be read ("" when it could): the
	// board shows the others.
	Error string `json:"error,omitempty"`
}

// Column is the units of one status.
type Column struct {
	Status string `json:"status"`
	Units  []Unit `json:"units"`
}

// Unit is one unit's card.
type Unit struct {
	ID         string `json:"id"`
	Title      string `json:"title,omitempty"`
	Iterations int    `json:"iterations"`
	Max        int    `json:"max_iterations,omitempty"`
	// Holder is the agent whose claim holds the unit; Agent who recorded
	// its newest iteration.
	Holder string `json:"holder,omitempty"`
	Agent  string `json:"agent,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Archive is one archived task, as itr list shows it.
type Archive struct {
	Slug    string `json:"slug"`
	Name    string `json:"name"`
	Done    int    `json:"done"`
	Total   int    `json:"total"`
	Ref     string `json:"ref"`
	Outcome string `json:"outcome,omitempty"`
	State   string `json:"state"`
}

// MaxActions is how many of the advisor's moves a task's card shows.
const MaxActions = 3

// Read reads the board: every task under the root, each as itr status
// reads it, as of now; a task that cannot be read is on the board with
// its error. stamp is the Stamp taken before the read.
func Read(st *store.Store, stamp string, now time.Time) (*Board, error) {
	b := &Board{Repo: filepath.Base(st.Repo.Root()), Root: st.Root, Stamp: stamp, Read: now.UTC().Format(time.RFC3339),
		Tasks: []Task{}, Archived: []Archive{}}
	// Each active task is read once, by status (not first by list too).
	slugs, err := st.Slugs()
	if err != nil {
		return nil, err
	}
	for _, slug := range slugs {
		b.Tasks = append(b.Tasks, readTask(st, slug))
	}
	archived, err := view.ArchivedRows(st)
	if err != nil {
		return nil, err
	}
	for _, r := range archived {
		a := Archive{Slug: r.Slug, Name: r.Task, Done: r.Done, Total: r.Total, Ref: r.Archive, State: r.State}
		if r.Outcome != nil {
			a.Outcome = r.Outcome.Text()
		}
		b.Archived = append(b.Archived, a)
	}
	return b, nil
}

// readTask is one active task's card; its error, when status cannot read it.
func readTask(st *store.Store, slug string) Task {
	t := Task{Slug: slug, Name: slug,
		Columns: []Column{}, Claims: []store.Claim{}, Checks: []view.Check{}, Actions: []view.Action{}, Warnings: []string{}}
	sum, err := view.Status(st, slug)
	if err != nil {
		t.Error = err.Error()
		return t
	}
	t.Name, t.Mode, t.Phase, t.Done, t.Total = sum.Task, sum.Mode, sum.Phase, sum.Done, sum.Total
	t.Percent = sum.Pace.PercentUnits
	t.Pace, t.Next, t.Hold = sum.Pace, sum.NextAction, sum.Hold
	t.LastCheckpoint, t.SinceLast = sum.LastCheckpoint, sum.SinceLast
	if sum.Checks != nil {
		t.Checks = sum.Checks
	}
	if sum.Warnings != nil {
		t.Warnings = sum.Warnings
	}
	holder := map[string]string{}
	for _, c := range sum.Claims {
		if c.Finished == "" {
			t.Claims = append(t.Claims, c)
			holder[c.Unit] = c.Agent
		}
	}
	t.Actions = append(t.Actions, sum.Actions[:min(len(sum.Actions), MaxActions)]...)
	t.Columns = columns(sum.Units, holder)
	return t
}

// columns groups units by status in the lifecycle's order, each in plan
// order.
func columns(units []view.UnitStatus, holder map[string]string) []Column {
	by := map[string][]Unit{}
	for _, u := range units {
		by[u.Status] = append(by[u.Status], Unit{ID: u.ID, Title: u.Title, Iterations: u.Iterations, Max: u.Max,
			Holder: holder[u.ID], Agent: u.Agent, Reason: u.Reason})
	}
	out := []Column{}
	for _, s := range state.Statuses {
		if us := by[string(s)]; len(us) > 0 {
			out = append(out, Column{Status: string(s), Units: us})
			delete(by, string(s))
		}
	}
	// A status the lifecycle does not name (a hand-edited state.json)
	// still shows, after the others.
	var rest []string
	for s := range by {
		rest = append(rest, s)
	}
	sort.Strings(rest)
	for _, s := range rest {
		out = append(out, Column{Status: s, Units: by[s]})
	}
	return out
}

// Stamp is a digest of what the board is read from, cheap enough to take
// every quarter of a second: HEAD (its branch and commit), the git
// operation in progress, every reference (branches, tags, remote-tracking
// branches after a fetch or itr sync, itr's claims and archives), and the
// name, size and modification time of every file in the task folders of
// the working tree (a hand edit, a file itr has not committed yet). Two
// equal stamps mean nothing the board shows has changed, but for the
// clock (how long ago, leases): a changed stamp means read the board again.
func Stamp(st *store.Store) (string, error) {
	h := sha256.New()
	head, err := st.Repo.Head()
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	fmt.Fprintf(h, "HEAD %s %s\nop %s\n", head.Branch, head.Hash, st.Repo.Operation())
	refs, err := st.Repo.RawRefs("refs/")
	if err != nil {
		return "", fmt.Errorf("read the references: %w", err)
	}
	for _, name := range gitstate.RefNames(refs) {
		fmt.Fprintf(h, "ref %s %s\n", name, refs[name])
	}
	root := st.Abs(st.Root)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, p)
		// The task folders and their files; deeper folders (sources,
		// outputs) count by their own times only.
		if d.IsDir() && rel != "." && strings.Count(filepath.ToSlash(rel), "/") >= 1 {
			fi, err := d.Info()
			if err == nil {
				fmt.Fprintf(h, "dir %s %d\n", filepath.ToSlash(rel), fi.ModTime().UnixNano())
			}
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return nil // gone while we looked: the next stamp sees it
		}
		fmt.Fprintf(h, "%s %s %d %d\n", fi.Mode().Type(), filepath.ToSlash(rel), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read the task root %s: %w", st.Root, err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
