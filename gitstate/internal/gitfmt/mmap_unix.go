//go:build unix

package gitfmt

import (
	"io"
	"os"
	"runtime"
	"syscall"
)

// keepPacksOpen says a pack's file stays open for the process: on Unix a
// repack may still remove it (the open file keeps its bytes readable).
const keepPacksOpen = true

// mapIndex maps the whole pack index of p read-only (git writes a new
// index under a new name, never over one); it is unmapped when nothing
// holds p any more. A file that cannot be mapped is read.
func mapIndex(p *pack) ([]byte, error) {
	f, err := os.Open(p.idxPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size <= 0 || size != int64(int(size)) {
		return io.ReadAll(f)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return io.ReadAll(f)
	}
	runtime.AddCleanup(p, func(b []byte) { _ = syscall.Munmap(b) }, data)
	return data, nil
}
