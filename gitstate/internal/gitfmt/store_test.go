package gitfmt

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/itr-dev/itr/internal/testgit"
)

// storeRepo makes a repository of n commits, each changing a.txt.
func storeRepo(t *testing.T, n int) string {
	testgit.Isolate(t)
	dir := t.TempDir()
	testgit.Git(t, dir, "init", "-q", "-b", "main")
	for i := 0; i < n; i++ {
		testgit.Write(t, dir, "a.txt", strings.Repeat("line\n", 100)+fmt.Sprintf("edit %d\n", i))
		testgit.Git(t, dir, "add", "a.txt")
		testgit.Git(t, dir, "commit", "-q", "-m", fmt.Sprintf("c%d", i))
	}
	return dir
}

func mustID(t *testing.T, s string) ID {
	t.Helper()
	var id ID
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != 20 {
		t.Fatalf("not an object name: %q", s)
	}
	copy(id[:], b)
	return id
}

// readAll reads every object of the repository and compares each with
// git cat-file.
func readAll(t *testing.T, dir string) int {
	t.Helper()
	objDir := filepath.Join(dir, ".git", "objects")
	n := 0
	for _, line := range strings.Split(testgit.Out(t, dir, "rev-list", "--objects", "--all"), "\n") {
		name, _, _ := strings.Cut(line, " ")
		if len(name) != 40 {
			continue
		}
		typ, data, err := ReadObject(objDir, mustID(t, name))
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		kind := map[Type]string{Commit: "commit", Tree: "tree", Blob: "blob", Tag: "tag"}[typ]
		if want := testgit.Out(t, dir, "cat-file", "-t", name); strings.TrimSpace(want) != kind {
			t.Fatalf("%s: type %s, git says %s", name, kind, want)
		}
		if want := testgit.Out(t, dir, "cat-file", kind, name); want != string(data) {
			t.Fatalf("%s: content differs from git cat-file", name)
		}
		n++
	}
	return n
}

// TestPacksListedOncePerProcess reads every object of a packed repository
// and checks the pack folder was listed and each index mapped once.
func TestPacksListedOncePerProcess(t *testing.T) {
	dir := storeRepo(t, 20)
	testgit.Git(t, dir, "gc", "-q", "--prune=now")
	// A second pack beside the first: an object in either is found.
	testgit.Write(t, dir, "b.txt", "b\n")
	testgit.Git(t, dir, "add", "b.txt")
	testgit.Git(t, dir, "commit", "-q", "-m", "b")
	testgit.Git(t, dir, "repack", "-q", "-d")
	testgit.Git(t, dir, "prune-packed")
	objDir := filepath.Join(dir, ".git", "objects")
	Forget(objDir)
	l0, i0 := listings.Load(), indexOpens.Load()
	n := readAll(t, dir)
	if n < 60 {
		t.Fatalf("read %d objects, want the whole history", n)
	}
	if got := listings.Load() - l0; got != 1 {
		t.Errorf("the pack folder was listed %d times for %d objects, want once", got, n)
	}
	packs, _ := filepath.Glob(filepath.Join(objDir, "pack", "*.idx"))
	if got := indexOpens.Load() - i0; got != int64(len(packs)) || len(packs) != 2 {
		t.Errorf("%d indexes mapped for %d packs, want each once (and 2 packs)", got, len(packs))
	}
	// A name in no store is looked for once more after a new listing.
	_, _, err := ReadObject(objDir, ID{0xab, 0xcd})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("a missing object: %v, want ErrNotFound", err)
	}
	if got := listings.Load() - l0; got != 2 {
		t.Errorf("the pack folder was listed %d times after a missing object, want twice", got)
	}
}

// TestObjectsAfterTheListing reads objects that git wrote or moved after
// this process listed the packs: a loose object written since (what a
// checkpoint writes and reads back), objects a repack moved from loose
// files into a new pack, and every object after a repack removed the
// packs listed (kept open, or listed again).
func TestObjectsAfterTheListing(t *testing.T) {
	dir := storeRepo(t, 5)
	objDir := filepath.Join(dir, ".git", "objects")
	Forget(objDir)
	readAll(t, dir) // all loose: the (empty) pack folder is listed
	testgit.Git(t, dir, "gc", "-q", "--prune=now")
	readAll(t, dir) // all moved into a pack since the listing
	testgit.Write(t, dir, "a.txt", "written after the listing\n")
	testgit.Git(t, dir, "commit", "-q", "-am", "after")
	head := mustID(t, testgit.Line(t, dir, "rev-parse", "HEAD"))
	if _, _, err := ReadObject(objDir, head); err != nil {
		t.Fatalf("a loose commit written after the listing: %v", err)
	}
	testgit.Git(t, dir, "repack", "-q", "-a", "-d")
	testgit.Git(t, dir, "prune-packed")
	if _, err := os.Stat(filepath.Join(objDir, head.String()[:2], head.String()[2:])); !os.IsNotExist(err) {
		t.Fatalf("the commit is still loose after repack and prune-packed: %v", err)
	}
	readAll(t, dir) // the packs listed are gone; one new pack holds all
}

// TestDamagedPackIndex: an index that is not version 2 fails a read of an
// object it would hold with the fix, but not the read of a loose object.
func TestDamagedPackIndex(t *testing.T) {
	dir := storeRepo(t, 2)
	testgit.Git(t, dir, "gc", "-q", "--prune=now")
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if len(packs) != 1 {
		t.Fatalf("%d packs", len(packs))
	}
	testgit.Write(t, dir, "a.txt", "loose\n")
	testgit.Git(t, dir, "commit", "-q", "-am", "loose")
	head := mustID(t, testgit.Line(t, dir, "rev-parse", "HEAD"))
	old := mustID(t, testgit.Line(t, dir, "rev-parse", "HEAD~1"))
	data, err := os.ReadFile(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	data[7] = 1 // version 1
	if err := os.Chmod(packs[0], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(packs[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	objDir := filepath.Join(dir, ".git", "objects")
	Forget(objDir)
	if _, _, err := ReadObject(objDir, head); err != nil {
		t.Fatalf("a loose object beside a damaged index: %v", err)
	}
	_, _, err = ReadObject(objDir, old)
	if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "git repack -a -d") {
		t.Fatalf("an object of the damaged pack: %v, want ErrUnreadable with the fix", err)
	}
}

// TestRecentObjectsAreCopies: an object read again comes from the objects
// read last, as a copy the caller owns, and an empty blob stays empty, not
// nil.
func TestRecentObjectsAreCopies(t *testing.T) {
	dir := storeRepo(t, 1)
	testgit.Write(t, dir, "empty", "")
	objDir := filepath.Join(dir, ".git", "objects")
	empty := mustID(t, testgit.Line(t, dir, "hash-object", "-w", "empty"))
	for i := 0; i < 2; i++ {
		typ, data, err := ReadObject(objDir, empty)
		if err != nil || typ != Blob || data == nil || len(data) != 0 {
			t.Fatalf("read %d of the empty blob: %v %v %q (nil: %v)", i, typ, err, data, data == nil)
		}
	}
	head := mustID(t, testgit.Line(t, dir, "rev-parse", "HEAD"))
	_, first, err := ReadObject(objDir, head)
	if err != nil {
		t.Fatal(err)
	}
	want := string(first)
	first[0] = 'X' // the caller's to change
	_, again, err := ReadObject(objDir, head)
	if err != nil || string(again) != want {
		t.Fatalf("read again: %v %q, want %q", err, again, want)
	}
}
