package gitstate

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/itr-dev/itr/internal/atomicfile"
)

// The native engine's maintenance check reads a counter instead of listing
// the 17 folders of objects/ after every commit (issue #33).
//
// The counter is itr's file objects-counter in the common git directory,
// one line: the counts of the last full listing (countObjects), the loose
// bytes itr wrote since, how many checks have used it, the times of
// objects/17 and objects/pack when it was written, and when that was.
// It stays honest by these rules:
//
//   - objects/17 (git's own sample for gc --auto) is stat'ed at every check
//     and listed again when its time differs from the counter's, or when
//     that time was too close to the counter's writing to be trusted (a
//     change within the file system's clock tick): git's rule is judged on
//     an exact count whenever anyone, git included, added or removed an
//     object there.
//   - The room loose objects take (itr's own rule) is the last listing's
//     estimate plus the bytes of the loose objects this process wrote
//     (rounded up to 4 KiB blocks). Loose objects another program writes
//     elsewhere than objects/17 are seen at the next full listing.
//   - The whole objects folder is listed again when the counter is missing
//     or unreadable, every recountEvery checks, when objects/pack changed
//     (a gc, repack or fetch adds or removes packs, and a repack removes
//     loose objects), and when the counter is older than recountAfter.
//
// itr's repository lock is held around a commit and its maintenance
// check, so no two itr processes write the counter at once; a torn file
// reads as unreadable and is recounted.
const (
	objectCounter = "itr-objects"
	recountEvery  = 32
	recountAfter  = time.Hour
	// racyWindow: a folder time this close to the counter's own time may
	// hide a later change within the same clock tick.
	racyWindow = time.Second
)

// counterState is the counter's content.
type counterState struct {
	objectCounts
	checks    int
	mtime17   int64 // objects/17's time in ns (0: none)
	mtimePack int64 // objects/pack's time in ns (0: none)
	at        int64 // when the counter was written, in ns
}

func readCounter(path string) (counterState, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return counterState{}, false
	}
	var s counterState
	var tail string
	n, _ := fmt.Sscanf(string(data), "v1 %d %d %d %d %d %d %d %d%s",
		&s.in17, &s.looseBytes, &s.packs, &s.packBytes, &s.checks, &s.mtime17, &s.mtimePack, &s.at, &tail)
	if n != 8 || s.in17 < 0 || s.looseBytes < 0 || s.packs < 0 || s.packBytes < 0 || s.checks < 0 {
		return counterState{}, false
	}
	return s, true
}

func (s counterState) String() string {
	return fmt.Sprintf("v1 %d %d %d %d %d %d %d %d\n", s.in17, s.looseBytes, s.packs, s.packBytes, s.checks, s.mtime17, s.mtimePack, s.at)
}

// folderTime is a folder's modification time in ns, 0 when it is absent.
func folderTime(dir string) int64 {
	fi, err := os.Stat(dir)
	if err != nil {
		return 0
	}
	return fi.ModTime().UnixNano()
}

// racy reports whether a folder time m cannot be trusted against a
// counter written at at.
func racy(m, at int64) bool { return m != 0 && m > at-int64(racyWindow) }

// countedObjects is countObjects through the counter (see above): it
// returns the counts maintenanceDue weighs and writes the counter back.
// The most loose objects of objects/17 that matter is not needed: the
// counter holds their whole count.
func (r *Repo) countedObjects(objects string, now time.Time) objectCounts {
	path := r.ItrPath(objectCounter)
	st, ok := readCounter(path)
	m17 := folderTime(filepath.Join(objects, "17"))
	mPack := folderTime(filepath.Join(objects, "pack"))
	written := r.cache.takeWritten()
	at := now.UnixNano()
	full := !ok || st.checks+1 >= recountEvery || mPack != st.mtimePack || racy(st.mtimePack, st.at) ||
		at-st.at > int64(recountAfter) || at < st.at
	if full {
		// Count objects/17 whole (not only up to most), so that the count
		// stays right if gc.auto is raised before the next listing.
		st = counterState{objectCounts: countObjects(objects, 40, 1<<40)}
	} else {
		st.looseBytes += written
		st.checks++
		if m17 != st.mtime17 || racy(st.mtime17, st.at) {
			n, _ := looseIn(filepath.Join(objects, "17"), 38, 1<<40)
			st.in17 = int64(n)
		}
	}
	st.mtime17, st.mtimePack, st.at = m17, mPack, at
	_ = atomicfile.Overwrite(path, []byte(st.String()), os.O_CREATE)
	return st.objectCounts
}

// blockRound is the room a file of n bytes takes in 4 KiB blocks.
func blockRound(n int) int64 { return (int64(n) + 4095) &^ 4095 }
