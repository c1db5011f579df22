package workspace

import (
	"github.com/itr-dev/itr/internal/workspace/board"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/view"
)

// The board of itr serve (package board).
type (
	// Board is every task of the repository on one board.
	Board = board.Board
	// BoardTask is one active task on the board.
	BoardTask = board.Task
	// BoardArchive is one archived task on the board.
	BoardArchive = board.Archive
	// BoardCheck is a verification run that needs a look, on the board.
	BoardCheck = view.Check
)

// BoardStamp is a digest of what the board is read from: a new one means
// read the board again; see board.Stamp.
func (w *Workspace) BoardStamp() (string, error) { return board.Stamp(w.Store) }

// Board reads the board of every task; see board.Read. It takes its own
// stamp first, so that a change made while it reads gives a new stamp.
func (w *Workspace) Board() (*Board, error) {
	stamp, err := board.Stamp(w.Store)
	if err != nil {
		return nil, err
	}
	return board.Read(w.Store, stamp, w.Now())
}

// ErrNoTask is in the chain of an error about a task that does not exist.
var ErrNoTask = store.ErrNoTask
