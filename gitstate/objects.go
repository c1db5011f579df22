package gitstate

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// looseWriter writes loose objects the way git does (zlib, a temp file in
// the object's folder, fsync, rename) and syncs the folders once at the end,
// so that the objects are durable before a ref points at them.
type looseWriter struct {
	objDir string
	fsync  bool            // fsync each object and its folder (core.fsync)
	dirs   map[string]bool // folders that got a new entry
	zbuf   bytes.Buffer
	zw     *zlib.Writer
	idx    []*os.File // open pack indexes, for inPack
	cache  *procCache // counts the bytes written (the maintenance counter)
}

func newLooseWriter(commonDir string, fsync bool) *looseWriter {
	return &looseWriter{objDir: filepath.Join(commonDir, "objects"), dirs: map[string]bool{}, fsync: fsync}
}

// newLooseWriter is a looseWriter of r's objects that counts what it
// writes for the maintenance counter.
func (r *Repo) newLooseWriter() *looseWriter {
	w := newLooseWriter(r.commonDir, r.dur.objects)
	w.cache = r.cache
	return w
}

// put stores an object of type t unless it is already in the repository
// (loose or in a pack) and returns its hash.
func (w *looseWriter) put(t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	h := hashObject(t, data)
	hex := h.String()
	dir := filepath.Join(w.objDir, hex[:2])
	dst := filepath.Join(dir, hex[2:])
	// An object that is already there is "freshened" (its file's time
	// set to now), as git does, so that a git gc running meanwhile does not
	// prune it as old and unreachable before the new commit reaches it.
	if _, err := os.Lstat(dst); err == nil {
		now := time.Now()
		_ = os.Chtimes(dst, now, now)
		return h, nil
	}
	if pack, ok := w.inPack(h); ok {
		now := time.Now()
		_ = os.Chtimes(pack, now, now)
		return h, nil
	}
	if len(data) >= largeObject {
		return h, w.putStreamed(t, h, data)
	}
	w.zbuf.Reset()
	if w.zw == nil {
		// Loose objects at zlib's fastest level, as git writes them
		// (core.looseCompression defaults to 1).
		w.zw, _ = zlib.NewWriterLevel(&w.zbuf, zlib.BestSpeed)
	} else {
		w.zw.Reset(&w.zbuf)
	}
	hdr := t.String() + " " + strconv.Itoa(len(data)) + "\x00"
	_, _ = w.zw.Write([]byte(hdr))
	_, _ = w.zw.Write(data)
	if err := w.zw.Close(); err != nil {
		return h, fmt.Errorf("compress %s object %s: %w", t, hex, err)
	}
	// The object's folder is made only when the temp file cannot be
	// created for want of it (no stat of it before every object). git
	// prune removes empty object folders: one made here can be gone before
	// the temp file is created in it. Make it again and retry, as git does.
	for try := 1; ; try++ {
		err := writeSynced(dir, "tmp_obj_", dst, w.zbuf.Bytes(), 0o444, w.fsync)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || try > 5 {
			return h, fmt.Errorf("write %s object %s: %w", t, hex, err)
		}
		if err := os.Mkdir(dir, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			if err := os.MkdirAll(dir, 0o777); err != nil {
				return h, fmt.Errorf("write %s object: %w", t, err)
			}
		}
		step("mkdir " + dir)
	}
	w.dirs[dir] = true
	w.cache.addWritten(blockRound(w.zbuf.Len()))
	return h, nil
}

// sync fsyncs the folders that got new objects.
func (w *looseWriter) sync() {
	w.closeIndexes()
	if !w.fsync {
		clear(w.dirs)
		return
	}
	var wg sync.WaitGroup
	for d := range w.dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if f, err := os.Open(d); err == nil {
				_ = f.Sync()
				_ = f.Close()
			}
		}()
	}
	wg.Wait()
	clear(w.dirs)
}

// inPack reports whether h is listed in a version-2 pack index, and the
// path of that pack. It is only an optimisation: an object it misses is
// written loose again, which git accepts.
func (w *looseWriter) inPack(h plumbing.Hash) (string, bool) {
	if w.idx == nil {
		// List and open the pack indexes once per writer.
		w.idx = []*os.File{}
		packDir := filepath.Join(w.objDir, "pack")
		ents, _ := os.ReadDir(packDir)
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".idx") {
				continue
			}
			f, err := os.Open(filepath.Join(packDir, e.Name()))
			if err != nil {
				continue
			}
			var head [8]byte
			if _, err := f.ReadAt(head[:], 0); err != nil || string(head[:4]) != "\xfftOc" || binary.BigEndian.Uint32(head[4:]) != 2 {
				f.Close()
				continue
			}
			w.idx = append(w.idx, f)
		}
	}
	for _, f := range w.idx {
		if _, ok := idxPosition(f, h); ok {
			return strings.TrimSuffix(f.Name(), ".idx") + ".pack", true
		}
	}
	return "", false
}

// closeIndexes closes the pack indexes inPack opened.
func (w *looseWriter) closeIndexes() {
	for _, f := range w.idx {
		f.Close()
	}
	w.idx = nil
}

// writeSynced writes data to a new temp file in dir (named prefix plus a
// unique suffix), fsyncs it (when fsync is set) and renames it to dst.
func writeSynced(dir, prefix, dst string, data []byte, mode os.FileMode, fsync bool) error {
	f, err := os.CreateTemp(dir, prefix)
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil && fsync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = renameFile(tmp, dst)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
