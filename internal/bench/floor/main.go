//go:build linux

// Command floor is the yardstick of `bench -only floor` (issue #33): the
// least work a Go program does to record what `itr checkpoint` records,
// given a repository and a task folder whose files were changed (an entry
// appended to progress.md, state.json rewritten). It writes the same
// things: a loose blob for each changed file of the folder, the folder's
// tree and every tree above it, a commit on HEAD's branch, the changed
// files' index entries (and the index's cache tree invalidated along the
// path, as git does), the branch moved under its lock file and its reflog
// and HEAD's appended.
//
// It reads HEAD, the branch, the parent commit and the trees on the path
// once each, as loose objects (the path's trees are the previous
// checkpoint's, always loose; it stops on a packed one), takes the author
// from GIT_AUTHOR_NAME/EMAIL and GIT_COMMITTER_NAME/EMAIL, and reads no
// config: what it leaves out is what itr does beyond the floor (the rule
// book, the state, its checks). It is a measurement, not a tool: it
// supports a plain repository (no linked worktree, index version 2 or 3,
// SHA-1) and says so otherwise.
//
// Usage: floor REPO TASKDIR MESSAGE (TASKDIR relative to REPO, with slashes).
package main

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: floor REPO TASKDIR MESSAGE")
		os.Exit(2)
	}
	hash, err := Commit(os.Args[1], os.Args[2], os.Args[3], time.Now())
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	fmt.Println(hash)
}

// entry is one tree entry.
type entry struct {
	mode string
	name string
	id   [20]byte
}

// Commit records the changed files of taskDir in repo as one commit on
// HEAD's branch and returns its name.
func Commit(repo, taskDir, msg string, now time.Time) (string, error) {
	taskDir = strings.Trim(taskDir, "/")
	gitDir := filepath.Join(repo, ".git")
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", err
	}
	branch, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !ok {
		return "", errors.New("HEAD is not on a branch")
	}
	// Lock the branch first: the one read of it is then the compare.
	refPath := filepath.Join(gitDir, filepath.FromSlash(branch))
	lock, err := os.OpenFile(refPath+".lock", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return "", err
	}
	done := false
	defer func() {
		if !done {
			lock.Close()
			os.Remove(refPath + ".lock")
		}
	}()
	parentHex, err := os.ReadFile(refPath)
	if err != nil {
		return "", fmt.Errorf("read %s (a packed branch is not supported): %w", branch, err)
	}
	parent := strings.TrimSpace(string(parentHex))
	objects := filepath.Join(gitDir, "objects")
	commit, err := readLoose(objects, parent, "commit")
	if err != nil {
		return "", err
	}
	rootHex, ok := bytes.CutPrefix(commit, []byte("tree "))
	if !ok || len(rootHex) < 40 {
		return "", errors.New("parent commit has no tree")
	}

	// The trees on the path, root first.
	parts := strings.Split(taskDir, "/")
	trees := make([][]entry, len(parts)+1)
	id := string(rootHex[:40])
	for i := 0; ; i++ {
		data, err := readLoose(objects, id, "tree")
		if err != nil {
			return "", err
		}
		trees[i] = parseTree(data)
		if i == len(parts) {
			break
		}
		e := find(trees[i], parts[i])
		if e == nil || e.mode != "40000" {
			return "", fmt.Errorf("%s is not a folder in HEAD", strings.Join(parts[:i+1], "/"))
		}
		id = hex.EncodeToString(e.id[:])
	}

	// The changed files of the folder: a new blob each.
	changed, stats, err := writeChanged(objects, repo, taskDir, trees[len(parts)])
	if err != nil {
		return "", err
	}
	if len(changed) == 0 {
		return "", errors.New("nothing changed in " + taskDir)
	}
	// The trees, from the folder up to the root.
	var top [20]byte
	for i := len(parts); i >= 0; i-- {
		data := encodeTree(trees[i])
		top = objectID("tree", data)
		if err := writeLoose(objects, "tree", data, top); err != nil {
			return "", err
		}
		if i > 0 {
			find(trees[i-1], parts[i-1]).id = top
		}
	}
	who, err := signature(now)
	if err != nil {
		return "", err
	}
	body := fmt.Sprintf("tree %x\nparent %s\nauthor %s\ncommitter %s\n\n%s\n", top, parent, who, who, msg)
	cid := objectID("commit", []byte(body))
	if err := writeLoose(objects, "commit", []byte(body), cid); err != nil {
		return "", err
	}
	if err := patchIndex(gitDir, taskDir, stats); err != nil {
		return "", err
	}
	// Move the branch and log it.
	newHex := hex.EncodeToString(cid[:])
	if _, err := lock.WriteString(newHex + "\n"); err != nil {
		return "", err
	}
	if err := lock.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(refPath+".lock", refPath); err != nil {
		return "", err
	}
	done = true
	subject, _, _ := strings.Cut(msg, "\n")
	line := fmt.Sprintf("%s %s %s\tcommit: %s\n", parent, newHex, who, subject)
	for _, log := range []string{filepath.Join(gitDir, "logs", filepath.FromSlash(branch)), filepath.Join(gitDir, "logs", "HEAD")} {
		if err := appendLine(log, line); err != nil {
			return "", err
		}
	}
	return newHex, nil
}

// signature is "Name <email> unix-time zone" from git's variables.
func signature(now time.Time) (string, error) {
	name, email := os.Getenv("GIT_COMMITTER_NAME"), os.Getenv("GIT_COMMITTER_EMAIL")
	if name == "" || email == "" {
		return "", errors.New("set GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL (the floor reads no config)")
	}
	return fmt.Sprintf("%s <%s> %d %s", name, email, now.Unix(), now.Format("-0700")), nil
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func objectID(kind string, data []byte) [20]byte {
	h := sha1.New()
	h.Write([]byte(kind + " " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var id [20]byte
	h.Sum(id[:0])
	return id
}

// readLoose reads a loose object of the kind given.
func readLoose(objects, id, kind string) ([]byte, error) {
	f, err := os.Open(filepath.Join(objects, id[:2], id[2:]))
	if err != nil {
		return nil, fmt.Errorf("object %s is not loose (the floor reads no packs): %w", id, err)
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	nul := bytes.IndexByte(data, 0)
	if nul < 0 || !bytes.HasPrefix(data, []byte(kind+" ")) {
		return nil, fmt.Errorf("object %s is not a %s", id, kind)
	}
	return data[nul+1:], nil
}

// writeLoose writes a loose object unless it is there, as git does: a temp
// file in the object's folder renamed into place (no fsync: git's and
// itr's default for loose objects).
func writeLoose(objects, kind string, data []byte, id [20]byte) error {
	name := hex.EncodeToString(id[:])
	dir := filepath.Join(objects, name[:2])
	dst := filepath.Join(dir, name[2:])
	if _, err := os.Lstat(dst); err == nil {
		return nil
	}
	var buf bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	if _, err := zw.Write([]byte(kind + " " + strconv.Itoa(len(data)) + "\x00")); err != nil {
		return err
	}
	if _, err := zw.Write(data); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if errors.Is(err, os.ErrNotExist) {
		if err = os.Mkdir(dir, 0o777); err == nil || errors.Is(err, os.ErrExist) {
			f, err = os.CreateTemp(dir, "tmp_obj_")
		}
	}
	if err != nil {
		return err
	}
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o444)
	}
	if err == nil {
		err = os.Rename(f.Name(), dst)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func parseTree(data []byte) []entry {
	var out []entry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+21 {
			break
		}
		e := entry{mode: string(data[:sp]), name: string(data[sp+1 : nul])}
		copy(e.id[:], data[nul+1:nul+21])
		out = append(out, e)
		data = data[nul+21:]
	}
	return out
}

func find(es []entry, name string) *entry {
	for i := range es {
		if es[i].name == name {
			return &es[i]
		}
	}
	return nil
}

// encodeTree writes entries in git's order (a folder sorts as name + "/").
func encodeTree(es []entry) []byte {
	key := func(e entry) string {
		if e.mode == "40000" {
			return e.name + "/"
		}
		return e.name
	}
	sort.Slice(es, func(i, j int) bool { return key(es[i]) < key(es[j]) })
	var b bytes.Buffer
	for _, e := range es {
		b.WriteString(e.mode + " " + e.name + "\x00")
		b.Write(e.id[:])
	}
	return b.Bytes()
}

// patchIndex rewrites the index entries of the changed paths in place
// (their stat data and object name; the layout does not move) and marks
// the cache tree invalid along the task folder's path.
// fileStat is a changed file's stat data and object name.
type fileStat struct {
	st *syscall.Stat_t
	id [20]byte
}

func patchIndex(gitDir, taskDir string, stats map[string]fileStat) error {
	path := filepath.Join(gitDir, "index")
	lock, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	defer os.Remove(path + ".lock")
	defer lock.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if len(data) < 32 || string(data[:4]) != "DIRC" {
		return errors.New("not an index")
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version != 2 && version != 3 {
		return fmt.Errorf("index version %d: the floor patches versions 2 and 3", version)
	}
	count := int(binary.BigEndian.Uint32(data[8:]))
	body := data[:len(data)-20]
	off := 12
	for i := 0; i < count; i++ {
		flags := binary.BigEndian.Uint16(body[off+60:])
		nameAt := off + 62
		if flags&0x4000 != 0 {
			nameAt += 2
		}
		nul := bytes.IndexByte(body[nameAt:], 0)
		if fs, ok := stats[string(body[nameAt:nameAt+nul])]; ok {
			putStat(body[off:], fs.st)
			copy(body[off+40:off+60], fs.id[:])
		}
		off = nameAt + nul + 1
		for (off-12)%8 != 0 { // entries are padded to 8 bytes
			off++
		}
	}
	// Extensions: TREE invalidated along the path, the others kept.
	var out bytes.Buffer
	out.Write(body[:off])
	for off+8 <= len(body) {
		sig := string(body[off : off+4])
		size := int(binary.BigEndian.Uint32(body[off+4:]))
		ext := body[off+8 : off+8+size]
		if sig == "TREE" {
			var nb bytes.Buffer
			invalidate(ext, "", taskDir+"/", &nb)
			ext = nb.Bytes()
		}
		var hdr [8]byte
		copy(hdr[:], sig)
		binary.BigEndian.PutUint32(hdr[4:], uint32(len(ext))) //nolint:gosec // G115: an extension is far below 4 GiB (git's own limit)
		out.Write(hdr[:])
		out.Write(ext)
		off += 8 + size
	}
	sum := sha1.Sum(out.Bytes())
	out.Write(sum[:])
	if _, err := lock.Write(out.Bytes()); err != nil {
		return err
	}
	if err := lock.Close(); err != nil {
		return err
	}
	return os.Rename(path+".lock", path)
}

// putStat writes the stat part of an index entry: the low 32 bits of
// each field, as git keeps them.
//
//nolint:gosec // G115: the truncation to 32 bits is the index format's
func putStat(b []byte, st *syscall.Stat_t) {
	be := binary.BigEndian
	be.PutUint32(b[0:], uint32(st.Ctim.Sec))
	be.PutUint32(b[4:], uint32(st.Ctim.Nsec))
	be.PutUint32(b[8:], uint32(st.Mtim.Sec))
	be.PutUint32(b[12:], uint32(st.Mtim.Nsec))
	be.PutUint32(b[16:], uint32(st.Dev))
	be.PutUint32(b[20:], uint32(st.Ino))
	be.PutUint32(b[36:], uint32(st.Size))
	be.PutUint32(b[28:], st.Uid)
	be.PutUint32(b[32:], st.Gid)
}

// invalidate copies one cache-tree node and its children, marking those
// on the path of target ("a/b/") invalid; it returns what follows them.
func invalidate(data []byte, prefix, target string, out *bytes.Buffer) []byte {
	nul := bytes.IndexByte(data, 0)
	nl := bytes.IndexByte(data, '\n')
	if nul < 0 || nl < nul {
		return nil
	}
	name := string(data[:nul])
	fields := strings.Fields(string(data[nul+1 : nl]))
	if len(fields) != 2 {
		return nil
	}
	n, _ := strconv.Atoi(fields[0])
	subs, _ := strconv.Atoi(fields[1])
	path := prefix
	if name != "" {
		path = prefix + name + "/"
	}
	rest := data[nl+1:]
	if n >= 0 {
		rest = rest[20:]
	}
	if strings.HasPrefix(target, path) {
		fmt.Fprintf(out, "%s\x00-1 %d\n", name, subs)
	} else {
		out.Write(data[:len(data)-len(rest)])
	}
	for i := 0; i < subs && rest != nil; i++ {
		rest = invalidate(rest, path, target, out)
	}
	return rest
}

// writeChanged writes a blob for each file of the task folder (its tree's
// entries, updated in place) whose content changed, and returns their
// names and the stat data of each for the index.
func writeChanged(objects, repo, taskDir string, task []entry) ([]string, map[string]fileStat, error) {
	dir := filepath.Join(repo, filepath.FromSlash(taskDir))
	var changed []string
	stats := map[string]fileStat{}
	for i := range task {
		e := &task[i]
		if e.mode != "100644" && e.mode != "100755" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.name))
		if err != nil {
			return nil, nil, err
		}
		h := objectID("blob", data)
		if h == e.id {
			continue
		}
		if err := writeLoose(objects, "blob", data, h); err != nil {
			return nil, nil, err
		}
		e.id = h
		changed = append(changed, e.name)
		var st syscall.Stat_t
		if err := syscall.Lstat(filepath.Join(dir, e.name), &st); err != nil {
			return nil, nil, err
		}
		stats[taskDir+"/"+e.name] = fileStat{&st, h}
	}
	return changed, stats, nil
}
