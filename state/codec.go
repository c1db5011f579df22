package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrConflict means state.json holds git conflict markers.
var ErrConflict = errors.New("holds git conflict markers")

// ErrNewerSchema means state.json was written by a newer itr (its
// schema_version is above CurrentSchema): this itr must not read or
// rewrite it.
var ErrNewerSchema = errors.New("written by a newer itr")

// DecodeError is a problem with one value of state.json. Path is the JSON
// path of the value (tasks.T3.status); Line is set for syntax errors.
type DecodeError struct {
	Path string
	Line int
	Col  int
	Msg  string
	Err  error
}

// Error reads like `tasks.T3.status: "finished" is not a status (one of ...)`.
func (e *DecodeError) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
	case e.Path != "":
		return e.Path + ": " + e.Msg
	}
	return e.Msg
}

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

// Canonical key orders; Encode places keys it adds relative to these.
var (
	topKeysDev  = []string{"schema_version", "task", "slug", "mode", "domain", "created", "updated", "phase", "paused", "approval", "outcome", "current_task", "current_iteration", "tasks", "commits"}
	topKeysKnow = []string{"schema_version", "task", "slug", "mode", "domain", "created", "updated", "phase", "paused", "approval", "outcome", "current_phase", "current_iteration", "phases", "commits"}
	unitKeys    = []string{"status", "reason", "reason_kind", "clear_when", "iterations_used", "confirmations_used", "restarts", "verification_passed", "max_iterations", "progress", "progress_detail", "started_at", "completed_at", "verified_by", "last_run", "checks", "gate_rounds", "items", "metrics", "outputs"}
)

func topKeys(m Mode) []string {
	if m == Knowledge {
		return topKeysKnow
	}
	return topKeysDev
}

// Decode parses and validates state.json. Every key is kept: unknown keys
// with their raw values and their place. Errors name the JSON path and the
// fix; a file with conflict markers gives an error wrapping ErrConflict.
func Decode(data []byte) (*State, error) {
	if line := conflictLine(data); line > 0 {
		return nil, &DecodeError{Line: line, Col: 1, Msg: "git conflict marker: run `itr reconcile` to rebuild state.json", Err: ErrConflict}
	}
	kvs, err := decodeObject(data, "")
	if err != nil {
		return nil, err
	}
	s := &State{Units: map[string]*Unit{}}
	// The schema version decides whether the rest can be read at all, and
	// the mode which keys hold the units, so read both first.
	s.Mode = Development
	for _, kv := range kvs {
		if kv.key == "schema_version" {
			v, err := decodeCount(kv.key, kv.raw)
			if err != nil {
				return nil, err
			}
			if *v > CurrentSchema {
				return nil, &DecodeError{Path: "schema_version", Err: ErrNewerSchema, Msg: fmt.Sprintf(
					"%d is newer than this itr reads (%d): the file was %s; upgrade itr to read or change it", *v, CurrentSchema, ErrNewerSchema)}
			}
			s.SchemaVersion = *v
		}
		if kv.key == "mode" {
			var m string
			if err := json.Unmarshal(kv.raw, &m); err != nil {
				return nil, typeErr("mode", kv.raw, "a string")
			}
			mode, err := ParseMode(m)
			if err != nil {
				return nil, &DecodeError{Path: "mode", Msg: err.Error(), Err: err}
			}
			s.Mode = mode
		}
	}
	seen := map[string]bool{}
	for _, kv := range kvs {
		seen[kv.key] = true
		s.extra.order = append(s.extra.order, kv.key)
		if err := s.decodeKey(kv); err != nil {
			return nil, err
		}
	}
	for _, k := range []string{"task", "slug", "mode", "phase"} {
		if !seen[k] {
			return nil, &DecodeError{Path: k, Msg: "missing (every state.json has task, slug, mode and phase)"}
		}
	}
	if s.Current != nil && *s.Current != "" && s.Units[*s.Current] == nil {
		return nil, &DecodeError{Path: s.Mode.CurrentKey(), Msg: fmt.Sprintf("%q is not a unit of %s", *s.Current, s.Mode.UnitsKey())}
	}
	return s, nil
}

func (s *State) decodeKey(kv keyValue) error {
	var err error
	switch kv.key {
	case "task":
		err = decodeString(kv, &s.Task)
	case "slug":
		err = decodeString(kv, &s.Slug)
	case "mode", "schema_version":
		// Read above.
	case "domain":
		s.Domain, err = decodeOptString(kv)
	case "created":
		s.Created, err = decodeTime(kv.key, kv.raw)
	case "updated":
		s.Updated, err = decodeTime(kv.key, kv.raw)
	case "phase":
		var p string
		if err = decodeString(kv, &p); err == nil {
			s.Phase, err = ParsePhase(p)
			if err != nil {
				return &DecodeError{Path: "phase", Msg: err.Error(), Err: err}
			}
		}
	case "paused":
		s.Paused, err = decodePause(kv.key, kv.raw)
	case "approval":
		s.Approval, err = decodeApproval(kv.key, kv.raw)
	case "outcome":
		s.Outcome, err = decodeOutcome(kv.key, kv.raw)
	case s.Mode.CurrentKey():
		s.Current, err = decodeOptString(kv)
	case "current_iteration":
		s.CurrentIteration, err = decodeCount(kv.key, kv.raw)
	case s.Mode.UnitsKey():
		err = s.decodeUnits(kv)
	case "commits":
		var cs []string
		if uerr := json.Unmarshal(kv.raw, &cs); uerr != nil || cs == nil {
			return typeErr(kv.key, kv.raw, "a list of strings")
		}
		s.Commits = cs
	default:
		s.extra.setUnknown(kv.key, kv.raw)
	}
	return err
}

func (s *State) decodeUnits(kv keyValue) (err error) {
	// The units' IDs are told apart by the map they go into, not by a
	// second set of them as the object is split: a unit whose ID came
	// before is refused where it is put in.
	units, ok, _ := splitObjectKeys(kv.raw)
	if !ok {
		if units, err = decodeObject(kv.raw, kv.key); err != nil {
			return err
		}
	}
	ids := make([]string, 0, len(units))
	defer func() {
		// Distinct (the map took each once) and in natural order: IDs may
		// return them without sorting.
		if len(ids) == len(s.Units) && slices.IsSortedFunc(ids, CompareIDs) {
			s.decodedIDs = ids
		}
	}()
	if len(s.Units) == 0 {
		s.Units = make(map[string]*Unit, len(units))
	}
	var a unitArena
	a.units = make([]Unit, len(units))
	var fields []keyValue // one unit's keys at a time
	for i, ukv := range units {
		ids = append(ids, ukv.key)
		if ukv.key == "" {
			return &DecodeError{Path: kv.key + "." + ukv.key, Msg: "a unit needs an ID such as T1"}
		}
		// The unit's path is built only for an error, or a key that
		// decodePlain leaves to decodeField.
		fields, err = a.split(fields[:0], ukv.raw, kv.key, ukv.key)
		if err != nil {
			return err
		}
		u := &a.units[i]
		u.ID = ukv.key
		u.extra.order = a.keys(len(fields))
		hasStatus := false
		for _, f := range fields {
			u.extra.order = append(u.extra.order, f.key)
			if f.key == "status" {
				hasStatus = true
			}
			if u.decodePlain(f, &a) {
				continue
			}
			fp := kv.key + "." + ukv.key + "." + f.key
			if err := u.decodeField(fp, f); err != nil {
				return err
			}
		}
		if !hasStatus {
			return &DecodeError{Path: kv.key + "." + ukv.key + ".status", Msg: fmt.Sprintf("missing (one of %s)", joinStatuses(Statuses))}
		}
		if s.Units[u.ID] = u; len(s.Units) != i+1 {
			return &DecodeError{Path: join(kv.key, ukv.key), Msg: "the key appears twice (keep one)"}
		}
	}
	return nil
}

// unitArena holds what decodeUnits makes for many units at once: the
// units themselves, their counts and the slices of their keys' order, so
// that a state.json of 100,000 units is read with a few allocations per
// thousand units, not a dozen per unit.
type unitArena struct {
	units []Unit
	ints  []int
	order []string
}

// split is splitObject of the raw object of unit id (under key) into
// buf. The quick split names no path; when it cannot read the object or
// finds a fault, decodeObject reads it again and names the fault at the
// unit's path.
func (a *unitArena) split(buf []keyValue, raw []byte, key, id string) ([]keyValue, error) {
	kvs, ok, err := splitObjectInto(buf, raw, "")
	if ok && err == nil {
		return kvs, nil
	}
	return decodeObject(raw, key+"."+id)
}

// count is a pointer to n, from the arena.
func (a *unitArena) count(n int) *int {
	if len(a.ints) == cap(a.ints) {
		a.ints = make([]int, 0, 4096)
	}
	a.ints = append(a.ints, n)
	return &a.ints[len(a.ints)-1]
}

// keys is an empty slice with room for n keys, from the arena: a unit's
// order is appended to it in place, and capped there so that an append
// past n copies.
func (a *unitArena) keys(n int) []string {
	if n > cap(a.order)-len(a.order) {
		a.order = make([]string, 0, max(8192, n))
	}
	start := len(a.order)
	a.order = a.order[:start+n]
	return a.order[start : start : start+n]
}

// decodePlain decodes the keys every unit has (its status and counts)
// when their values are plain (a known status, a whole number), without
// building the key's path, which only an error needs; false leaves the
// key to decodeField.
func (u *Unit) decodePlain(f keyValue, a *unitArena) bool {
	switch f.key {
	case "status":
		raw := f.raw
		if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
			return false
		}
		for _, st := range Statuses {
			if string(raw[1:len(raw)-1]) == string(st) {
				u.Status = st
				return true
			}
		}
		return false
	case "iterations_used", "confirmations_used", "max_iterations", "restarts":
		n, ok := plainCount(f.raw)
		if !ok || n == 0 && f.key == "max_iterations" {
			return false
		}
		switch p := a.count(n); f.key {
		case "iterations_used":
			u.IterationsUsed = p
		case "confirmations_used":
			u.ConfirmationsUsed = p
		case "max_iterations":
			u.MaxIterations = p
		default:
			u.Restarts = p
		}
		return true
	}
	return false
}

// plainCount is the whole number raw holds when it is digits alone (at
// most nine of them), as decodeCount would read it.
func plainCount(raw []byte) (int, bool) {
	if len(raw) == 0 || len(raw) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// decodeField decodes one key of a unit at path fp; a key itr does not
// know is kept as it was.
func (u *Unit) decodeField(fp string, f keyValue) error {
	var err error
	switch f.key {
	case "status":
		var st string
		if err = decodeString(keyValue{fp, f.raw}, &st); err == nil {
			u.Status, err = ParseStatus(st)
			if err != nil {
				return &DecodeError{Path: fp, Msg: err.Error(), Err: err}
			}
		}
	case "reason":
		u.Reason, err = decodeOptString(keyValue{fp, f.raw})
	case "reason_kind":
		u.ReasonKind, err = decodeOptString(keyValue{fp, f.raw})
	case "clear_when":
		u.ClearWhen, err = decodeOptString(keyValue{fp, f.raw})
	case "iterations_used":
		u.IterationsUsed, err = decodeCount(fp, f.raw)
	case "confirmations_used":
		u.ConfirmationsUsed, err = decodeCount(fp, f.raw)
	case "max_iterations":
		u.MaxIterations, err = decodeCount(fp, f.raw)
		if err == nil && *u.MaxIterations == 0 {
			err = &DecodeError{Path: fp, Msg: "0 is not a limit (use a whole number of at least 1, or remove the key)"}
		}
	case "verification_passed":
		var b bool
		if json.Unmarshal(f.raw, &b) != nil || bytes.Equal(bytes.TrimSpace(f.raw), []byte("null")) {
			return typeErr(fp, f.raw, "true or false")
		}
		u.VerificationPassed = &b
	case "completed_at":
		u.CompletedAt, err = decodeTime(fp, f.raw)
	case "started_at":
		u.StartedAt, err = decodeTime(fp, f.raw)
	case "restarts":
		u.Restarts, err = decodeCount(fp, f.raw)
	case "verified_by":
		u.VerifiedBy, err = decodeOptString(keyValue{fp, f.raw})
	case "progress":
		u.Progress, err = decodeOptString(keyValue{fp, f.raw})
	case "progress_detail":
		u.ProgressDetail, err = decodeOptString(keyValue{fp, f.raw})
	case "last_run":
		u.LastRun, err = decodeRun(fp, f.raw)
	case "checks":
		u.Checks, err = decodeChecks(fp, f.raw)
	case "gate_rounds":
		u.GateRounds, err = decodeGateRounds(fp, f.raw)
	case "items":
		u.Items, err = decodeItems(fp, f.raw)
	case "metrics":
		u.Metrics, err = decodeMetrics(fp, f.raw)
	case "outputs":
		u.Outputs, err = decodePins(fp, f.raw)
	default:
		u.extra.setUnknown(f.key, f.raw)
	}
	return err
}

func (o *object) setUnknown(key string, raw json.RawMessage) {
	if o.unknown == nil {
		o.unknown = map[string]json.RawMessage{}
	}
	o.unknown[key] = append(json.RawMessage(nil), raw...)
}

type keyValue struct {
	key string
	raw json.RawMessage
}

// decodeObject reads one JSON object into its keys and raw values, in order.
func decodeObject(data []byte, path string) ([]keyValue, error) {
	if path != "" {
		// A value inside the document, whose syntax the pass over the
		// whole document has checked: split it without a decoder, which
		// keeps a state.json of 10,000 units quick to read.
		if kvs, ok, err := splitObject(data, path); ok {
			return kvs, err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxErr(data, dec, path, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		what := "state.json"
		if path != "" {
			what = path
		}
		return nil, &DecodeError{Path: path, Msg: fmt.Sprintf("%s must be a JSON object, found %s", what, describe(data))}
	}
	var kvs []keyValue
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxErr(data, dec, path, err)
		}
		key := tok.(string)
		if seen[key] {
			return nil, &DecodeError{Path: join(path, key), Msg: "the key appears twice (keep one)"}
		}
		seen[key] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxErr(data, dec, path, err)
		}
		kvs = append(kvs, keyValue{key, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntaxErr(data, dec, path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		line, col := lineCol(data, off)
		return nil, &DecodeError{Line: line, Col: col, Msg: "text after the end of the JSON object"}
	}
	return kvs, nil
}

// splitObject splits a JSON object whose syntax is known to be valid into
// its keys and raw values, as decodeObject does, with a duplicate key an
// error. ok is false when data is not an object; the caller then reports
// it.
func splitObject(data []byte, path string) (kvs []keyValue, ok bool, err error) {
	return splitObjectInto(nil, data, path)
}

// splitObjectKeys is splitObject of an object whose keys its caller tells
// apart itself: a key given twice is not looked for.
func splitObjectKeys(data []byte) ([]keyValue, bool, error) {
	return splitKeys(nil, data, "", false)
}

// splitObjectInto is splitObject appending the keys to kvs.
func splitObjectInto(kvs []keyValue, data []byte, path string) ([]keyValue, bool, error) {
	return splitKeys(kvs, data, path, true)
}

// splitKeys is splitObjectInto, looking for a key given twice when
// distinct is set.
func splitKeys(kvs []keyValue, data []byte, path string, distinct bool) ([]keyValue, bool, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false, nil
	}
	var seen map[string]bool // the keys, once there are more than a few
	start := len(kvs)
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return kvs, true, nil
	}
	for i < len(data) {
		end := stringEnd(data, i)
		key, plain := plainKey(data[i:end])
		if !plain {
			key = unquote(data[i:end])
			if key == "" && end-i != 2 {
				return nil, false, nil
			}
		}
		if distinct && twice(kvs[start:], &seen, key) {
			return nil, true, &DecodeError{Path: join(path, key), Msg: "the key appears twice (keep one)"}
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return nil, false, nil
		}
		i = skipSpace(data, i+1)
		vend := valueEnd(data, i)
		kvs = append(kvs, keyValue{key, json.RawMessage(data[i:vend])})
		i = skipSpace(data, vend)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
			continue
		}
		return kvs, i < len(data) && data[i] == '}', nil
	}
	return nil, false, nil
}

// twice reports whether key is among the keys of kvs, the keys read so
// far: a scan while they are few, then the set *seen, which it makes
// and fills.
func twice(kvs []keyValue, seenp *map[string]bool, key string) bool {
	const few = 8
	if len(kvs) < few {
		for _, kv := range kvs {
			if kv.key == key {
				return true
			}
		}
		return false
	}
	if *seenp == nil {
		*seenp = make(map[string]bool, 2*len(kvs))
		for _, kv := range kvs {
			(*seenp)[kv.key] = true
		}
	}
	seen := *seenp
	if seen[key] {
		return true
	}
	seen[key] = true
	return false
}

// plainString is the JSON string raw holds when it is plain: printable
// ASCII between its quotes, without a backslash, so that it means its
// bytes as they are (what json.Unmarshal would give, without its cost).
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	for _, c := range inner {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(inner), true
}

// unquote is the JSON string raw, "" when it is not one. It is apart
// from its callers so that the string it decodes into is made only for
// the keys that need it.
func unquote(raw []byte) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// plainKey is plainString of a key: the keys a unit has are the same few
// strings in every unit, and come back as those strings, not copies (a
// state.json of 100,000 units holds half a million of them). unitKeys
// lists them.
func plainKey(raw []byte) (string, bool) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		inner := raw[1 : len(raw)-1]
		for _, k := range unitKeys {
			if len(k) == len(inner) && bytes.Equal(inner, []byte(k)) {
				return k, true
			}
		}
	}
	return plainString(raw)
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index after the string that starts at data[i] ('"').
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(data)
}

// valueEnd is the index after the JSON value that starts at data[i].
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				j = stringEnd(data, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(data)
	}
	j := i
	for j < len(data) && !strings.ContainsRune(",}] \t\r\n", rune(data[j])) {
		j++
	}
	return j
}

func syntaxErr(data []byte, dec *json.Decoder, path string, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if path != "" {
		// Values are decoded from raw sub-slices; their syntax was checked
		// when the top level was read, so this is a shape problem.
		return &DecodeError{Path: path, Msg: err.Error(), Err: err}
	}
	line, col := lineCol(data, off)
	msg := err.Error()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of file (the file is truncated)"
	}
	return &DecodeError{Line: line, Col: col, Msg: msg + " (fix the JSON, or run `itr reconcile` to rebuild it)", Err: err}
}

func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

func conflictLine(data []byte) int {
	line := 1
	for len(data) > 0 {
		if bytes.HasPrefix(data, []byte("<<<<<<< ")) || bytes.HasPrefix(data, []byte(">>>>>>> ")) ||
			bytes.Equal(bytes.TrimRight(firstLine(data), "\r"), []byte("=======")) {
			return line
		}
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		data = data[i+1:]
		line++
	}
	return 0
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func describe(raw []byte) string {
	s := strings.TrimSpace(string(raw))
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

func typeErr(path string, raw json.RawMessage, want string) error {
	return &DecodeError{Path: path, Msg: fmt.Sprintf("%s is not %s", describe(raw), want)}
}

func decodeString(kv keyValue, dst *string) error {
	if v, ok := plainString(kv.raw); ok {
		*dst = v
		return nil
	}
	if json.Unmarshal(kv.raw, dst) != nil || bytes.Equal(bytes.TrimSpace(kv.raw), []byte("null")) {
		return typeErr(kv.key, kv.raw, "a string")
	}
	return nil
}

func decodeOptString(kv keyValue) (*string, error) {
	var s string
	if err := decodeString(kv, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

func decodeCount(path string, raw json.RawMessage) (*int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || n < 0 {
		return nil, typeErr(path, raw, "a whole number of 0 or more")
	}
	return &n, nil
}

func decodeTime(path string, raw json.RawMessage) (*string, error) {
	var s string
	if err := decodeString(keyValue{path, raw}, &s); err != nil {
		return nil, err
	}
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		return nil, &DecodeError{Path: path, Msg: fmt.Sprintf("%q is not an RFC 3339 time such as 2026-01-14T10:30:00Z", s)}
	}
	return &s, nil
}

// Encode writes the canonical form: 2-space indent, units in natural order,
// keys in the order they were decoded (known keys that are new take their
// canonical place), unknown values kept, a final newline. Encode of a
// decoded Encode is the same bytes.
func (s *State) Encode() []byte {
	var b bytes.Buffer
	present := map[string]any{}
	put := func(k string, v any, ok bool) {
		if ok {
			present[k] = v
		}
	}
	put("schema_version", s.SchemaVersion, s.SchemaVersion > 0)
	put("task", s.Task, true)
	put("slug", s.Slug, true)
	put("mode", string(s.Mode), true)
	put("domain", s.Domain, s.Domain != nil)
	put("created", s.Created, s.Created != nil)
	put("updated", s.Updated, s.Updated != nil)
	put("phase", string(s.Phase), true)
	put("paused", s.Paused, s.Paused != nil)
	put("approval", s.Approval, s.Approval != nil)
	put("outcome", s.Outcome, s.Outcome != nil)
	put(s.Mode.CurrentKey(), s.Current, s.Current != nil)
	put("current_iteration", s.CurrentIteration, s.CurrentIteration != nil)
	put(s.Mode.UnitsKey(), unitsValue{s}, true)
	put("commits", s.Commits, s.Commits != nil)
	writeObject(&b, "", s.extra, topKeys(s.Mode), present)
	b.WriteByte('\n')
	return b.Bytes()
}

type unitsValue struct{ s *State }

// field is one known key of a unit and its typed value.
type field struct {
	key string
	val any
}

// known returns the unit's known keys that are set, in the canonical
// order of unitKeys, each with its typed value.
func (u *Unit) known() []field {
	fs := make([]field, 0, 4)
	add := func(k string, v any) { fs = append(fs, field{k, v}) }
	add("status", string(u.Status))
	if u.Reason != nil {
		add("reason", *u.Reason)
	}
	if u.ReasonKind != nil {
		add("reason_kind", *u.ReasonKind)
	}
	if u.ClearWhen != nil {
		add("clear_when", *u.ClearWhen)
	}
	if u.IterationsUsed != nil {
		add("iterations_used", *u.IterationsUsed)
	}
	if u.ConfirmationsUsed != nil {
		add("confirmations_used", *u.ConfirmationsUsed)
	}
	if u.Restarts != nil {
		add("restarts", *u.Restarts)
	}
	if u.VerificationPassed != nil {
		add("verification_passed", *u.VerificationPassed)
	}
	if u.MaxIterations != nil {
		add("max_iterations", *u.MaxIterations)
	}
	if u.Progress != nil {
		add("progress", *u.Progress)
	}
	if u.ProgressDetail != nil {
		add("progress_detail", *u.ProgressDetail)
	}
	if u.StartedAt != nil {
		add("started_at", *u.StartedAt)
	}
	if u.CompletedAt != nil {
		add("completed_at", *u.CompletedAt)
	}
	if u.VerifiedBy != nil {
		add("verified_by", *u.VerifiedBy)
	}
	return u.knownValues(fs)
}

// knownValues appends the unit's structured known keys that are set to fs,
// in the order of unitKeys.
func (u *Unit) knownValues(fs []field) []field {
	if u.LastRun != nil {
		fs = append(fs, field{"last_run", u.LastRun})
	}
	if u.Checks != nil {
		fs = append(fs, field{"checks", checksValue(u.Checks)})
	}
	if u.GateRounds != nil {
		fs = append(fs, field{"gate_rounds", u.GateRounds})
	}
	if u.Items != nil {
		fs = append(fs, field{"items", u.Items})
	}
	if u.Metrics != nil {
		fs = append(fs, field{"metrics", metricsValue(u.Metrics)})
	}
	if u.Outputs != nil {
		fs = append(fs, field{"outputs", pinsValue(u.Outputs)})
	}
	return fs
}

// canonical reports whether the keys the unit writes are fs in their order:
// no unknown key, and the decoded order (if any) is exactly fs's keys.
func (u *Unit) canonical(fs []field) bool {
	if len(u.extra.unknown) > 0 {
		return false
	}
	if len(u.extra.order) == 0 {
		return true
	}
	if len(u.extra.order) != len(fs) {
		return false
	}
	for i, f := range fs {
		if u.extra.order[i] != f.key {
			return false
		}
	}
	return true
}

// writeUnit writes a unit: inline when it has not started, else as an
// object; a unit whose keys are the canonical ones in their order (every
// unit a plan adds) is written from its fields without building the key
// order.
func writeUnit(b *bytes.Buffer, indent string, u *Unit) {
	fs := u.known()
	if !u.canonical(fs) {
		m := make(map[string]any, len(fs))
		for _, f := range fs {
			m[f.key] = f.val
		}
		if u.inline() {
			writeInline(b, keyOrder(u.extra, unitKeys, m), m, u.extra)
			return
		}
		writeObject(b, indent, u.extra, unitKeys, m)
		return
	}
	if u.inline() {
		b.WriteString("{ ")
		for i, f := range fs {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, f.key)
			b.WriteString(": ")
			writeValue(b, "", f.val)
		}
		b.WriteString(" }")
		return
	}
	inner := indent + "  "
	b.WriteString("{\n")
	for i, f := range fs {
		b.WriteString(inner)
		writeString(b, f.key)
		b.WriteString(": ")
		writeValue(b, inner, f.val)
		if i < len(fs)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent)
	b.WriteByte('}')
}

// writeUnits writes the units object: every unit in natural order (a new
// state's units are all new keys, each in its canonical place).
func writeUnits(b *bytes.Buffer, indent string, s *State) {
	ids, units := s.Ordered()
	if len(ids) == 0 {
		b.WriteString("{}")
		return
	}
	inner := indent + "  "
	b.WriteString("{\n")
	for i, id := range ids {
		b.WriteString(inner)
		writeString(b, id)
		b.WriteString(": ")
		writeUnit(b, inner, units[i])
		if i < len(ids)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent)
	b.WriteByte('}')
}

// writeObject writes an object whose known keys are in present (a typed
// value each) and whose unknown keys come from o.
func writeObject(b *bytes.Buffer, indent string, o object, canon []string, present map[string]any) {
	keys := keyOrder(o, canon, present)
	if len(keys) == 0 {
		b.WriteString("{}")
		return
	}
	inner := indent + "  "
	b.WriteString("{\n")
	for i, k := range keys {
		b.WriteString(inner)
		writeString(b, k)
		b.WriteString(": ")
		if v, ok := present[k]; ok {
			writeValue(b, inner, v)
		} else {
			writeRaw(b, inner, o.unknown[k])
		}
		if i < len(keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent)
	b.WriteByte('}')
}

// keyOrder keeps the decoded order of the keys still present and puts each
// new known key right after its nearest canonical predecessor (the nearest
// one before it in canon that is kept or was put in before it), or first
// when it has none. It is linear: each key has at most one new key put
// right after it (a later new key finds that one nearer), so the new keys
// form chains hanging after the kept keys, walked once.
func keyOrder(o object, canon []string, present map[string]any) []string {
	in := map[string]bool{}
	var kept []string
	for _, k := range o.order {
		_, known := present[k]
		_, unknown := o.unknown[k]
		if (known || unknown) && !in[k] {
			kept = append(kept, k)
			in[k] = true
		}
	}
	after := map[string]string{} // a key -> the new key put right after it
	first, last, added := "", "", 0
	for _, k := range canon {
		if in[k] {
			last = k
			continue
		}
		if _, ok := present[k]; !ok {
			continue
		}
		if last == "" {
			first = k // only the first new key can have no predecessor
		} else {
			after[last] = k
		}
		in[k] = true
		last = k
		added++
	}
	if added == 0 {
		return kept
	}
	keys := make([]string, 0, len(kept)+added)
	chain := func(k string) {
		for ; k != ""; k = after[k] {
			keys = append(keys, k)
		}
	}
	chain(first)
	for _, k := range kept {
		keys = append(keys, k)
		chain(after[k])
	}
	return keys
}

func writeValue(b *bytes.Buffer, indent string, v any) {
	switch v := v.(type) {
	case string:
		writeString(b, v)
	case *string:
		writeString(b, *v)
	case int:
		b.WriteString(strconv.Itoa(v))
	case *int:
		b.WriteString(strconv.Itoa(*v))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case []string:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, s := range v {
			b.WriteString(indent + "  ")
			writeString(b, s)
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case unitsValue:
		writeUnits(b, indent, v.s)
	case *Run:
		writeRaw(b, indent, v.encode())
	case checksValue:
		v.write(b, indent)
	case *GateRounds:
		writeRaw(b, indent, plainJSON(v))
	case *Pause:
		writeRaw(b, indent, v.encode())
	case *Approval:
		writeRaw(b, indent, v.encode())
	case *Outcome:
		writeRaw(b, indent, v.encode())
	case *Items:
		v.write(b, indent)
	case itemList:
		writeItemList(b, v)
	case itemStatesValue:
		v.write(b, indent)
	case itemValuesValue:
		v.write(b, indent)
	case valueLine:
		v.write(b)
	case metricsValue:
		v.write(b, indent)
	case pinsValue:
		v.write(b, indent)
	case numberText:
		b.WriteString(string(v))
	case *Unit:
		writeUnit(b, indent, v)
	}
}

// inline reports whether the unit is written on one line, as the seed
// writes units that have not started: `"T4": { "status": "pending", "max_iterations": 5 }`.
// That is a unit with no iterations_used whose unknown values are scalars.
func (u *Unit) inline() bool {
	if u.IterationsUsed != nil || u.LastRun != nil || u.Items != nil || u.Metrics != nil || u.Checks != nil || u.Outputs != nil {
		return false
	}
	for _, raw := range u.extra.unknown {
		if t := bytes.TrimSpace(raw); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
			return false
		}
	}
	return true
}

func writeInline(b *bytes.Buffer, keys []string, known map[string]any, o object) {
	b.WriteString("{ ")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		writeString(b, k)
		b.WriteString(": ")
		if v, ok := known[k]; ok {
			writeValue(b, "", v)
		} else {
			b.Write(bytes.TrimSpace(o.unknown[k]))
		}
	}
	b.WriteString(" }")
}

// writeString writes s as a JSON string without HTML escaping.
func writeString(b *bytes.Buffer, s string) {
	if plainASCII(s) {
		b.Grow(len(s) + 2)
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	var tmp bytes.Buffer
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimRight(tmp.Bytes(), "\n"))
}

// plainASCII reports whether s is printable ASCII with no quote or
// backslash: a JSON string that needs no escape.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// writeRaw writes an unknown value re-indented to its depth.
func writeRaw(b *bytes.Buffer, indent string, raw json.RawMessage) {
	var out bytes.Buffer
	if err := json.Indent(&out, raw, indent, "  "); err != nil {
		b.Write(bytes.TrimSpace(raw)) // checked by Decode; unreachable in practice
		return
	}
	b.Write(out.Bytes())
}
