package gitstate

import (
	"bufio"
	"compress/zlib"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// largeObject is the size from which a loose object is compressed
// straight into its temporary file (writeLooseStreamed) rather than into
// a buffer first: a large log's compressed copy is never held whole.
const largeObject = 1 << 20

// writeLooseStreamed writes the loose object of type t holding data to
// dst as writeSynced would (a temporary file in dir, made read-only,
// fsynced when asked, renamed into place), compressing it at zlib's
// fastest level (as git's core.looseCompression defaults to) through a
// small buffer into the file. It returns the compressed size.
func writeLooseStreamed(dir, dst string, t plumbing.ObjectType, data []byte, fsync bool) (int64, error) {
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return 0, err
	}
	tmp := f.Name()
	bw := bufio.NewWriterSize(f, 64<<10)
	zw, _ := zlib.NewWriterLevel(bw, zlib.BestSpeed)
	_, err = zw.Write([]byte(t.String() + " " + strconv.Itoa(len(data)) + "\x00"))
	for off := 0; err == nil && off < len(data); off += streamChunk {
		_, err = zw.Write(data[off:min(off+streamChunk, len(data))])
	}
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	var size int64
	if err == nil {
		var fi os.FileInfo
		if fi, err = f.Stat(); err == nil {
			size = fi.Size()
		}
	}
	if err == nil && fsync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o444)
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return size, err
}

// putStreamed is put's write of a large object (writeLooseStreamed),
// with the same retry when git prune removed the object folder meanwhile.
func (w *looseWriter) putStreamed(t plumbing.ObjectType, h plumbing.Hash, data []byte) error {
	hex := h.String()
	dir := filepath.Join(w.objDir, hex[:2])
	dst := filepath.Join(dir, hex[2:])
	var size int64
	for try := 1; ; try++ {
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return fmt.Errorf("write %s object: %w", t, err)
		}
		step("mkdir " + dir)
		var err error
		if size, err = writeLooseStreamed(dir, dst, t, data, w.fsync); err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || try >= 5 {
			return fmt.Errorf("write %s object %s: %w", t, hex, err)
		}
	}
	w.dirs[dir] = true
	w.cache.addWritten(blockRound(int(size)))
	return nil
}
