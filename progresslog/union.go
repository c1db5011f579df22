package progresslog

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Union merges two versions of progress.md that grew from a common base,
// as a merge, a rebase or a cherry-pick of itr's log needs: the result is
// ours byte for byte, then every entry only theirs has, appended in
// theirs' order. Every entry of both sides is kept exactly once (entries
// are compared by their rendered form), the result is an append-only
// extension of ours, and the same inputs always give the same bytes. base
// is used only to report entries one side removed, which Union keeps.
//
// Union takes time linear in the size of its inputs: the result is built
// once, in one buffer. It fails only when an entry it must write again (one
// only theirs or the base has, or one of a conflicted ours) cannot be
// written so that it reads back the same, such as a malformed event
// heading. It trusts its inputs; StrictUnion is the merge driver's
// version, which refuses what is not an append-only log.
func Union(base, ours, theirs []byte) (merged []byte, added int, err error) {
	bl, ol, tl := parseKeyed(base, ours, theirs)
	if base == nil {
		bl = nil
	}
	merged, _, added, err = union(bl, ol, tl, ours, true, false)
	return merged, added, err
}

// parseKeyed parses and keys the three versions, ours and theirs each on
// its own goroutine (the two large ones; Parse is pure).
func parseKeyed(base, ours, theirs []byte) (bl, ol, tl *keyedLog) {
	done := make(chan struct{})
	go func() {
		tl = keyLog(Parse(theirs))
		close(done)
	}()
	ol = keyLog(Parse(ours))
	bl = keyLog(Parse(base))
	<-done
	return bl, ol, tl
}

// union is Union on parsed logs; oursRaw is the text ol was parsed from.
// It writes the merged text with withBytes, and returns the merged log's
// entries (as Parse reads them back, apart from Line) with withEntries.
func union(bl, ol, tl *keyedLog, oursRaw []byte, withBytes, withEntries bool) ([]byte, []Entry, int, error) {
	seen := make(map[string]bool, len(ol.keys)+len(tl.keys))
	var entries []Entry
	// add writes an entry and keeps it, as it will read back.
	add := func(w *logWriter, kl *keyedLog, i int) error {
		e := kl.log.Entries[i]
		c, err := canonical(e)
		if err != nil {
			return fmt.Errorf("line %d: %w", e.Line, err)
		}
		if withBytes {
			w.writeLines(renderEntryLines(c))
		}
		if withEntries {
			entries = append(entries, c)
		}
		return nil
	}
	var w *logWriter
	if ol.log.Conflicted || len(oursRaw) == 0 {
		// A side that is itself conflicted (or missing) is rebuilt from its
		// entries so the result holds no markers.
		w = newLogWriter(nil, progressTitle, 0)
		for i, k := range ol.keys {
			if seen[k] {
				continue
			}
			seen[k] = true
			if err := add(w, ol, i); err != nil {
				return nil, nil, 0, err
			}
		}
	} else {
		for _, k := range ol.keys {
			seen[k] = true
		}
		grow := 0
		for _, kl := range []*keyedLog{bl, tl} {
			if kl != nil && withBytes {
				for _, k := range kl.keys {
					grow += len(k) + 2
				}
			}
		}
		if withBytes {
			w = newLogWriter(oursRaw, progressTitle, grow)
		} else {
			w = &logWriter{}
		}
		if withEntries {
			entries = append(make([]Entry, 0, len(ol.keys)+len(tl.keys)), ol.log.Entries...)
		}
	}
	added := 0
	extra := func(kl *keyedLog) error {
		for i, k := range kl.keys {
			if seen[k] {
				continue
			}
			seen[k] = true
			if err := add(w, kl, i); err != nil {
				return err
			}
			added++
		}
		return nil
	}
	if bl != nil {
		// Entries the base had that ours lost (a rewrite on our side) are
		// kept too: nothing anyone wrote is dropped by a merge.
		if err := extra(bl); err != nil {
			return nil, nil, 0, err
		}
	}
	if err := extra(tl); err != nil {
		return nil, nil, 0, err
	}
	if !withBytes {
		return nil, entries, added, nil
	}
	return w.buf, entries, added, nil
}

// keyedLog is a parsed log with the key of each entry.
type keyedLog struct {
	log  *Log
	keys []string
}

func keyLog(l *Log) *keyedLog {
	kl := &keyedLog{log: l, keys: make([]string, len(l.Entries))}
	for i, e := range l.Entries {
		kl.keys[i] = entryKey(e)
	}
	return kl
}

// Key identifies an entry: two entries have the same key exactly when they
// are written the same (see entryKey). Merges, verify and reconcile compare
// entries by it.
func (e Entry) Key() string { return entryKey(e) }

// entryKey identifies an entry: two entries have the same key exactly when
// they are written the same (their canonical renderings are equal). It is
// built from the entry's content as canonical would leave it (the kind and
// title, the fields with values normalised, empty free text dropped, a
// free-text line that reads as a conflict marker escaped), without
// validating or rendering it: only the entries a merge writes are
// validated, when they are written.
func entryKey(e Entry) string {
	n := len(e.Heading) + len(e.Stamp) + 16
	for _, f := range e.Fields {
		n += len(f.Name) + len(f.Value) + 3
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteByte(byte('0' + e.Kind)) //nolint:gosec // G115: Kind is a small enumeration (one digit)
	b.WriteString(e.Title())
	for _, f := range e.Fields {
		v := normalizeValue(f.Value)
		if f.Name == "" {
			if v == "" {
				continue
			}
			if first, _, _ := strings.Cut(v, "\n"); markerOf(first) != notMarker {
				v = `\` + v
			}
		}
		b.WriteByte(0)
		b.WriteString(f.Name)
		b.WriteByte(1)
		b.WriteString(v)
	}
	return b.String()
}

// logWriter appends rendered entries to a log in place, writing exactly
// what a chain of Append (or AppendGuardrail) calls would, in time linear
// in what it writes.
type logWriter struct {
	buf     []byte
	title   string
	newline string // the log's line end once its first line is ended
}

// newLogWriter starts from a copy of old with room for grow more bytes.
func newLogWriter(old []byte, title string, grow int) *logWriter {
	buf := make([]byte, len(old), len(old)+max(grow, 0)+len(title)+64)
	copy(buf, old)
	return &logWriter{buf: buf, title: title}
}

// writeLines appends lines as appendLines does: the title into an empty
// log, else a line end if the last line has none and a blank line unless
// the last line is blank; then each line and a line end, in the newline
// style the log had before this call.
func (w *logWriter) writeLines(lines []string) {
	nl := w.lineEnd()
	if len(w.buf) == 0 {
		w.buf = append(w.buf, w.title...)
	} else {
		last := w.buf
		if n := len(last); last[n-1] == '\n' {
			last = last[:n-1]
		}
		if i := bytes.LastIndexByte(last, '\n'); i >= 0 {
			last = last[i+1:]
		}
		blank := isBlank(strings.TrimRight(string(last), "\r"))
		if w.buf[len(w.buf)-1] != '\n' {
			w.buf = append(w.buf, nl...)
		}
		if !blank {
			w.buf = append(w.buf, nl...)
		}
	}
	for _, l := range lines {
		w.buf = append(w.buf, l...)
		w.buf = append(w.buf, nl...)
	}
}

// lineEnd is appendLines' newline style: "\r\n" when the log's first line
// ends so, else "\n". Once the first line is ended it never changes, so it
// is looked up once.
func (w *logWriter) lineEnd() string {
	if w.newline != "" {
		return w.newline
	}
	i := bytes.IndexByte(w.buf, '\n')
	if i < 0 {
		return "\n"
	}
	w.newline = "\n"
	if i > 0 && w.buf[i-1] == '\r' {
		w.newline = "\r\n"
	}
	return w.newline
}

// UnionGuardrails merges two versions of guardrails.md: ours byte for byte,
// then every lesson only theirs has (compared by name, When, Problem and
// Solution), in theirs' order, in time linear in the inputs.
func UnionGuardrails(ours, theirs []byte) ([]byte, error) {
	return unionGuardrails(ParseGuardrails(ours), ParseGuardrails(theirs), ours)
}

func unionGuardrails(og, tg *Guardrails, oursRaw []byte) ([]byte, error) {
	seen := make(map[string]bool, len(og.Entries)+len(tg.Entries))
	for _, g := range og.Entries {
		seen[lessonKey(g)] = true
	}
	w := newLogWriter(oursRaw, guardrailsTitle, len(tg.Entries)*64)
	for _, g := range tg.Entries {
		k := lessonKey(g)
		if seen[k] {
			continue
		}
		seen[k] = true
		c, err := canonicalGuardrail(g)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", g.Line, err)
		}
		w.writeLines(renderGuardrailLines(c))
	}
	return w.buf, nil
}

// lessonKey is what makes two lessons the same for UnionGuardrails.
func lessonKey(g Guardrail) string {
	return g.Name + "\x00" + g.When + "\x00" + g.Problem + "\x00" + g.Solution
}

// The reasons StrictUnion and StrictUnionGuardrails refuse a version; the
// errors they return wrap one of these (test with errors.Is).
var (
	// ErrBinary means a NUL byte or bytes that are not UTF-8.
	ErrBinary = errors.New("binary data, not a log")
	// ErrNoEntries means a progress.md with text but no "## " entry heading.
	ErrNoEntries = errors.New("no entry headings (\"## ...\"), not a log")
	// ErrConflicted means git conflict markers: an unresolved merge committed.
	ErrConflicted = errors.New("holds git conflict markers (an unresolved merge was committed)")
	// ErrRewritten means an entry of the base (or its title) is there with
	// other text.
	ErrRewritten = errors.New("entries are append-only")
	// ErrRemoved means an entry of the base is not there.
	ErrRemoved = errors.New("entries are append-only")
)

// MergeError is why StrictUnion or StrictUnionGuardrails refused: which
// version ("base", "ours" or "theirs") and what is wrong with it.
type MergeError struct {
	Version string
	Err     error
}

// Error reads like `theirs: rewrote entry "T1 - Iteration 1 - …" of the
// base (line 7, now line 7): entries are append-only`.
func (e *MergeError) Error() string { return e.Version + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *MergeError) Unwrap() error { return e.Err }

// StrictUnion is Union for a merge driver, which must not guess: it
// refuses (with a *MergeError) when a version is not text (a NUL byte,
// bytes that are not UTF-8), when ours or theirs has text but no entry or
// holds conflict markers, and when ours or theirs is not an extension of
// the base: every entry of the base must still be in it with the same
// text, and the text before the first entry must be the same (up to
// trailing blank lines). An empty or missing (nil) base is an add on both
// sides and checks nothing. Otherwise the result is Union's.
//
// Entries are compared, not bytes: after a merge the merged log extends
// ours but not theirs, so a later merge or rebase sees sides that are no
// byte extension of their base yet lose nothing.
func StrictUnion(base, ours, theirs []byte) ([]byte, error) {
	merged, _, err := strictUnion(base, ours, theirs, true, false)
	return merged, err
}

// StrictUnionEntries is StrictUnion for a caller that folds the merged log
// rather than writing it: it checks the same and returns the merged log's
// entries, as Parse would read them from StrictUnion's result (apart from
// Line), without writing the text.
func StrictUnionEntries(base, ours, theirs []byte) ([]Entry, error) {
	_, entries, err := strictUnion(base, ours, theirs, false, true)
	return entries, err
}

func strictUnion(base, ours, theirs []byte, withBytes, withEntries bool) ([]byte, []Entry, error) {
	for _, v := range []struct {
		name string
		data []byte
	}{{"base", base}, {"ours", ours}, {"theirs", theirs}} {
		if err := CheckText(v.data); err != nil {
			return nil, nil, &MergeError{v.name, err}
		}
	}
	bl, ol, tl := parseKeyed(base, ours, theirs)
	for _, s := range []struct {
		name string
		raw  []byte
		kl   *keyedLog
	}{{"ours", ours, ol}, {"theirs", theirs, tl}} {
		switch {
		case s.kl.log.Conflicted:
			return nil, nil, &MergeError{s.name, ErrConflicted}
		case len(s.kl.log.Entries) == 0 && len(bytes.TrimSpace(s.raw)) > 0:
			return nil, nil, &MergeError{s.name, ErrNoEntries}
		}
		if err := extends(bl.log.Preamble, s.kl.log.Preamble, bl.log.Entries, bl.keys, s.kl.log.Entries, s.kl.keys, "entry"); err != nil {
			return nil, nil, &MergeError{s.name, err}
		}
	}
	merged, entries, _, err := union(bl, ol, tl, ours, withBytes, withEntries)
	return merged, entries, err
}

// StrictUnionGuardrails is UnionGuardrails for a merge driver: like
// StrictUnion it refuses a version that is not text, a side that holds
// conflict markers, and a side that rewrote or removed a lesson of the base
// or changed the text before the first lesson. A guardrails.md may have no
// lesson (a new task's has none).
func StrictUnionGuardrails(base, ours, theirs []byte) ([]byte, error) {
	og, tg, err := strictFieldUnion[Guardrail](base, ours, theirs, "lesson")
	if err != nil {
		return nil, err
	}
	return unionGuardrails(&Guardrails{Entries: og.entries}, &Guardrails{Entries: tg.entries}, ours)
}

// extends checks that a side keeps the base's preamble and every one of
// its entries (given with their keys); what names an entry in messages.
func extends(basePre, sidePre string, base []Entry, baseKeys []string, side []Entry, sideKeys []string, what string) error {
	if len(base) == 0 && strings.TrimSpace(basePre) == "" {
		return nil // nothing to keep: an add on both sides
	}
	have := make(map[string]bool, len(sideKeys))
	for _, k := range sideKeys {
		have[k] = true
	}
	for i, k := range baseKeys {
		if have[k] {
			continue
		}
		e := base[i]
		inBase := make(map[string]bool, len(baseKeys))
		for _, k := range baseKeys {
			inBase[k] = true
		}
		for j, s := range side {
			if s.Heading == e.Heading && !inBase[sideKeys[j]] {
				return fmt.Errorf("rewrote %s %q of the base (line %d, now line %d): %w",
					what, shorten(e.Heading, 60), e.Line, s.Line, ErrRewritten)
			}
		}
		return fmt.Errorf("lacks %s %q of the base (line %d): %w", what, shorten(e.Heading, 60), e.Line, ErrRemoved)
	}
	trim := func(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }
	if trim(basePre) != trim(sidePre) {
		return fmt.Errorf("changed the text before the first %s (the title) of the base: %w", what, ErrRewritten)
	}
	return nil
}

// CheckText returns an error wrapping ErrBinary when data holds a NUL byte
// or is not UTF-8, naming the line; nil otherwise.
func CheckText(data []byte) error {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return fmt.Errorf("a NUL byte on line %d: %w", bytes.Count(data[:i], []byte("\n"))+1, ErrBinary)
	}
	if utf8.Valid(data) {
		return nil
	}
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return fmt.Errorf("bytes that are not UTF-8 on line %d: %w", bytes.Count(data[:i], []byte("\n"))+1, ErrBinary)
		}
		i += n
	}
	return nil
}
