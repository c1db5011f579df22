// Package reconcile holds itr's rule book and its one reducer. The rule
// book (rules.go) says whether a request may happen here and as which event
// (Decide), and what may happen next (Advise); its refusals are *Refusal
// data. The reducer is a pure fold of a task's log (the entries of
// progress.md, plus facts about commits handed in by the caller) and its
// plan into the state.json view; it applies an event only after the rule
// book's checks. Diff compares a recorded view with the folded one.
//
// The same function serves `itr checkpoint` (Step: fold the newest event onto
// the current view) and `itr reconcile` (Fold: fold the whole history), so a
// reconcile right after any sequence of checkpoints changes nothing.
//
// The package is pure: no files, no git, no clock, no environment. Time is
// an input, carried by the events.
package reconcile

import (
	"fmt"
	"time"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// Commit is a fact about one commit, handed in by the caller: the reducer
// uses it to name work commits that progress.md lists by hash alone.
type Commit struct {
	Hash     string
	Time     time.Time
	Subject  string
	Trailers map[string]string
}

// Event is one change of state, made from one progress.md entry.
type Event struct {
	Kind         progresslog.Kind
	Unit         string
	Iteration    int    // the number the entry gives, for iterations
	Time         string // RFC 3339 in UTC; "" when the entry's time is unreadable
	Signal       string // the **Signal:** value
	Verification string // "passed", "failed" or ""
	Reason       string // for blocks
	Phase        state.Phase
	Name         string // for Created: the task's name
	Mode         state.Mode
	Domain       string
	Commits      []string      // work commits as "abc1234: subject"
	Dropped      []string      // for Planned: started units removed from the plan on purpose
	Adopted      []AdoptedUnit // for Adopted: the facts kept of each unit
	Current      string        // for Adopted: the current unit
	Line         int           // the entry's line in progress.md, for messages
	// Run is the verification run an iteration records; VerifiedBy names
	// who verified it when no run did.
	Run        *state.Run
	VerifiedBy string
	// Checks are the named checks an iteration records (**Check NAME:**).
	Checks []CheckRun
	// Progress is the unit's own progress an iteration gives ("40%"), ""
	// when it gives none; ProgressDetail says what it means.
	Progress, ProgressDetail string
	// ReasonKind is the **Kind:** of a Blocked or Failed entry (one of
	// state.BlockKinds), ClearWhen the **Clear when:** of a Blocked one.
	ReasonKind, ClearWhen string
	// Items are the items of the unit's ledger an iteration records
	// (its **Items:** field), in order: a later mark of an item wins.
	Items []state.ItemMark
	// Values are the values of items an iteration records (**Values:**),
	// in order; Metrics the unit's metrics it records (**Metrics:**).
	Values  []state.ItemValue
	Metrics []state.Metric
	// Result is the outcome a Concluded entry records, or the one an
	// Archived entry gives a task that has none; Missing are the units it
	// names as unfinished, Limitations what a delivery lacks. Reason and
	// ReasonKind say why a task was abandoned or failed.
	Result      state.Result
	Missing     []string
	Limitations string
	// By is who approved the plan (Approved), Note what they said.
	By, Note string
	// Outputs are the outputs an entry pins (**Outputs:**): the one that
	// makes its unit done, or a Pinned entry.
	Outputs []state.OutputPin
}

// Input is everything Fold needs.
type Input struct {
	// Slug is the task's folder name.
	Slug string
	// Base is the current view, or nil when state.json is missing or
	// unreadable. Only what no event knows is taken from it: unknown keys,
	// max_iterations of units the plan gives no limit, and the task's
	// name, mode, domain and creation time when the log has no Created entry.
	Base *state.State
	// Plan is the plan in force, or nil when there is none yet.
	Plan *plan.Plan
	// Entries are the entries of progress.md in log order.
	Entries []progresslog.Entry
	// Commits are facts about commits, to name work commits.
	Commits []Commit
	// Observe, when set, sees each applied event of a unit with the unit's
	// status before and after it (a view counting how often a unit went
	// back reads it from the reducer, not from its own copy of the rules).
	Observe func(ev Event, from, to state.Status)
}

// Problem is an entry the fold could not apply, or something odd about it.
type Problem struct {
	Line int
	Msg  string
	// Note marks a remark that is not an error: an iteration numbered
	// other than its place, as after a merge of two clones that both
	// worked on the same unit.
	Note bool
}

// Error reads like `progress.md:14: unit T3 is done; the iteration was not counted`.
func (p Problem) Error() string {
	if p.Line > 0 {
		return fmt.Sprintf("progress.md:%d: %s", p.Line, p.Msg)
	}
	return "progress.md: " + p.Msg
}

// Fold rebuilds the view from the log: Seed, then Step for every event.
// Entries that cannot be applied (an iteration of a finished unit, an
// unknown unit, ...) are skipped and reported, never fatal: a log must
// always fold.
func Fold(in Input) (*state.State, []Problem) {
	s := Seed(in.Base, in.Slug, in.Plan)
	unknown := unknownStarts(in.Base)
	var problems []Problem
	// Units a Planned entry dropped on purpose (itr plan --drop) are gone
	// from the plan: their earlier entries are history, not problems.
	dropped := map[string]bool{}
	for _, e := range in.Entries {
		if e.Kind == progresslog.KindPlanned {
			for _, id := range droppedOf(e) {
				dropped[id] = true
			}
		}
	}
	synced := true // s is in step with in.Plan: Seed synced it
	for _, e := range in.Entries {
		if dropped[e.Unit] && active(in.Plan) && in.Plan.Unit(e.Unit) == nil {
			// A unit of the past: its events still count for the task
			// (the phase, the work commits, the time), applied as if no
			// plan said which units exist; the unit itself is gone again
			// with the next event, and for good with the drop.
			if ev, err := EventFrom(e, in.Commits); err == nil {
				_ = stepInPlace(s, nil, ev)
				synced = false
			}
			continue
		}
		ev, err := EventFrom(e, in.Commits)
		if err != nil {
			problems = append(problems, Problem{Line: e.Line, Msg: err.Error()})
			if ev.Kind == progresslog.KindOther {
				continue
			}
		}
		if ev.Kind == progresslog.KindIteration {
			if u := s.Units[ev.Unit]; u != nil {
				if want := state.Val(u.IterationsUsed) + 1; ev.Iteration != want && u.Status != state.Done {
					problems = append(problems, Problem{Line: e.Line, Note: true, Msg: fmt.Sprintf(
						"%s iteration %d is the %s iteration of %s in the log; counted as %d",
						ev.Unit, ev.Iteration, ordinal(want), ev.Unit, want)})
				}
			}
		}
		// Fold owns s: each event applies in place (an event the rules
		// refuse changes nothing), sparing a copy of every unit per entry.
		var from state.Status
		if u := s.Units[ev.Unit]; u != nil {
			from = u.Status
		}
		step := stepInPlace
		if synced {
			step = stepSynced
		}
		// Each applied event ends with a sync; a refused one may not.
		if err := step(s, in.Plan, ev); err != nil {
			synced = false
			problems = append(problems, Problem{Line: e.Line, Msg: err.Error() + "; the entry was not applied"})
			continue
		}
		synced = true
		if in.Observe != nil && ev.Unit != "" && s.Units[ev.Unit] != nil {
			in.Observe(ev, from, s.Units[ev.Unit].Status)
		}
		if isRestart(ev) {
			delete(unknown, ev.Unit) // a new attempt: its start is known
		}
	}
	for id := range unknown {
		if u := s.Units[id]; u != nil {
			u.StartedAt = nil
		}
	}
	return s, problems
}

// unknownStarts are the units of the view base that had iterations but no
// started_at: a view written before itr knew started_at (or one whose key
// was removed by hand). Their start stays unknown (absent) in the fold, as
// Step leaves it, until a restart begins a new attempt; so a fold of an
// older task agrees with its view and a reconcile changes nothing.
func unknownStarts(base *state.State) map[string]bool {
	out := map[string]bool{}
	if base == nil {
		return out
	}
	for id, u := range base.Units {
		if u.StartedAt == nil && state.Val(u.IterationsUsed) > 0 {
			out[id] = true
		}
	}
	return out
}

// Seed returns the view before any event: only what no event knows is kept
// from base, and the plan's units are added as pending.
func Seed(base *state.State, slug string, p *plan.Plan) *state.State {
	var s *state.State
	if base != nil {
		// Start from a copy so every carried key keeps its place.
		s = base.Clone()
		s.Slug = slug
		s.Current, s.CurrentIteration, s.Commits, s.Paused = nil, nil, nil, nil
		s.Outcome = nil
		for _, u := range s.Units {
			u.Status = state.Pending
			u.Reason, u.IterationsUsed, u.ConfirmationsUsed = nil, nil, nil
			u.ReasonKind, u.ClearWhen = nil, nil
			u.VerificationPassed, u.CompletedAt = nil, nil
			u.VerifiedBy, u.LastRun, u.Progress, u.ProgressDetail = nil, nil, nil, nil
			u.Items, u.Metrics, u.StartedAt, u.Restarts = nil, nil, nil, nil
			u.Checks, u.GateRounds = nil, nil
			u.Outputs = nil
		}
	} else {
		s = state.New(state.Development, slug, slug, "")
		s.Created, s.Updated = nil, nil
	}
	if s.Mode == state.Development {
		s.Commits = []string{}
	}
	// The fold writes the current format: a view of an older one (or none)
	// is migrated by rebuilding it.
	s.SchemaVersion = state.CurrentSchema
	sync(s, p)
	return s
}

// Step applies one event to the view and returns the new view; s is not
// changed. It is strict: an event the lifecycle does not allow is an error
// that says why and what to do. The plan (may be nil) is brought in before
// and after, so units it adds can be worked on and limits it changes apply.
func Step(s *state.State, p *plan.Plan, ev Event) (*state.State, error) {
	s = s.Clone()
	if err := stepInPlace(s, p, ev); err != nil {
		return nil, err
	}
	return s, nil
}

// stepInPlace is Step on s itself. A refused event leaves s as it was but
// for the plan brought in (sync is idempotent): apply checks the rules
// before it changes anything.
func stepInPlace(s *state.State, p *plan.Plan, ev Event) error {
	sync(s, p)
	return stepSynced(s, p, ev)
}

// stepSynced is stepInPlace on a view in step with p already (sync(s, p)
// would change nothing): what Fold runs after the first event, sparing a
// pass over every unit per event.
func stepSynced(s *state.State, p *plan.Plan, ev Event) error {
	had := ev.Unit != "" && s.Units[ev.Unit] != nil
	if err := apply(s, p, ev); err != nil {
		return err
	}
	if pu := oneUnit(s, p, ev, had); pu != nil {
		syncUnit(s.Units[ev.Unit], pu, &unitSlab{})
	} else {
		sync(s, p)
	}
	// Every view itr writes is of the current format: a step on a view of
	// an older one migrates it (the caller notes that in its commit).
	s.SchemaVersion = state.CurrentSchema
	return nil
}

func apply(s *state.State, p *plan.Plan, ev Event) error {
	if err := allowed(s, p, ev); err != nil {
		return err
	}
	switch ev.Kind {
	case progresslog.KindOther:
		return nil
	case progresslog.KindCreated:
		if err := created(s, ev); err != nil {
			return err
		}
	case progresslog.KindIteration:
		iterate(s, ev)
	case progresslog.KindBlocked:
		block(s, ev)
	case progresslog.KindUnblocked:
		unblock(s, ev)
	case progresslog.KindFailed, progresslog.KindSkipped:
		settle(s, ev)
	case progresslog.KindReopened:
		reopen(s, ev)
	case progresslog.KindRestarted:
		restart(s, ev)
	case progresslog.KindPinned:
		unit(s, ev.Unit).Outputs = state.ClonePins(ev.Outputs)
	case progresslog.KindPlanned:
		planned(s, ev)
	case progresslog.KindAdopted:
		adopt(s, ev)
	case progresslog.KindConcluded:
		conclude(s, ev)
	default:
		if !applyTask(s, ev) {
			return fmt.Errorf("unknown event kind %v", ev.Kind)
		}
	}
	if ev.Time != "" {
		s.Updated = state.Ptr(ev.Time)
	}
	return nil
}

// created applies the Created entry: the task's name, mode, domain and
// creation time, in phase discover.
func created(s *state.State, ev Event) error {
	if ev.Mode != "" && ev.Mode != s.Mode && len(s.Units) > 0 {
		return fmt.Errorf("the task already has units in %s mode; its mode cannot become %s", s.Mode, ev.Mode)
	}
	if ev.Name != "" {
		s.Task = ev.Name
	}
	if ev.Mode != "" && ev.Mode != s.Mode {
		s.Mode = ev.Mode
		if s.Mode == state.Knowledge && len(s.Commits) == 0 {
			s.Commits = nil
		} else if s.Mode == state.Development && s.Commits == nil {
			s.Commits = []string{}
		}
	}
	if ev.Domain != "" {
		s.Domain = state.Ptr(ev.Domain)
	}
	if ev.Time != "" {
		s.Created = state.Ptr(ev.Time)
	}
	s.Phase = state.Discover
	return nil
}

// block marks a unit blocked, with its reason, kind and when it clears.
func block(s *state.State, ev Event) {
	u := unit(s, ev.Unit)
	u.Status = state.Blocked
	reason := ev.Reason
	if reason == "" {
		reason = "blocked"
	}
	u.Reason = state.Ptr(reason)
	u.ReasonKind, u.ClearWhen = optional(ev.ReasonKind), optional(ev.ClearWhen)
}

// unblock returns a blocked unit to work: in_progress once it has
// iterations, else pending.
func unblock(s *state.State, ev Event) {
	u := unit(s, ev.Unit)
	u.Status = state.Pending
	if state.Val(u.IterationsUsed) > 0 {
		u.Status = state.InProgress
	}
	u.Reason = nil
	u.ReasonKind, u.ClearWhen = nil, nil
}

// planned applies a Planned entry: units dropped on purpose leave the
// view, and the phase is at least plan.
func planned(s *state.State, ev Event) {
	for _, id := range ev.Dropped {
		delete(s.Units, id)
		if state.Val(s.Current) == id {
			s.Current, s.CurrentIteration = nil, nil
		}
	}
	if s.Phase.Rank() < state.Plan.Rank() {
		s.Phase = state.Plan
	}
}

// applyTask applies the events about the task as a whole (phase,
// archive, restore, pause, resume, and the entries that change nothing but
// the time); it reports false for a kind it does not know.
func applyTask(s *state.State, ev Event) bool {
	switch ev.Kind {
	case progresslog.KindPhase:
		s.Phase = ev.Phase
	case progresslog.KindArchived:
		// A task archived without an outcome ends with the one the entry
		// gives: complete, or abandoned when it was forced.
		if s.Outcome == nil && ev.Result != "" {
			s.Outcome = outcomeOf(ev)
		}
		s.Phase = state.Complete
	case progresslog.KindRestored:
		reopenTask(s)
		s.Phase = state.Execute
	case progresslog.KindPaused:
		s.Paused = &state.Pause{Since: ev.Time, Reason: ev.Reason}
	case progresslog.KindResumed:
		s.Paused = nil
		reopenTask(s)
	case progresslog.KindApproved:
		s.Approval = &state.Approval{By: ev.By, At: ev.Time, Note: ev.Note}
	case progresslog.KindReconciled, progresslog.KindNote, progresslog.KindSummary, progresslog.KindRechecked:
		// A summary stands for the entries before it, and a re-check
		// leaves its unit done; these change nothing but the time.
	default:
		return false
	}
	return true
}

// iterate applies one iteration (a checkpoint) of a unit.
//
// The lifecycle, driven by checkpoints: the first checkpoint starts a pending
// unit; in in_progress a signal declares the work done (→ confirming); in
// confirming a signal confirms (→ verifying, confirmations_used + 1) and its
// absence sends the unit back to in_progress; in verifying a passed
// verification closes it (→ done) and anything else sends it back. Every
// checkpoint counts as one iteration. A unit left in in_progress with
// iterations_used at max_iterations times out.
func iterate(s *state.State, ev Event) {
	u := unit(s, ev.Unit)
	signalled := ev.Signal != ""
	u.IterationsUsed = state.Ptr(state.Val(u.IterationsUsed) + 1)
	if u.Status == state.Pending && ev.Time != "" {
		// The attempt's first iteration: the first ever, or the first
		// after a restart.
		u.StartedAt = state.Ptr(ev.Time)
	}
	if u.ConfirmationsUsed == nil {
		u.ConfirmationsUsed = state.Ptr(0)
	}
	from := u.Status
	foldChecks(u, from, ev.Checks)
	if ChecksHold(ev.Checks) && (from == state.Confirming || from == state.Verifying) {
		// A check broke: the unit stays at its gate.
		from = ""
	}
	switch from {
	case state.Pending, state.InProgress:
		u.Status = state.InProgress
		if signalled {
			u.Status = state.Confirming
		}
	case state.Confirming:
		u.Status = state.InProgress
		if signalled {
			u.Status = state.Verifying
			u.ConfirmationsUsed = state.Ptr(*u.ConfirmationsUsed + 1)
		}
	case state.Verifying:
		passed := ev.Verification == "passed"
		u.VerificationPassed = state.Ptr(passed)
		u.Status = state.InProgress
		u.VerifiedBy = nil
		if passed {
			u.Status = state.Done
			if ev.Time != "" {
				u.CompletedAt = state.Ptr(ev.Time)
			}
			if ev.VerifiedBy != "" && !ev.Run.Passed() {
				u.VerifiedBy = state.Ptr(ev.VerifiedBy)
			}
			// The entry that makes the unit done pins its outputs.
			u.Outputs = state.ClonePins(ev.Outputs)
		}
	}
	if ev.Run != nil {
		u.LastRun = ev.Run.Clone()
	}
	if ev.Progress != "" {
		u.Progress, u.ProgressDetail = state.Ptr(ev.Progress), nil
		if ev.ProgressDetail != "" {
			u.ProgressDetail = state.Ptr(ev.ProgressDetail)
		}
	}
	if len(ev.Items) > 0 || len(ev.Values) > 0 {
		if u.Items == nil {
			u.Items = &state.Items{}
		}
		u.Items.Mark(ev.Items)
		for _, v := range ev.Values {
			u.Items.SetValue(v)
		}
	}
	for _, m := range ev.Metrics {
		u.SetMetric(m)
	}
	for _, c := range ev.Commits {
		if !hasCommit(s.Commits, c) {
			s.Commits = append(s.Commits, c)
		}
	}
	if u.Status == state.Done {
		s.Current, s.CurrentIteration = nil, nil
	} else {
		s.Current = state.Ptr(u.ID)
		s.CurrentIteration = state.Ptr(*u.IterationsUsed)
	}
	if s.Phase.Rank() < state.Execute.Rank() {
		s.Phase = state.Execute
	}
}

// unit returns the unit id, creating it when there is no plan to say which
// units exist (allowed has checked that it may).
func unit(s *state.State, id string) *state.Unit {
	if u := s.Units[id]; u != nil {
		return u
	}
	u := &state.Unit{ID: id, Status: state.Pending}
	s.Units[id] = u
	return u
}

// sync brings the plan into the view: its units exist (new ones pending),
// its limits apply, units it does not have are dropped, and the timeout rule
// holds (in_progress at the limit → timeout; timeout under a raised limit →
// in_progress). It is idempotent.
func sync(s *state.State, p *plan.Plan) {
	if active(p) {
		added := false
		fresh := newUnits(s, p)
		for _, pu := range p.Units {
			u := s.Units[pu.ID]
			if u == nil {
				u = fresh.next(pu.ID)
				s.Units[pu.ID] = u
				added = true
			}
			syncUnit(u, pu, fresh)
		}
		// The view now has every unit of the plan; only when it has more
		// are the others dropped (one map of the plan's IDs, not on every
		// event).
		if len(s.Units) != len(p.Units) {
			want := make(map[string]bool, len(p.Units))
			for _, pu := range p.Units {
				want[pu.ID] = true
			}
			for id := range s.Units {
				if !want[id] {
					delete(s.Units, id)
				}
			}
		}
		if added {
			keepPlanOrder(s, p)
		}
		if s.Current != nil && s.Units[*s.Current] == nil {
			s.Current, s.CurrentIteration = nil, nil
		}
		if len(s.Units) == len(p.Units) && p.UniqueIDs() {
			return // the view's units are the plan's, each synced above
		}
	}
	for _, u := range s.Units {
		syncTimeout(u)
	}
}

// unitSlab hands out the units a sync adds, and their limits, from
// slices made at once: a plan of 100,000 units applied to an empty view
// makes a few allocations instead of 200,000, and the view's map is grown
// once instead of doubling its way there.
type unitSlab struct {
	units  []state.Unit
	limits []int
}

// newUnits sizes the slab for the units of p that s has not got yet (a
// guess from the counts: exact when s has none, as in a first plan) and
// grows s.Units to hold them all.
func newUnits(s *state.State, p *plan.Plan) *unitSlab {
	missing := len(p.Units) - len(s.Units)
	if missing < 64 {
		return &unitSlab{}
	}
	if len(s.Units) < len(p.Units)/2 {
		grown := make(map[string]*state.Unit, len(p.Units))
		for id, u := range s.Units {
			grown[id] = u
		}
		s.Units = grown
	}
	return &unitSlab{units: make([]state.Unit, 0, missing), limits: make([]int, 0, missing)}
}

// next is a new pending unit id.
func (f *unitSlab) next(id string) *state.Unit {
	if len(f.units) == cap(f.units) {
		return &state.Unit{ID: id, Status: state.Pending}
	}
	f.units = append(f.units, state.Unit{ID: id, Status: state.Pending})
	return &f.units[len(f.units)-1]
}

// limit is a pointer to n.
func (f *unitSlab) limit(n int) *int {
	if len(f.limits) == cap(f.limits) {
		return state.Ptr(n)
	}
	f.limits = append(f.limits, n)
	return &f.limits[len(f.limits)-1]
}

// oneUnit is the plan's unit of ev when ev changed that unit alone, on a
// view in step with p before it: then a sync would change that unit and
// no other, and syncUnit of it is the whole sync. nil when a full sync is
// needed: an event of the task or of many units, a unit the view did not
// have (had), a plan that gives an ID twice (its last limit would win).
func oneUnit(s *state.State, p *plan.Plan, ev Event, had bool) *plan.Unit {
	switch ev.Kind {
	case progresslog.KindIteration, progresslog.KindBlocked, progresslog.KindUnblocked,
		progresslog.KindFailed, progresslog.KindSkipped, progresslog.KindReopened,
		progresslog.KindRestarted, progresslog.KindPinned:
	default:
		return nil
	}
	if !had || !active(p) || !p.UniqueIDs() || len(s.Units) != len(p.Units) {
		return nil
	}
	return p.Unit(ev.Unit)
}

// syncUnit is what sync does to unit u of the plan's unit pu: its limit
// (a new one from fresh), its ledger's total, its timeout.
func syncUnit(u *state.Unit, pu *plan.Unit, fresh *unitSlab) {
	if pu.MaxIterations > 0 && state.Val(u.MaxIterations) != pu.MaxIterations {
		u.MaxIterations = fresh.limit(pu.MaxIterations)
	}
	syncItems(u, pu)
	syncTimeout(u)
}

// syncTimeout moves a unit between in_progress and timeout by its limit:
// timed out when it used its iterations, back under way when its limit
// was raised (or taken away).
func syncTimeout(u *state.Unit) {
	used, limit := state.Val(u.IterationsUsed), state.Val(u.MaxIterations)
	switch {
	case u.Status == state.InProgress && u.MaxIterations != nil && used >= limit:
		u.Status = state.Timeout
	case u.Status == state.Timeout && (u.MaxIterations == nil || used < limit):
		u.Status = state.InProgress
	}
}

// timeoutInStep reports whether syncTimeout(u) would change nothing.
func timeoutInStep(u *state.Unit) bool {
	used, limit := state.Val(u.IterationsUsed), state.Val(u.MaxIterations)
	switch {
	case u.Status == state.InProgress && u.MaxIterations != nil && used >= limit:
		return false
	case u.Status == state.Timeout && (u.MaxIterations == nil || used < limit):
		return false
	}
	return true
}

// inStep reports whether sync(s, p) would change nothing: every unit of
// an active plan is in s with the plan's limit and item total, s has no
// other unit and its current unit is one of them, and no unit's status
// moves between in_progress and timeout by its limit. It reads s only.
func inStep(s *state.State, p *plan.Plan) bool {
	if s == nil {
		return false
	}
	if active(p) {
		if len(s.Units) != len(p.Units) || s.Current != nil && s.Units[*s.Current] == nil {
			return false
		}
		for _, pu := range p.Units {
			u := s.Units[pu.ID]
			if u == nil || pu.MaxIterations > 0 && state.Val(u.MaxIterations) != pu.MaxIterations || !itemsInStep(u, pu) || !timeoutInStep(u) {
				return false
			}
		}
		if p.UniqueIDs() {
			return true // the view's units are the plan's, each checked above
		}
	}
	for _, u := range s.Units {
		if !timeoutInStep(u) {
			return false
		}
	}
	return true
}

// itemsInStep reports whether syncItems(u, pu) would change nothing.
func itemsInStep(u *state.Unit, pu *plan.Unit) bool {
	if u.Items == nil {
		return true
	}
	if n := pu.ItemTotal(); n > 0 {
		return u.Items.Total != nil && *u.Items.Total == n
	}
	return u.Items.Total == nil
}

// keepPlanOrder tells s the plan's order of its units, which state keeps
// as their natural order when it is one (state.KeepOrder), so that writing
// state.json need not sort the IDs the plan just added.
func keepPlanOrder(s *state.State, p *plan.Plan) {
	ids := make([]string, len(p.Units))
	for i, pu := range p.Units {
		ids[i] = pu.ID
	}
	s.KeepOrder(ids)
}

// syncItems keeps the total of a unit's item ledger the plan's: the
// number of items its "Items:" gives, none without. A unit with no ledger
// gets none from the plan alone.
func syncItems(u *state.Unit, pu *plan.Unit) {
	if u.Items == nil {
		return
	}
	if n := pu.ItemTotal(); n > 0 {
		if state.Val(u.Items.Total) != n {
			u.Items.Total = state.Ptr(n)
		}
	} else {
		u.Items.Total = nil
	}
}

func active(p *plan.Plan) bool { return p != nil && !p.Placeholder() }

func planFile(p *plan.Plan) string {
	if p.File != "" {
		return p.File
	}
	return "the plan"
}

// signalOf is the completion signal of unit id: the plan's, or ID_DONE.
func signalOf(p *plan.Plan, id string) string {
	if p != nil {
		if u := p.Unit(id); u != nil {
			return u.Signal()
		}
	}
	return id + "_DONE"
}

func hasCommit(list []string, c string) bool {
	h := commitHash(c)
	for _, x := range list {
		if commitHash(x) == h {
			return true
		}
	}
	return false
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
