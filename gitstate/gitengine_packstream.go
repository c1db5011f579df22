package gitstate

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os/exec"
)

// writePackTo writes what encodePack returns to w as it is encoded: the
// pack's compressed objects and its checksum are never held whole, so a
// large blob (a long log) is held once, not also as its compressed copy.
func writePackTo(w io.Writer, format string, objs []packObject) error {
	h := sha1.New()
	if format == "sha256" {
		h = sha256.New()
	}
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 64<<10)
	_, _ = bw.WriteString("PACK") // bufio keeps a write's error for Flush
	_ = binary.Write(bw, binary.BigEndian, uint32(2))
	_ = binary.Write(bw, binary.BigEndian, uint32(len(objs)))
	zw, err := zlib.NewWriterLevel(bw, zlib.BestSpeed)
	if err != nil {
		return err
	}
	for _, o := range objs {
		t, ok := packTypes[o.typ]
		if !ok {
			return fmt.Errorf("pack: unknown object type %q", o.typ)
		}
		size := uint64(len(o.data))
		c := t<<4 | byte(size&0x0f)
		size >>= 4
		for size > 0 {
			_ = bw.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
			size >>= 7
		}
		_ = bw.WriteByte(c)
		zw.Reset(bw)
		for off := 0; off < len(o.data); off += streamChunk {
			if _, err := zw.Write(o.data[off:min(off+streamChunk, len(o.data))]); err != nil {
				return err
			}
		}
		if err := zw.Close(); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err = w.Write(h.Sum(nil))
	return err
}

// packSize is the bytes of the objects a pack holds.
func packSize(objs []packObject) int {
	n := 0
	for _, o := range objs {
		n += len(o.data)
	}
	return n
}

// unpackStreamed is `git unpack-objects -q` fed the pack as writePackTo
// encodes it, through a pipe (writeObjects' way for large objects).
func (g *GitRepo) unpackStreamed(objs []packObject) error {
	args := []string{"unpack-objects", "-q"}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := writePackTo(pw, g.format, objs)
		pw.CloseWithError(err)
		done <- err
	}()
	cmd := exec.Command(g.git, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = g.dir(), g.env, pr
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	err := cmd.Run()
	pr.Close() // a git that stopped early stops the encoder too
	encErr := <-done
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return &GitError{Args: args, Code: ee.ExitCode(), Stderr: stderr.String()}
		}
		return fmt.Errorf("run git %s: %w", args[0], err)
	}
	if encErr != nil {
		return fmt.Errorf("pack: %w", encErr)
	}
	return nil
}
