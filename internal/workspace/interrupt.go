package workspace

import (
	"sync/atomic"

	"github.com/itr-dev/itr/internal/workspace/record"
)

// checking is set while a verification run is going: Ctrl-C then stops
// the command, which the run records, and itr goes on to record it.
var checking atomic.Bool

// StopBetweenCommits waits until no commit is being written and keeps any
// other from starting; the caller exits next. See record.StopBetweenCommits.
func StopBetweenCommits() { record.StopBetweenCommits() }

// CheckRunning reports whether a verification run is going now, whose own
// handler takes Ctrl-C.
func CheckRunning() bool { return checking.Load() }
