package gitstate

import (
	"errors"
	"os"
	"syscall"
)

// readRaw reads the file path with plain system calls (open, fstat, read,
// close) and returns it with its stat data. os.Open makes each descriptor
// non-blocking and offers it to the network poller, which refuses a
// regular file: five more system calls per file, and a checkpoint reads
// some thirty files (issue #33). Errors are os.ReadFile's (*os.PathError
// wrapping the errno), a folder included.
func readRaw(path string) ([]byte, fileSig, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, fileSig{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, fileSig{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		return nil, fileSig{}, &os.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	}
	// One byte of room to see the end without growing; a file of a
	// megabyte or more (a long progress.md) gets 1/256 of its size, as a
	// large loose object is read, so that the entry a caller appends to it
	// in place (progresslog.AppendOwned) does not copy it whole.
	room := int64(1)
	if st.Size >= 1<<20 {
		room = st.Size / 256
	}
	data := make([]byte, 0, st.Size+room)
	for {
		n, err := syscall.Read(fd, data[len(data):cap(data)])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, fileSig{}, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			break
		}
		data = data[:len(data)+n]
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	return data, fileSig{
		ino: st.Ino, size: uint64(st.Size), ok: true,
		mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec, ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec,
	}, nil
}
