package state

import (
	"encoding/json"
	"slices"
)

// Unit is one task (development mode) or phase (knowledge mode) of
// state.json. Optional fields are pointers: nil means the key is absent, so
// a decoded file re-encodes with exactly the keys it had.
type Unit struct {
	ID                 string
	Status             Status
	Reason             *string
	IterationsUsed     *int
	ConfirmationsUsed  *int
	VerificationPassed *bool
	MaxIterations      *int
	CompletedAt        *string
	// VerifiedBy names the person or external check that verified the
	// unit, when no run of itr's did (verified_by).
	VerifiedBy *string
	// LastRun is the unit's last verification run (last_run).
	LastRun *Run
	// Progress is the unit's own progress as its last entry that gave one
	// said ("40%"), with ProgressDetail (progress, progress_detail).
	Progress, ProgressDetail *string
	// ReasonKind is what a failed or blocked unit needs to go on, one of
	// BlockKinds (reason_kind); ClearWhen says when a block is over
	// (clear_when). Reason holds the reason itself.
	ReasonKind, ClearWhen *string
	// Items is the unit's item ledger (items): the items its iterations
	// recorded as done, skipped or failed, and the plan's total.
	Items *Items
	// Metrics are the unit's named numbers, the latest value of each
	// (metrics): itr checkpoint --metric words=812. Canonical numbers
	// (ParseNumber) by name; nil is absent.
	Metrics map[string]string
	// StartedAt is when the unit's current attempt started: the time of
	// its first iteration, or of its first iteration after its last
	// restart (started_at). Restarts counts its restarts (restarts).
	StartedAt *string
	Restarts  *int
	// Checks are the last results of the unit's named checks by name
	// (checks): each check's last run, from the log. GateRounds counts the
	// confirm and verify rounds in which they ran (gate_rounds). nil is
	// absent.
	Checks     map[string]*CheckResult
	GateRounds *GateRounds
	// Outputs are the unit's outputs as the entry that made it done
	// recorded them (outputs): path, size and blob id of each. nil is
	// absent (not done, or done before itr pinned outputs).
	Outputs []OutputPin

	extra object // unknown keys and the key order as decoded
}

// CurrentSchema is the schema_version itr writes in every state.json. A
// file without the key (written before itr had it) is version 0, which
// reconcile migrates; a file of a higher version is refused (ErrNewerSchema).
// Version 1 is the format of the seed with itr's keys (paused, last_run,
// progress, verified_by, ...).
const CurrentSchema = 1

// State is the whole of state.json.
type State struct {
	// SchemaVersion is schema_version (0: the key is absent, as in files
	// written before itr had it). New, and the reducer's Seed and Step, set
	// it to CurrentSchema, so every state itr writes carries it.
	SchemaVersion int
	Task          string
	Slug          string
	Mode          Mode
	Domain        *string
	Created       *string
	Updated       *string
	Phase         Phase
	Paused        *Pause // nil: not paused
	// Approval is who approved the plan, when (approval): nil until itr
	// approve records it.
	Approval *Approval
	// Outcome is how the task ended (outcome): nil while it runs.
	Outcome          *Outcome
	Current          *string // current_task or current_phase, by Mode
	CurrentIteration *int
	Units            map[string]*Unit
	Commits          []string // nil: the key is absent

	extra object
	// decodedIDs are the unit IDs as Decode read them (or KeepOrder was
	// given them), when they were in natural order (itr writes them so);
	// IDs returns them while Units still holds exactly those, instead of
	// sorting again. The slice is never changed once set, so copies and
	// goroutines may share it.
	decodedIDs []string
}

// New returns the state of a fresh task in phase discover with no units.
func New(mode Mode, task, slug, created string) *State {
	return &State{
		SchemaVersion: CurrentSchema,
		Task:          task,
		Slug:          slug,
		Mode:          mode,
		Created:       Ptr(created),
		Updated:       Ptr(created),
		Phase:         Discover,
		Units:         map[string]*Unit{},
	}
}

// Ptr returns a pointer to a copy of v; it keeps optional fields short to set.
func Ptr[T any](v T) *T { return &v }

// Val returns *p, or the zero value when p is nil.
func Val[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// IDs returns the unit IDs in natural order (T1, T2, ..., T10).
func (s *State) IDs() []string {
	if s.decodedIDs != nil && sameIDs(s.decodedIDs, s.Units) {
		return slices.Clone(s.decodedIDs)
	}
	ids := make([]string, 0, len(s.Units))
	for id := range s.Units {
		ids = append(ids, id)
	}
	SortIDs(ids)
	return ids
}

// Ordered returns what IDs returns and the units in that order
// (units[i] is Units[ids[i]]), with one lookup of each unit: the way to
// walk every unit without looking each up again. The IDs may be shared
// with the state: read them, never change them.
func (s *State) Ordered() (ids []string, units []*Unit) {
	if ids = s.decodedIDs; ids != nil && len(ids) == len(s.Units) {
		units = make([]*Unit, len(ids))
		for i, id := range ids {
			if units[i] = s.Units[id]; units[i] == nil {
				units = nil
				break
			}
		}
		if units != nil {
			return ids, units
		}
	}
	ids = s.IDs()
	units = make([]*Unit, len(ids))
	for i, id := range ids {
		units[i] = s.Units[id]
	}
	return ids, units
}

// KeepOrder gives the state ids as its units' natural order, for IDs to
// return without sorting, when they are that: strictly increasing by
// CompareIDs (so distinct) and exactly the IDs of Units. Anything else is
// ignored. The reducer calls it with the plan's IDs after adding units: a
// plan's units are usually written in natural order, and checking that is
// linear where sorting 100,000 IDs is not. ids must not change afterwards.
func (s *State) KeepOrder(ids []string) {
	if len(ids) != len(s.Units) {
		return
	}
	for i := 1; i < len(ids); i++ {
		if CompareIDs(ids[i-1], ids[i]) >= 0 {
			return
		}
	}
	if sameIDs(ids, s.Units) {
		s.decodedIDs = ids
	}
}

// sameIDs reports whether units holds exactly the distinct IDs ids.
func sameIDs(ids []string, units map[string]*Unit) bool {
	if len(ids) != len(units) {
		return false
	}
	for _, id := range ids {
		if _, ok := units[id]; !ok {
			return false
		}
	}
	return true
}

// Unit returns the unit with the given ID, or nil.
func (s *State) Unit(id string) *Unit { return s.Units[id] }

// Outdated reports whether s was read from a file of an older schema
// (or one without schema_version), which the next write migrates.
func (s *State) Outdated() bool { return s != nil && s.SchemaVersion < CurrentSchema }

// Clone returns a deep copy of s.
func (s *State) Clone() *State {
	if s == nil {
		return nil
	}
	c := *s
	c.Domain = clonePtr(s.Domain)
	c.Created = clonePtr(s.Created)
	c.Updated = clonePtr(s.Updated)
	c.Current = clonePtr(s.Current)
	c.Paused = clonePtr(s.Paused)
	c.Approval = clonePtr(s.Approval)
	c.Outcome = s.Outcome.Clone()
	c.CurrentIteration = clonePtr(s.CurrentIteration)
	if s.Commits != nil {
		c.Commits = append([]string{}, s.Commits...)
	}
	c.Units = make(map[string]*Unit, len(s.Units))
	units := make([]Unit, len(s.Units)) // one allocation for every unit
	i := 0
	for id, u := range s.Units {
		if u == nil {
			c.Units[id] = nil
			continue
		}
		u.cloneInto(&units[i])
		c.Units[id] = &units[i]
		i++
	}
	c.extra = s.extra.clone()
	return &c
}

// Clone returns a deep copy of u.
func (u *Unit) Clone() *Unit {
	if u == nil {
		return nil
	}
	c := new(Unit)
	u.cloneInto(c)
	return c
}

// cloneInto makes *dst a deep copy of u.
func (u *Unit) cloneInto(dst *Unit) {
	c := dst
	*c = *u
	c.Reason = clonePtr(u.Reason)
	c.ReasonKind = clonePtr(u.ReasonKind)
	c.ClearWhen = clonePtr(u.ClearWhen)
	c.IterationsUsed = clonePtr(u.IterationsUsed)
	c.ConfirmationsUsed = clonePtr(u.ConfirmationsUsed)
	c.VerificationPassed = clonePtr(u.VerificationPassed)
	c.MaxIterations = clonePtr(u.MaxIterations)
	c.CompletedAt = clonePtr(u.CompletedAt)
	c.StartedAt = clonePtr(u.StartedAt)
	c.Restarts = clonePtr(u.Restarts)
	c.VerifiedBy = clonePtr(u.VerifiedBy)
	c.Progress = clonePtr(u.Progress)
	c.ProgressDetail = clonePtr(u.ProgressDetail)
	c.LastRun = u.LastRun.Clone()
	c.Items = u.Items.Clone()
	c.Checks = cloneChecks(u.Checks)
	c.GateRounds = clonePtr(u.GateRounds)
	c.Outputs = ClonePins(u.Outputs)
	if u.Metrics != nil {
		c.Metrics = make(map[string]string, len(u.Metrics))
		for k, v := range u.Metrics {
			c.Metrics[k] = v
		}
	}
	c.extra = u.extra.clone()
}

// Extra returns the raw JSON of the unknown key name, if the unit has it.
func (u *Unit) Extra(name string) (json.RawMessage, bool) { return u.extra.get(name) }

// SetExtra sets an unknown key to raw JSON, keeping its place if it exists.
func (u *Unit) SetExtra(name string, raw json.RawMessage) { u.extra.set(name, raw) }

// ExtraKeys returns the unit's unknown keys in the order they were found.
func (u *Unit) ExtraKeys() []string { return u.extra.unknownKeys() }

// Extra returns the raw JSON of the unknown top-level key name.
func (s *State) Extra(name string) (json.RawMessage, bool) { return s.extra.get(name) }

// SetExtra sets an unknown top-level key to raw JSON.
func (s *State) SetExtra(name string, raw json.RawMessage) { s.extra.set(name, raw) }

// ExtraKeys returns the unknown top-level keys in the order they were found.
func (s *State) ExtraKeys() []string { return s.extra.unknownKeys() }

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// object remembers the key order of a decoded JSON object and the raw values
// of the keys itr does not know.
type object struct {
	order   []string
	unknown map[string]json.RawMessage
}

// clone is a copy of o. The key order is shared, capped at its length:
// it is only ever appended to (set), and an append to a full slice
// copies it, so neither copy sees the other's new keys.
func (o object) clone() object {
	c := object{order: o.order[:len(o.order):len(o.order)]}
	if o.unknown != nil {
		c.unknown = make(map[string]json.RawMessage, len(o.unknown))
		for k, v := range o.unknown {
			c.unknown[k] = append(json.RawMessage(nil), v...)
		}
	}
	return c
}

func (o object) get(name string) (json.RawMessage, bool) {
	v, ok := o.unknown[name]
	return v, ok
}

func (o *object) set(name string, raw json.RawMessage) {
	if o.unknown == nil {
		o.unknown = map[string]json.RawMessage{}
	}
	if _, ok := o.unknown[name]; !ok {
		o.order = append(o.order, name)
	}
	o.unknown[name] = append(json.RawMessage(nil), raw...)
}

func (o object) unknownKeys() []string {
	var keys []string
	for _, k := range o.order {
		if _, ok := o.unknown[k]; ok {
			keys = append(keys, k)
		}
	}
	return keys
}
