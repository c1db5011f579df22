package gitstate

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/itr-dev/itr/gitstate/internal/gitfmt"
	"github.com/itr-dev/itr/gitstate/internal/gitsyntax"
)

// The commit, tag and tree formats, read and written here rather than with
// go-git's plumbing/object, which drags an OpenPGP implementation (and its
// start-up cost) into every itr process. itr writes only plain commits and
// tags; it reads any commit or tag, skipping the headers it does not use
// (encoding, gpgsig, mergetag, ...), which it never rewrites.

// errMalformed means an object's content does not follow git's format.
var errMalformed = errors.New("malformed object")

// treeEntry is one entry of a tree object.
type treeEntry struct {
	Name string
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// commitObject is what gitstate reads from a commit.
type commitObject struct {
	Hash      plumbing.Hash
	Tree      plumbing.Hash
	Parents   []plumbing.Hash
	Author    Signature
	Committer Signature
	Message   string
}

// tagObject is what gitstate reads from an annotated tag. Message has any
// trailing signature block removed, as git shows it.
type tagObject struct {
	Target     plumbing.Hash
	TargetType string
	Name       string
	Tagger     Signature
	Message    string
}

// hashObject is the object name of data as an object of type t.
func hashObject(t plumbing.ObjectType, data []byte) plumbing.Hash {
	hh := sha1.New()
	var hdr [32]byte
	b := append(hdr[:0], t.String()...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(data)), 10)
	b = append(b, 0)
	hh.Write(b)
	hh.Write(data)
	var h plumbing.Hash
	hh.Sum(h[:0])
	return h
}

// encodeCommit returns the body of a commit object, as git writes it.
func encodeCommit(tree plumbing.Hash, parents []plumbing.Hash, author, committer Signature, msg string) []byte {
	var b bytes.Buffer
	b.Grow(256 + len(msg))
	b.WriteString("tree ")
	b.WriteString(tree.String())
	b.WriteByte('\n')
	for _, p := range parents {
		b.WriteString("parent ")
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	b.WriteString("author ")
	writeSignature(&b, author)
	b.WriteString("\ncommitter ")
	writeSignature(&b, committer)
	b.WriteString("\n\n")
	b.WriteString(msg)
	return b.Bytes()
}

// encodeTag returns the body of an annotated tag object pointing at a
// commit, as git writes it.
func encodeTag(target plumbing.Hash, name string, tagger Signature, msg string) []byte {
	var b bytes.Buffer
	b.WriteString("object ")
	b.WriteString(target.String())
	b.WriteString("\ntype commit\ntag ")
	b.WriteString(name)
	b.WriteString("\ntagger ")
	writeSignature(&b, tagger)
	b.WriteString("\n\n")
	b.WriteString(msg)
	return b.Bytes()
}

// writeSignature writes "Name <email> <unix seconds> <+hhmm>".
func writeSignature(b *bytes.Buffer, s Signature) {
	b.WriteString(s.Name)
	b.WriteString(" <")
	b.WriteString(s.Email)
	b.WriteString("> ")
	u := s.When.Unix()
	if u < 0 {
		u = 0
	}
	var buf [32]byte
	b.Write(strconv.AppendInt(buf[:0], u, 10))
	b.WriteByte(' ')
	b.WriteString(s.When.Format("-0700"))
}

// parseSignature reads "Name <email> <unix seconds> <+hhmm>" leniently, as
// git does: a missing or bad time leaves When zero (or in UTC without a
// zone).
func parseSignature(b []byte) Signature {
	var s Signature
	open := bytes.LastIndexByte(b, '<')
	end := bytes.LastIndexByte(b, '>')
	if open < 0 || end < open {
		s.Name = string(bytes.TrimSpace(b))
		return s
	}
	s.Name = string(bytes.Trim(b[:open], " "))
	s.Email = string(b[open+1 : end])
	rest := bytes.TrimLeft(b[end+1:], " ")
	ts, tz, _ := bytes.Cut(rest, []byte{' '})
	sec, err := strconv.ParseInt(string(ts), 10, 64)
	if err != nil {
		return s
	}
	s.When = time.Unix(sec, 0).In(time.UTC)
	if loc, ok := gitsyntax.Zone(string(bytes.TrimSpace(tz))); ok {
		s.When = s.When.In(loc)
	}
	return s
}

// headers calls fn for each header of a commit or tag (its key and its
// value, continuation lines joined with "\n") and returns the message that
// follows the blank line.
func headers(data []byte, fn func(key string, value []byte) error) (string, error) {
	for len(data) > 0 {
		line, rest, found := bytes.Cut(data, []byte{'\n'})
		if len(line) == 0 {
			return string(rest), nil
		}
		data = rest
		// Continuation lines (multi-line headers such as gpgsig) start with
		// a space.
		for len(data) > 0 && data[0] == ' ' {
			_, rest, _ := bytes.Cut(data, []byte{'\n'})
			data = rest
		}
		key, value, _ := bytes.Cut(line, []byte{' '})
		if err := fn(string(key), value); err != nil {
			return "", err
		}
		if !found {
			break
		}
	}
	return "", nil
}

// commitFields are the headers and message of a commit object, names as
// text (in any object format); trees counts the tree headers.
type commitFields struct {
	Tree              string
	trees             int
	Parents           []string
	Author, Committer Signature
	Message           string
}

// parseCommit reads a commit object's headers and message; what the
// names must look like is for its caller to check.
func parseCommit(data []byte) (commitFields, error) {
	var c commitFields
	msg, err := headers(data, func(key string, value []byte) error {
		switch key {
		case "tree":
			c.Tree, c.trees = string(value), c.trees+1
		case "parent":
			c.Parents = append(c.Parents, string(value))
		case "author":
			c.Author = parseSignature(value)
		case "committer":
			c.Committer = parseSignature(value)
		}
		return nil
	})
	c.Message = msg
	return c, err
}

// decodeCommit parses a commit object's body.
func decodeCommit(h plumbing.Hash, data []byte) (commitObject, error) {
	f, err := parseCommit(data)
	switch {
	case err != nil:
		return commitObject{}, err
	case f.trees == 0:
		return commitObject{}, fmt.Errorf("commit %s: %w: no tree header", h, errMalformed)
	case f.trees > 1 || !isHex40(f.Tree):
		return commitObject{}, fmt.Errorf("commit %s: %w: bad tree header", h, errMalformed)
	}
	c := commitObject{Hash: h, Tree: plumbing.NewHash(f.Tree), Author: f.Author, Committer: f.Committer, Message: f.Message}
	for _, p := range f.Parents {
		if !isHex40(p) {
			return commitObject{}, fmt.Errorf("commit %s: %w: bad parent header", h, errMalformed)
		}
		c.Parents = append(c.Parents, plumbing.NewHash(p))
	}
	return c, nil
}

// tagFields are the headers and message of a tag object, names as text
// (in any object format).
type tagFields struct {
	Target, TargetType, Name string
	Tagger                   Signature
	Message                  string // without a signature block
	sawObject                bool
}

// parseTag reads a tag object's headers and message, its signature block
// cut off, as git's parse_signed_buffer does.
func parseTag(data []byte) (tagFields, error) {
	var t tagFields
	msg, err := headers(data, func(key string, value []byte) error {
		switch key {
		case "object":
			t.Target, t.sawObject = string(value), true
		case "type":
			t.TargetType = string(value)
		case "tag":
			t.Name = string(value)
		case "tagger":
			t.Tagger = parseSignature(value)
		}
		return nil
	})
	if err != nil {
		return tagFields{}, err
	}
	if i := signatureStart(msg); i >= 0 {
		msg = msg[:i]
	}
	t.Message = msg
	return t, nil
}

// decodeTag parses an annotated tag object's body.
func decodeTag(h plumbing.Hash, data []byte) (tagObject, error) {
	f, err := parseTag(data)
	if err != nil {
		return tagObject{}, err
	}
	if !f.sawObject {
		return tagObject{}, fmt.Errorf("tag %s: %w: no object header", h, errMalformed)
	}
	if !isHex40(f.Target) {
		return tagObject{}, fmt.Errorf("tag %s: %w: bad object header", h, errMalformed)
	}
	return tagObject{Target: plumbing.NewHash(f.Target), TargetType: f.TargetType, Name: f.Name, Tagger: f.Tagger, Message: f.Message}, nil
}

// signatureStart returns where the last signature block of a tag message
// starts (at a line start), or -1, as git's parse_signed_buffer does.
func signatureStart(msg string) int {
	found := -1
	for i := 0; i < len(msg); {
		for _, begin := range signatureBegins {
			if len(msg)-i >= len(begin) && msg[i:i+len(begin)] == begin {
				found = i
				break
			}
		}
		j := indexByteFrom(msg, '\n', i)
		if j < 0 {
			break
		}
		i = j + 1
	}
	return found
}

var signatureBegins = []string{
	"-----BEGIN PGP SIGNATURE-----",
	"-----BEGIN PGP MESSAGE-----",
	"-----BEGIN SSH SIGNATURE-----",
	"-----BEGIN SIGNED MESSAGE-----",
	"-----BEGIN CERTIFICATE-----",
}

func indexByteFrom(s string, c byte, from int) int {
	for i := from; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// parseTreeEntries parses a tree object's body.
func parseTreeEntries(data []byte) ([]treeEntry, bool) {
	var out []treeEntry
	for len(data) > 0 {
		e, rest, ok := gitfmt.NextTreeEntry(data)
		if !ok {
			return nil, false
		}
		out = append(out, treeEntry{Name: string(e.Name), Mode: filemode.FileMode(e.Mode), Hash: plumbing.Hash(e.ID)})
		data = rest
	}
	return out, true
}

// readRaw reads object h and checks its content against its name. A
// missing object gives an error wrapping plumbing.ErrObjectNotFound.
func (r *Repo) readRaw(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	if t, data, ok := r.cache.object(h); ok {
		return t, data, nil
	}
	t, data, err := readObject(r.objDir(), h)
	if err != nil {
		return 0, nil, err
	}
	if hashObject(t, data) != h {
		return 0, nil, fmt.Errorf("object %s: the content does not match the name (a corrupt object; run `git fsck`): %w", h, errUnreadable)
	}
	r.cache.keepObject(h, t, data)
	return t, data, nil
}

// readCommit reads and decodes commit h.
func (r *Repo) readCommit(h plumbing.Hash) (commitObject, error) {
	t, data, err := r.readRaw(h)
	if err != nil {
		return commitObject{}, err
	}
	if t != plumbing.CommitObject {
		return commitObject{}, fmt.Errorf("object %s is a %s, not a commit: %w", h, t, ErrNotFound)
	}
	return decodeCommit(h, data)
}
