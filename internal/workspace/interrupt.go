package workspace

import (
	"sync"
	"sync/atomic"
)

// commitGate is held while itr writes a commit (from its first file to
// the branch update and the working tree): a SIGINT or SIGTERM that comes
// meanwhile waits for the commit to land or to fail cleanly, so a stopped
// itr never leaves a half-written task. (A SIGKILL cannot wait: the
// recovery journal repairs after it.)
var commitGate sync.Mutex

// checking is set while a verification run is going: Ctrl-C then stops
// the command, which the run records, and itr goes on to record it.
var checking atomic.Bool

// StopBetweenCommits waits until no commit is being written and keeps any
// other from starting; the caller exits next.
func StopBetweenCommits() { commitGate.Lock() }

// CheckRunning reports whether a verification run is going now, whose own
// handler takes Ctrl-C.
func CheckRunning() bool { return checking.Load() }
