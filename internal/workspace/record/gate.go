package record

import "sync"

// commitGate is held while itr writes a commit (from its first file to
// the branch update and the working tree): a SIGINT or SIGTERM that comes
// meanwhile waits for the commit to land or to fail cleanly, so a stopped
// itr never leaves a half-written task. (A SIGKILL cannot wait: the
// recovery journal repairs after it.)
var commitGate sync.Mutex

// StopBetweenCommits waits until no commit is being written and keeps any
// other from starting; the caller exits next.
func StopBetweenCommits() { commitGate.Lock() }

// Gated runs write, one commit of itr's, holding the gate that a stopping
// itr waits on (see StopBetweenCommits).
func Gated[T any](write func() (T, error)) (T, error) {
	commitGate.Lock()
	defer commitGate.Unlock()
	return write()
}
