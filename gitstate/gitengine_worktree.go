package gitstate

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// hashPaths is one `git hash-object -w --stdin-paths`: it answers each path
// of the working tree with the name of the blob git stores for it (after
// the attributes, line endings and clean filters of that path), as soon as
// the path is sent.
type hashPaths struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	err bytes.Buffer
}

func (h *hashPaths) close() error {
	h.in.Close()
	return h.cmd.Wait()
}

// storedID names the blob git would store for the working tree file rel.
// The caller holds g.mu.
func (g *GitRepo) storedID(rel string) (string, error) {
	if strings.ContainsAny(rel, "\n\x00") {
		return "", fmt.Errorf("read %q: a path with a newline cannot be named to git", rel)
	}
	if g.hasher == nil {
		h := &hashPaths{}
		h.cmd = exec.Command(g.git, "hash-object", "-w", "--stdin-paths")
		h.cmd.Dir = g.dir()
		h.cmd.Env = g.env
		h.cmd.Stderr = &h.err
		w, err := h.cmd.StdinPipe()
		if err != nil {
			return "", fmt.Errorf("start git hash-object: %w", err)
		}
		r, err := h.cmd.StdoutPipe()
		if err != nil {
			return "", fmt.Errorf("start git hash-object: %w", err)
		}
		if err := h.cmd.Start(); err != nil {
			return "", fmt.Errorf("start git hash-object: %w", err)
		}
		h.in, h.out = w, bufio.NewReader(r)
		g.hasher = h
	}
	h := g.hasher
	fail := func(err error) (string, error) {
		h.close()
		g.hasher = nil
		return "", fmt.Errorf("git hash-object %s: %w %s", rel, err, strings.TrimSpace(h.err.String()))
	}
	if _, err := io.WriteString(h.in, rel+"\n"); err != nil {
		return fail(err)
	}
	line, err := h.out.ReadString('\n')
	if err != nil {
		return fail(err)
	}
	id := strings.TrimSpace(line)
	if !g.isID(id) {
		return fail(fmt.Errorf("unexpected answer %q", line))
	}
	return id, nil
}

// WorktreeFile returns a working tree file as git would store it. Where
// no conversion can apply to it (none configured, or only line endings
// and the file holds no CR), its bytes are what git stores; otherwise git
// stores it (`git hash-object -w`, attributes applied) and the blob is read
// back.
func (g *GitRepo) WorktreeFile(rel string) ([]byte, error) {
	abs := filepath.Join(g.root, filepath.FromSlash(rel))
	raw, err := os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	if !g.filters && (!g.lineEndings || bytes.IndexByte(raw, '\r') < 0) {
		return raw, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	id, err := g.storedID(rel)
	if err != nil {
		return nil, fmt.Errorf("read %s as git stores it: %w", rel, err)
	}
	o, ok, err := g.query("contents", id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("read %s: blob %s: %w", rel, id, ErrNotFound)
	}
	return o.data, nil
}

// headFile reads HEAD where refs are files: the branch it names, or the
// commit when detached. The caller resolves the branch.
func (g *GitRepo) headFile() (branch, hash string, err error) {
	p := filepath.Join(g.gitDir, "HEAD")
	b, err := os.ReadFile(p)
	if err != nil {
		return "", "", fmt.Errorf("read HEAD: %w", err)
	}
	s := strings.TrimSpace(string(b))
	if target, ok := strings.CutPrefix(s, "ref:"); ok {
		return strings.TrimSpace(target), "", nil
	}
	if !g.isID(s) {
		return "", "", fmt.Errorf("%s: HEAD holds %q, neither a ref nor a hash; repair it with `git checkout <branch>`", p, s)
	}
	return "", s, nil
}
