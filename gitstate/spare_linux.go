package gitstate

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// A working-tree file itr rewrites (state.json, progress.md, ...) is
// replaced atomically, as before, but without giving up its old inode:
// the new content is written into a spare file of the git dir
// (itr-spare/), which is then exchanged with the file in one
// renameat2(RENAME_EXCHANGE); the spare then holds the old content and
// is written over at the next replacement of that file. Renaming a new
// file over the old one (writeFileAtomic) frees the old file's blocks,
// which on a file system mounted with discard waits for the device
// there and then, and on ext4 makes the kernel write the new file's
// data back at once (auto_da_alloc): about a millisecond of waiting per
// file on the machine of issue #33, two files per checkpoint.
//
// The spare is used only for a regular file of at most spareMax bytes
// (the spare is a second copy of it), only by the holder of an flock on
// the spare (else the caller falls back to writeFileAtomic), and never
// through a symbolic link. A reader that opened the old file keeps the
// old content until the next replacement of the same file writes over
// it; files this small are read whole at once.

// spareMax is the largest file replaced through a spare.
const spareMax = 1 << 20

// spareDir is the folder of spares in the git dir.
const spareDir = "itr-spare"

// replaceBySpare writes data as the file rel (dst on disk) through its
// spare and reports whether it did; false with a nil error means the
// caller must write the file itself (writeFileAtomic).
func (r *Repo) replaceBySpare(rel, dst string, data []byte, fsync bool) (bool, error) {
	if len(data) > spareMax || r.gitDir == "" {
		return false, nil
	}
	fi, err := os.Lstat(dst)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > spareMax {
		return false, nil // a new file frees nothing; leave the others to the rename
	}
	spare := r.sparePath(rel)
	// Made as writeFileAtomic makes its temp file (0666 less the umask);
	// used only while its mode is the file's, so the file keeps the mode
	// a rename would give it.
	f, err := os.OpenFile(spare, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o666)
	if errors.Is(err, os.ErrNotExist) {
		if os.MkdirAll(filepath.Dir(spare), 0o777) != nil {
			return false, nil
		}
		f, err = os.OpenFile(spare, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o666)
	}
	if err != nil {
		return false, nil
	}
	defer f.Close()
	sfi, err := f.Stat()
	if err != nil || !sfi.Mode().IsRegular() || sfi.Mode() != fi.Mode() ||
		unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return false, nil
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return false, nil
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return false, nil
	}
	if fsync {
		if err := f.Sync(); err != nil {
			return false, nil
		}
	}
	for {
		err = unix.Renameat2(unix.AT_FDCWD, spare, unix.AT_FDCWD, dst, unix.RENAME_EXCHANGE)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return false, nil // not supported here (or dst gone): the rename does it
	}
	return true, nil
}

// sparePath is the spare of the working-tree file rel.
func (r *Repo) sparePath(rel string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(rel))
	return filepath.Join(r.gitDir, spareDir, fmt.Sprintf("%s-%016x", path.Base(rel), h.Sum64()))
}

// dropSpare removes the spare of rel, a file itr deletes (an archived
// task's), so spares do not outlive their files.
func (r *Repo) dropSpare(rel string) {
	if r.gitDir != "" {
		_ = os.Remove(r.sparePath(rel))
	}
}
