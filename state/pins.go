package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// OutputPin is one output of a done unit as the entry that made it done
// recorded it (outputs): its path from the repository top, its size in
// bytes and its git blob id, both as git stores the file (after the
// line-ending conversions and clean filters of its attributes), so a
// CRLF checkout and `git hash-object --path` agree with it.
type OutputPin struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
	Blob  string `json:"blob"`
}

// String reads "outputs/survey.md (2874 bytes, blob 5e1c309)".
func (p OutputPin) String() string {
	return fmt.Sprintf("%s (%d bytes, blob %s)", p.Path, p.Bytes, shortID(p.Blob))
}

func shortID(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}

// ValidBlobID reports whether s is a full object id: 40 (SHA-1) or 64
// (SHA-256) lower-case hex digits.
func ValidBlobID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// ClonePins returns a copy of pins (nil stays nil).
func ClonePins(pins []OutputPin) []OutputPin {
	if pins == nil {
		return nil
	}
	return append([]OutputPin{}, pins...)
}

// PinsText words pins on one line each, "" for none: what a discrepancy
// shows.
func PinsText(pins []OutputPin) string {
	parts := make([]string, len(pins))
	for i, p := range pins {
		parts[i] = fmt.Sprintf("%s %d %s", p.Path, p.Bytes, p.Blob)
	}
	return strings.Join(parts, "; ")
}

const pinsForm = `a list such as [{"path": "outputs/survey.md", "bytes": 2874, "blob": "5e1c309dae7f45e0f39b1bf3ac3cd9db12e7d689"}]`

// decodePins reads a unit's outputs: a list of pins, each with a path, a
// size of at least 0 and a full blob id.
func decodePins(path string, raw json.RawMessage) ([]OutputPin, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '[' {
		return nil, typeErr(path, raw, pinsForm)
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.DisallowUnknownFields()
	var pins []OutputPin
	if err := dec.Decode(&pins); err != nil {
		return nil, &DecodeError{Path: path, Msg: fmt.Sprintf("not a list of output pins (%v); write %s", err, pinsForm), Err: err}
	}
	for i, p := range pins {
		at := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case strings.TrimSpace(p.Path) == "":
			return nil, &DecodeError{Path: at + ".path", Msg: "empty; name the output's path from the repository top"}
		case p.Bytes < 0:
			return nil, &DecodeError{Path: at + ".bytes", Msg: fmt.Sprintf("%d is not a size (a whole number of at least 0)", p.Bytes)}
		case !ValidBlobID(p.Blob):
			return nil, &DecodeError{Path: at + ".blob", Msg: fmt.Sprintf("%q is not a blob id (40 or 64 lower-case hex digits, as `git hash-object` prints)", p.Blob)}
		}
	}
	if pins == nil {
		pins = []OutputPin{}
	}
	return pins, nil
}

// pinsValue writes a unit's outputs, one pin a line.
type pinsValue []OutputPin

func (v pinsValue) write(b *bytes.Buffer, indent string) {
	if len(v) == 0 {
		b.WriteString("[]")
		return
	}
	b.WriteString("[\n")
	for i, p := range v {
		b.WriteString(indent + "  ")
		b.Write(plainJSON(p))
		if i < len(v)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "]")
}
