package store

import (
	"runtime/debug"
	"sync"
)

// largeRead is the size from which a file read makes the collector work
// harder (largeReadGC).
const largeRead = 16 << 20

// largeReadGC is the collector's target (GOGC) once a process holds a
// large file: the heap may then grow to 1.1 times what is live before a
// collection instead of twice, so that a command's peak stays within
// twice the largest file it reads (issue #33; at 25 a 100 MiB log's status
// peaked at 1.8 times it, at 10 at 1.65, for the same processor time). It
// costs collections only in the processes that read such a file; most of
// what they hold then is the file's bytes, which a collection need not
// scan.
const largeReadGC = 10

var gcTuned sync.Once

// noteRead is told the size of every file of a task the store reads.
func noteRead(n int) {
	if n >= largeRead {
		gcTuned.Do(func() {
			if old := debug.SetGCPercent(largeReadGC); old >= 0 && old < largeReadGC {
				debug.SetGCPercent(old) // the user asked for less (GOGC)
			}
		})
	}
}
