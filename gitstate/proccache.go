package gitstate

import (
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// procCache is what one command has read of its repository's refs, config
// and small objects, so that each is read once per process: a checkpoint
// used to open its parent commit 11 times, HEAD and the branch 7 times
// each and the config 4 times (issue #33).
//
// It is correct by these rules:
//
//   - Objects are named by their content: a commit or tree read once is
//     the same for the life of the process (kept up to objCacheBudget
//     bytes; larger objects and blobs are not kept).
//   - Files (HEAD, loose refs, packed-refs, shallow, the config files) are
//     kept with their stat data (device, inode, size, modification and
//     change times): each later read stats the file — one system call
//     instead of an open, a read and a close — and reads it again when
//     anything differs, so a change by git or another program is seen
//     as soon as it is made. Git writes these files by renaming a new one
//     into place (a new inode, new times). A file whose modification time
//     is too close to the moment it was read to rule out a second change
//     in the same clock tick (fileRacyWindow, as git's own "racy" index
//     entries) is read again every time.
//   - Taking or releasing any lock file of the repository forgets the file
//     the lock guards, so that the read under a lock — the compare-and-swap
//     of a commit, a ref update, a config edit — always reads it.
//
// A Repo opened by Open or Locate has one; a nil cache caches nothing.
type procCache struct {
	mu       sync.Mutex
	files    map[string]cachedFile // by path
	objs     map[plumbing.Hash]cachedObj
	objBytes int
	written  int64 // bytes of loose objects this process wrote (the maintenance counter)
}

// objCacheBudget is the most bytes of objects a procCache keeps.
const objCacheBudget = 8 << 20

// objCacheLargest is the largest object a procCache keeps.
const objCacheLargest = 1 << 20

// fileRacyWindow is how recent a file's modification time may be, against the
// time it was read, before its stat data cannot tell a later change in
// the same clock tick: Linux file systems keep nanoseconds and tick in
// milliseconds; a time without nanoseconds is a coarse file system's
// (whole seconds, two on FAT).
func fileRacyWindow(mtime time.Time) time.Duration {
	if mtime.Nanosecond() == 0 {
		return 2 * time.Second
	}
	return 100 * time.Millisecond
}

type cachedObj struct {
	t    plumbing.ObjectType
	data []byte
}

// cachedFile is a file's content and what identifies that version of it.
type cachedFile struct {
	data []byte
	err  error // a missing file is remembered too (os.ErrNotExist)
	sig  fileSig
}

// fileSig is the stat data compared before a kept file is used.
type fileSig struct {
	ino, size    uint64
	mtime, ctime int64
	ok           bool // the file existed
}

func newProcCache() *procCache { return &procCache{} }

// readFile is os.ReadFile through the cache: a kept version is used when
// a stat of path says it is still the file's (see procCache).
func (c *procCache) readFile(path string) ([]byte, error) {
	if c == nil {
		data, _, err := readRaw(path)
		return data, err
	}
	c.mu.Lock()
	f, ok := c.files[path]
	c.mu.Unlock()
	if ok {
		fi, err := os.Stat(path)
		switch {
		case err == nil && f.sig.ok && sigOf(fi) == f.sig:
			return f.data, nil
		case os.IsNotExist(err) && !f.sig.ok && os.IsNotExist(f.err):
			return nil, f.err
		}
	}
	data, sig, err := readWithSig(path)
	if err != nil && !os.IsNotExist(err) {
		return data, err
	}
	if sig.ok && sig.mtime > time.Now().UnixNano()-int64(fileRacyWindow(time.Unix(0, sig.mtime))) {
		return data, err // racy: read it again next time
	}
	c.mu.Lock()
	if c.files == nil {
		c.files = map[string]cachedFile{}
	}
	c.files[path] = cachedFile{data: data, err: err, sig: sig}
	c.mu.Unlock()
	return data, err
}

// readWithSig reads a file and the stat data of what it read.
func readWithSig(path string) ([]byte, fileSig, error) { return readRaw(path) }

// readWithSigOS is readWithSig through os.Open (readRaw where it has no
// system calls of its own).
func readWithSigOS(path string) ([]byte, fileSig, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileSig{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileSig{}, err
	}
	if fi.IsDir() {
		// As os.ReadFile on a folder: an error the callers recognise.
		_, err := f.Read(make([]byte, 1))
		return nil, fileSig{}, &os.PathError{Op: "read", Path: path, Err: errorOr(err)}
	}
	data := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, sigOf(fi), nil
		}
		if err != nil {
			return nil, fileSig{}, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

func errorOr(err error) error {
	if err == nil {
		return syscall.EISDIR
	}
	return err
}

// dropFor forgets the file a lock file guards.
func (c *procCache) dropFor(path string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.files, path)
}

// object returns a kept object.
func (c *procCache) object(h plumbing.Hash) (plumbing.ObjectType, []byte, bool) {
	if c == nil {
		return 0, nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.objs[h]
	return o.t, o.data, ok
}

// keepObject keeps a commit or tree that was read and checked against its
// name, within the budget. The caller must not change data afterwards.
func (c *procCache) keepObject(h plumbing.Hash, t plumbing.ObjectType, data []byte) {
	if c == nil || (t != plumbing.CommitObject && t != plumbing.TreeObject) || len(data) > objCacheLargest {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.objBytes+len(data) > objCacheBudget {
		return
	}
	if c.objs == nil {
		c.objs = map[plumbing.Hash]cachedObj{}
	}
	if _, ok := c.objs[h]; !ok {
		c.objs[h] = cachedObj{t, data}
		c.objBytes += len(data)
	}
}

// addWritten counts the bytes of a loose object this process wrote.
func (c *procCache) addWritten(n int64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.written += n
	c.mu.Unlock()
}

// takeWritten returns the bytes counted by addWritten and resets them.
func (c *procCache) takeWritten() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.written
	c.written = 0
	return n
}

// sigOf is the stat data of fi that changes when the file is replaced or
// written: size, modification and change times, and the inode where the
// system has one (the BSDs' and Linux's stat; on Windows the change time is
// the last write).
func sigOf(fi os.FileInfo) fileSig {
	sig := fileSig{size: uint64(fi.Size()), mtime: fi.ModTime().UnixNano(), ok: true}
	if ct, ok := statCtime(fi); ok {
		sig.ctime = ct.UnixNano()
	}
	if ino, ok := openFileID(nil, fi); ok {
		sig.ino = ino
	}
	return sig
}
