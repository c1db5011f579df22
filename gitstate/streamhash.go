package gitstate

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/itr-dev/itr/gitstate/internal/gitfmt"
)

// streamChunk is how much of a file a streaming hash holds at a time.
const streamChunk = 256 << 10

// WorktreeFileID is the object name a file of the working tree (rel is
// relative to the top, with slashes) has as git would store it, hashed
// while the file is read in chunks: the file is never held whole, so a
// reader can tell a large file unchanged (against the commit's blob id)
// in a small, fixed amount of memory. ok is false when the id cannot be
// told without git's conversion: the repository's attributes may run a
// clean filter, or may convert line endings and the file holds a CR, or r
// is not one of gitstate's engines. The caller then reads the file with
// WorktreeFile and names it with BlobID, as before.
func WorktreeFileID(r Reader, rel string) (id string, ok bool, err error) {
	format, crMatters := "", false
	switch e := r.(type) {
	case *Repo:
		format = "sha1" // the native engine serves unconverted SHA-1 repositories only
	case *GitRepo:
		if e.filters {
			return "", false, nil
		}
		format, crMatters = e.format, e.lineEndings
	default:
		return "", false, nil
	}
	id, sawCR, err := hashFileAsBlob(format, filepath.Join(r.Root(), filepath.FromSlash(rel)))
	if err != nil {
		return "", false, err
	}
	if crMatters && sawCR {
		return "", false, nil
	}
	return id, true, nil
}

// hashFileAsBlob names the file at p as a blob in the given object format
// ("sha1" or "sha256"), reading it in chunks, and says whether it holds a
// carriage return.
func hashFileAsBlob(format, p string) (id string, sawCR bool, err error) {
	f, err := os.Open(p)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false, fmt.Errorf("hash %s: %w", p, err)
	}
	if !fi.Mode().IsRegular() {
		return "", false, fmt.Errorf("hash %s: not a regular file", p)
	}
	var h hash.Hash
	if format == "sha256" {
		h = sha256.New()
	} else {
		h = sha1.New()
	}
	fmt.Fprintf(h, "blob %d\x00", fi.Size())
	buf := make([]byte, streamChunk)
	var n int64
	for {
		k, rerr := f.Read(buf)
		if k > 0 {
			h.Write(buf[:k])
			n += int64(k)
			sawCR = sawCR || bytes.IndexByte(buf[:k], '\r') >= 0
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return "", false, fmt.Errorf("hash %s: %w", p, rerr)
		}
	}
	if n != fi.Size() {
		// The file changed while it was read: its size in the header
		// is not its length; name it as read.
		return "", false, fmt.Errorf("hash %s: the file changed while it was read (%d bytes, then %d)", p, fi.Size(), n)
	}
	return hex.EncodeToString(h.Sum(nil)), sawCR, nil
}

// fileHolds reports whether the file at p holds exactly data, reading it
// in chunks (never whole) and stopping at the first difference.
func fileHolds(p string, data []byte) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, min(streamChunk, len(data)+1))
	off := 0
	for {
		k, rerr := io.ReadFull(f, buf)
		if k > len(data)-off || !bytes.Equal(buf[:k], data[off:off+k]) {
			return false
		}
		off += k
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			return off == len(data)
		}
		if rerr != nil {
			return false
		}
	}
}

// BlobSize is the size of blob id read from the object's header alone,
// without its content (a large blob is neither inflated nor held). ok is
// false when r is not one of gitstate's engines or id is not a blob the
// repository holds: the caller reads the blob instead.
func BlobSize(r Reader, id string) (size int64, ok bool, err error) {
	switch e := r.(type) {
	case *Repo:
		if len(id) != 40 || strings.Trim(id, "0123456789abcdef") != "" {
			return 0, false, nil
		}
		t, n, err := gitfmt.ObjectSize(e.objDir(), gitfmt.ID(plumbing.NewHash(id)))
		if err != nil || t != gitfmt.Blob {
			return 0, false, nil
		}
		return n, true, nil
	case *GitRepo:
		e.mu.Lock()
		defer e.mu.Unlock()
		o, found, err := e.query("info", id)
		if err != nil || !found || o.typ != "blob" {
			return 0, false, err
		}
		return o.size, true, nil
	}
	return 0, false, nil
}
