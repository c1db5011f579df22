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
