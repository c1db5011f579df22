package gitstate

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
)

// packObject is one object to write: its type ("blob", "tree", "commit",
// "tag"), body and the name computed for it.
type packObject struct {
	typ  string
	data []byte
	id   string
}

// packTypes are the type numbers of a pack entry.
var packTypes = map[string]byte{"commit": 1, "tree": 2, "blob": 3, "tag": 4}

// encodePack lays objects out as a version-2 pack without deltas, closed by
// the checksum in the repository's hash, as `git unpack-objects` reads it.
func encodePack(format string, objs []packObject) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("PACK")
	_ = binary.Write(&b, binary.BigEndian, uint32(2))
	_ = binary.Write(&b, binary.BigEndian, uint32(len(objs)))
	zw, err := zlib.NewWriterLevel(&b, zlib.BestSpeed)
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		t, ok := packTypes[o.typ]
		if !ok {
			return nil, fmt.Errorf("pack: unknown object type %q", o.typ)
		}
		size := uint64(len(o.data))
		c := t<<4 | byte(size&0x0f)
		size >>= 4
		for size > 0 {
			b.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
			size >>= 7
		}
		b.WriteByte(c)
		zw.Reset(&b)
		if _, err := zw.Write(o.data); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
	}
	h := sha1.New()
	if format == "sha256" {
		h = sha256.New()
	}
	h.Write(b.Bytes())
	b.Write(h.Sum(nil))
	return b.Bytes(), nil
}

// writeObjects writes objects with one `git unpack-objects` (git checks
// each and writes it loose, fsynced as core.fsync says), then makes sure
// git holds every one under the name computed for it. The caller holds
// g.mu.
func (g *GitRepo) writeObjects(objs []packObject) error {
	if len(objs) == 0 {
		return nil
	}
	if packSize(objs) >= largeObject {
		// Encoded into git's stdin as it goes (gitengine_packstream.go).
		if err := g.unpackStreamed(objs); err != nil {
			return fmt.Errorf("write objects: %w", err)
		}
	} else {
		pack, err := encodePack(g.format, objs)
		if err != nil {
			return err
		}
		if _, err := g.run(pack, "unpack-objects", "-q"); err != nil {
			return fmt.Errorf("write objects: %w", err)
		}
	}
	for _, o := range objs {
		got, ok, err := g.query("info", o.id)
		if err != nil {
			return err
		}
		if !ok || got.typ != o.typ {
			return fmt.Errorf("write objects: git does not hold %s %s that itr computed; report it", o.typ, o.id)
		}
	}
	return nil
}

// newObject names an object in the repository's hash.
func (g *GitRepo) newObject(typ string, data []byte) packObject {
	return packObject{typ: typ, data: data, id: objectID(g.format, typ, data)}
}

// signatureLine is "Name <email> <unix seconds> <+hhmm>".
func signatureLine(s Signature) string {
	var b bytes.Buffer
	writeSignature(&b, s)
	return b.String()
}

// commitBody is a commit object's body in any object format.
func commitBody(tree string, parents []string, author, committer Signature, msg string) []byte {
	var b strings.Builder
	b.WriteString("tree " + tree + "\n")
	for _, p := range parents {
		b.WriteString("parent " + p + "\n")
	}
	b.WriteString("author " + signatureLine(author) + "\n")
	b.WriteString("committer " + signatureLine(committer) + "\n\n")
	b.WriteString(msg)
	return []byte(b.String())
}
