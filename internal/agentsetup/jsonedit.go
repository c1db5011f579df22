package agentsetup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The agents' settings files are edited as text, not re-encoded: every byte
// outside the span itr inserts or removes stays as it was (key order,
// spacing, number spellings, comments where the format allows them). doc is
// a JSON document parsed with the offsets of every value, member and
// element, which is all an edit needs.

// maxDepth bounds nesting so a hostile file cannot exhaust the stack.
const maxDepth = 512

// jkind is the kind of a JSON value.
type jkind byte

const (
	jObject jkind = '{'
	jArray  jkind = '['
	jString jkind = '"'
	jNumber jkind = '0'
	jLit    jkind = 'l' // true, false, null
)

// jnode is one JSON value and where it lies in the source: [start, end).
type jnode struct {
	kind    jkind
	start   int
	end     int
	str     string    // the decoded value of a string
	members []jmember // an object's members, in source order
	elems   []*jnode  // an array's elements
}

// jmember is one "key": value pair of an object; keyStart is the offset of
// the key's opening quote.
type jmember struct {
	key      string
	keyStart int
	val      *jnode
}

// get returns the value of the object member key, or nil.
func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != jObject {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- { // the last one wins, as in JSON.parse
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

// memberIndex returns the index of the last member named key, or -1.
func (n *jnode) memberIndex(key string) int {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return i
		}
	}
	return -1
}

// SyntaxError is a settings file that is not JSON; Line and Col are 1-based.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// jparser parses JSON with // and /* */ comments allowed (Gemini CLI's and
// Cursor's settings may carry them); trailing commas are errors.
type jparser struct {
	src   []byte
	pos   int
	depth int
}

// parseJSON parses a whole document. An empty or blank document is nil
// with no error: the file is treated as absent.
func parseJSON(src []byte) (*jnode, error) {
	p := &jparser{src: src}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos == len(src) {
		return nil, nil
	}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.errorf("unexpected %s after the document", p.near())
	}
	return n, nil
}

func (p *jparser) errorf(format string, args ...any) error {
	line, col := 1, 1
	for _, r := range string(p.src[:min(p.pos, len(p.src))]) {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *jparser) near() string {
	if p.pos >= len(p.src) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.src[p.pos:])
	return fmt.Sprintf("%q", r)
}

// skip passes whitespace and comments.
func (p *jparser) skip() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			end := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if end < 0 {
				return p.errorf("unterminated /* comment")
			}
			p.pos += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

func (p *jparser) value() (*jnode, error) {
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of file, a value was expected")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		start := p.pos
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &jnode{kind: jString, start: start, end: p.pos, str: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.src[p.pos:], []byte(lit)) {
				n := &jnode{kind: jLit, start: p.pos, end: p.pos + len(lit)}
				p.pos += len(lit)
				return n, nil
			}
		}
		return nil, p.errorf("unexpected %s, a value was expected", p.near())
	}
}

func (p *jparser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf("nested more than %d levels", maxDepth)
	}
	return nil
}

func (p *jparser) object() (*jnode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := &jnode{kind: jObject, start: p.pos}
	p.pos++ // {
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		n.end = p.pos
		return n, nil
	}
	for {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.errorf("unexpected %s, a member name in double quotes was expected", p.near())
		}
		keyStart := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errorf("unexpected %s, ':' was expected after %q", p.near(), key)
		}
		p.pos++
		if err := p.skip(); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, jmember{key: key, keyStart: keyStart, val: v})
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) {
			return nil, p.errorf("unexpected end of file, ',' or '}' was expected")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			if err := p.skip(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == '}' {
				return nil, p.errorf("a trailing comma before '}' is not JSON")
			}
		case '}':
			p.pos++
			n.end = p.pos
			return n, nil
		default:
			return nil, p.errorf("unexpected %s, ',' or '}' was expected", p.near())
		}
	}
}

func (p *jparser) array() (*jnode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := &jnode{kind: jArray, start: p.pos}
	p.pos++ // [
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		n.end = p.pos
		return n, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) {
			return nil, p.errorf("unexpected end of file, ',' or ']' was expected")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			if err := p.skip(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == ']' {
				return nil, p.errorf("a trailing comma before ']' is not JSON")
			}
		case ']':
			p.pos++
			n.end = p.pos
			return n, nil
		default:
			return nil, p.errorf("unexpected %s, ',' or ']' was expected", p.near())
		}
	}
}

// str reads a string token and returns its decoded value.
func (p *jparser) str() (string, error) {
	start := p.pos
	p.pos++ // "
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.src[start:p.pos], &s); err != nil {
				p.pos = start
				return "", p.errorf("malformed string: %v", err)
			}
			return s, nil
		case c == '\\':
			p.pos += 2
		case c < 0x20:
			return "", p.errorf("a control character inside a string")
		default:
			p.pos++
		}
	}
	p.pos = start
	return "", p.errorf("unterminated string")
}

func (p *jparser) number() (*jnode, error) {
	start := p.pos
	for p.pos < len(p.src) && strings.IndexByte("+-0123456789.eE", p.src[p.pos]) >= 0 {
		p.pos++
	}
	if !json.Valid(p.src[start:p.pos]) {
		p.pos = start
		return nil, p.errorf("malformed number")
	}
	return &jnode{kind: jNumber, start: start, end: p.pos}, nil
}

// edit is one replacement of src[start:end] by text.
type edit struct {
	start, end int
	text       string
}

// apply returns src with e applied.
func (e edit) apply(src []byte) []byte {
	out := make([]byte, 0, len(src)-(e.end-e.start)+len(e.text))
	out = append(out, src[:e.start]...)
	out = append(out, e.text...)
	return append(out, src[e.end:]...)
}

// style is how a document is laid out: the indentation unit ("" for a
// single-line document) and the spelling after a member's colon.
type style struct {
	unit  string
	colon string
}

// detectStyle reads the layout from the document: the indentation of the
// root's first member (two spaces when the root is empty, as the agents
// write their own files), and the space after its colon.
func detectStyle(src []byte, root *jnode) style {
	st := style{unit: "  ", colon: ": "}
	if root == nil || len(root.members) == 0 {
		return st
	}
	m := root.members[0]
	if ind, ok := lineIndent(src, m.keyStart); ok {
		st.unit = ind
	} else {
		st.unit = ""
	}
	// The spelling between the key's closing quote and the value.
	between := src[m.keyStart:m.val.start]
	if i := bytes.LastIndexByte(between, ':'); i >= 0 {
		st.colon = string(between[i:])
		if strings.ContainsAny(st.colon, "\n/") {
			st.colon = ": "
		}
	}
	return st
}

// lineIndent returns the whitespace before offset on its line, and whether
// offset is the first thing on its line.
func lineIndent(src []byte, offset int) (string, bool) {
	i := offset
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	if i > 0 && src[i-1] != '\n' {
		return "", false
	}
	return string(src[i:offset]), true
}

// render encodes v for insertion at a line indented by indent.
func render(v any, st style, indent string) (string, error) {
	var (
		b   []byte
		err error
	)
	if st.unit == "" {
		b, err = marshal(v, "", "")
	} else {
		b, err = marshal(v, indent, st.unit)
	}
	if err != nil {
		return "", err
	}
	s := string(b)
	if st.colon != ": " {
		s = strings.ReplaceAll(s, "\": ", "\""+st.colon) // MarshalIndent writes ": "
	}
	return s, nil
}

// marshal is json.MarshalIndent without HTML escaping ("&&" in a command
// stays readable).
func marshal(v any, prefix, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent(prefix, indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// containerIndent returns the indentation of the line a container opens on.
func containerIndent(src []byte, n *jnode) string {
	i := n.start
	for i > 0 && src[i-1] != '\n' {
		i--
	}
	j := i
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	return string(src[i:j])
}

// items returns where the container's items begin (a member's key, an
// element's value) and end.
func items(n *jnode) (starts, ends []int) {
	if n.kind == jObject {
		for _, m := range n.members {
			starts, ends = append(starts, m.keyStart), append(ends, m.val.end)
		}
		return starts, ends
	}
	for _, e := range n.elems {
		starts, ends = append(starts, e.start), append(ends, e.end)
	}
	return starts, ends
}

// appendItem returns the edit that adds an item as the container's last:
// for an object key is the member name, for an array it is "". The item
// takes the indentation of its siblings, or the container's plus one unit.
func appendItem(src []byte, n *jnode, st style, key string, v any) (edit, error) {
	starts, ends := items(n)
	prefix := ""
	if key != "" {
		k, err := marshal(key, "", "")
		if err != nil {
			return edit{}, err
		}
		prefix = string(k) + st.colon
	}
	if len(starts) > 0 {
		last := starts[len(starts)-1]
		ind, own := lineIndent(src, last)
		if !own || st.unit == "" {
			text, err := render(v, style{colon: st.colon}, "")
			if err != nil {
				return edit{}, err
			}
			sep := ","
			if bytes.Contains(src[n.start:n.end], []byte(", ")) {
				sep = ", "
			}
			at := ends[len(ends)-1]
			return edit{at, at, sep + prefix + text}, nil
		}
		text, err := render(v, st, ind)
		if err != nil {
			return edit{}, err
		}
		at := ends[len(ends)-1]
		return edit{at, at, ",\n" + ind + prefix + text}, nil
	}
	outer := containerIndent(src, n)
	inner := src[n.start+1 : n.end-1]
	if st.unit == "" {
		text, err := render(v, st, "")
		if err != nil {
			return edit{}, err
		}
		return edit{n.start + 1, n.end - 1, prefix + text}, nil
	}
	ind := outer + st.unit
	text, err := render(v, st, ind)
	if err != nil {
		return edit{}, err
	}
	if len(bytes.TrimSpace(inner)) == 0 {
		return edit{n.start + 1, n.end - 1, "\n" + ind + prefix + text + "\n" + outer}, nil
	}
	return edit{n.start + 1, n.start + 1, "\n" + ind + prefix + text}, nil // keep the comments inside
}

// removeItem returns the edit that takes item i out of its container, with
// the separator that belongs to it, so that removing an item appendItem
// added gives back the bytes from before.
func removeItem(src []byte, n *jnode, i int) edit {
	starts, ends := items(n)
	switch {
	case len(starts) == 1:
		return edit{n.start + 1, n.end - 1, ""}
	case i > 0:
		return edit{ends[i-1], ends[i], ""}
	default:
		return edit{starts[0], starts[1], ""}
	}
}

// errNotObject is a settings value of the wrong type at a path itr needs.
var errNotObject = errors.New("not of the expected type")
