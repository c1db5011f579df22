// Package view holds the read models of a task and their rendering: itr
// status (Summary, with the compaction summary), next, log, list and prime
// (the Markdown a new or compacted session reads first). It reads through
// the store, asks the rule book (reconcile.Advise) what may happen next,
// and reports undos found by verify. It writes nothing.
package view

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// UnitStatus is one unit in a summary.
type UnitStatus struct {
	ID         string   `json:"id"`
	Title      string   `json:"title,omitempty"`
	Status     string   `json:"status"`
	Iterations int      `json:"iterations"`
	Max        int      `json:"max_iterations,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	Depends    []string `json:"depends,omitempty"`
	// Progress is the unit's own progress ("40%") and what it means, as its
	// last entry that gave one said.
	Progress       string `json:"progress,omitempty"`
	ProgressDetail string `json:"progress_detail,omitempty"`
	// ReasonKind is what a blocked or failed unit needs (needs-human,
	// tool-error, missing-input, external, decision) and ClearWhen when a
	// block is over. ReplacedBy are the units that replace it in the plan
	// ("Replaces:"), Replaces those it replaces.
	ReasonKind string   `json:"reason_kind,omitempty"`
	ClearWhen  string   `json:"clear_when,omitempty"`
	ReplacedBy []string `json:"replaced_by,omitempty"`
	Replaces   []string `json:"replaces,omitempty"`
	// Items is the unit's item ledger (itr checkpoint --item): done of
	// the plan's total, the next item, the items not to repeat.
	Items *ItemsView `json:"items,omitempty"`
	// Metrics are the unit's named numbers (itr checkpoint --metric):
	// the latest value of each, with the plan's targets ("Metric:").
	Metrics []MetricView `json:"metrics,omitempty"`
	// StartedAt is when the unit's current attempt started (its first
	// iteration, or its first after its last restart); Restarts counts
	// its restarts (itr restart).
	StartedAt string `json:"started_at,omitempty"`
	Restarts  int    `json:"restarts,omitempty"`
	// Agent and Model are who recorded its newest iteration, as the entry
	// says ("" when it does not: unknown). PlanModel is the plan's Model
	// for the unit, given when it and Model are both known and differ.
	Agent     string `json:"agent,omitempty"`
	Model     string `json:"model,omitempty"`
	PlanModel string `json:"plan_model,omitempty"`
}

// LastEntry is the newest iteration entry of the log.
type LastEntry struct {
	Unit      string `json:"unit"`
	Iteration int    `json:"iteration"`
	Time      string `json:"time"`
	Did       string `json:"did,omitempty"`
	Remaining string `json:"remaining,omitempty"`
	Blockers  string `json:"blockers,omitempty"`
	// Agent, Model and Session are who recorded it, where it says.
	Agent   string `json:"agent,omitempty"`
	Model   string `json:"model,omitempty"`
	Session string `json:"session,omitempty"`
	// Files are the files its work commits changed (the first ten), and
	// FilesMore how many more.
	Files     []string `json:"files,omitempty"`
	FilesMore int      `json:"files_more,omitempty"`
}

// Reopen is why a done unit went back to work: its newest entry, when
// that is a Reopened one (itr reopen).
type Reopen struct {
	Unit   string `json:"unit"`
	Time   string `json:"time"`
	Reason string `json:"reason"`
}

// CompactionSummary is the seed's instant context restoration: what a
// session that lost its memory needs first.
type CompactionSummary struct {
	Task            string   `json:"task"`
	Progress        string   `json:"progress"`
	NextAction      string   `json:"next_action"`
	CriticalContext []string `json:"critical_context"`
	DoNotRepeat     []string `json:"do_not_repeat"`
	// RecoveryInstructions say what to do after a compaction or in a new
	// session, in order (seed 001's recovery_instructions).
	RecoveryInstructions []string `json:"recovery_instructions"`
}

// Standing is where a task stands now, as status reads it: the pause,
// the unit to work on and its news, the units that need someone, the
// check-in and phase hints, the counters, and the rule book's answer
// (the moves it accepts, the hold, the units to re-check). Summary and
// PrimeContext embed it, so prime words the very reading status words;
// its JSON field names are part of both.
type Standing struct {
	// Paused is the task's pause (since, reason) while it is on hold.
	Paused *state.Pause `json:"paused,omitempty"`
	// Outcome is how the task ended (complete, done with limitations,
	// abandoned, failed), with when, why and what is missing; absent while
	// it runs. A task with one takes no work until `itr resume`.
	Outcome *state.Outcome `json:"outcome,omitempty"`
	Current *UnitStatus    `json:"current,omitempty"`
	Last    *LastEntry     `json:"last,omitempty"`
	Next    string         `json:"next,omitempty"`
	// Work is the unit to work on now (the rule book's answer): the current
	// unit while it is open, else the unit under way touched longest ago,
	// else the first ready one. WorkLast is its newest iteration entry.
	Work     *UnitStatus `json:"work,omitempty"`
	WorkLast *LastEntry  `json:"work_last,omitempty"`
	// WorkReopened is why Work was reopened, when that is its newest
	// entry: the unit's last news.
	WorkReopened *Reopen `json:"work_reopened,omitempty"`
	// Failed are the failed units no done unit replaces: they need
	// someone (reopen, skip, or a unit that replaces them). Skipped are
	// the skipped units, left out on purpose.
	Failed  []UnitStatus `json:"failed,omitempty"`
	Skipped []UnitStatus `json:"skipped,omitempty"`
	// CheckIn asks for a note before going on, every N iterations.
	CheckIn string `json:"check_in,omitempty"`
	// PhaseHint says when the phase disagrees with what the units show.
	PhaseHint string `json:"phase_hint,omitempty"`
	// Counters are the plan's "Counter:" lines checked against their
	// files on disk: the count in the file and the items recorded done.
	Counters []CounterCheck `json:"counters,omitempty"`
	// Actions are the moves the rule book accepts now, the most urgent
	// first, as command lines; Hold says why no work can be recorded and
	// what clears it (absent while some unit takes work).
	Actions []Action `json:"actions"`
	Hold    *Hold    `json:"hold,omitempty"`
	// Recheck are the done units built on a unit that is no longer done
	// (reopened): re-check them once it is done again.
	Recheck []string `json:"recheck,omitempty"`
	// Partial are the outputs of units under way that an interrupted
	// iteration left partial, with why and the fix (finish them, or
	// restart the unit).
	Partial []PartialOutput `json:"partial,omitempty"`
	// StaleInputs are the done units' inputs that changed after they were
	// done (in a commit, or in the working tree), or upstream units
	// reopened since: re-check each unit (itr recheck) or reopen it.
	StaleInputs []verify.StaleInput `json:"stale_inputs,omitempty"`
	// Existing are the outputs of units not started yet that are on disk
	// already: work itr has not recorded, which starting the unit would
	// overwrite.
	Existing []ExistingOutput `json:"existing_outputs,omitempty"`
	// Approval is who approved the plan, when (itr approve), when the
	// plan asks for approval.
	Approval *state.Approval `json:"approval,omitempty"`
	// DoneOutputs are the outputs of the done units as the entry that
	// made each done pinned them (unit, path, bytes), in unit order.
	DoneOutputs []DoneOutput `json:"done_outputs,omitempty"`
	// Pins are the pinned outputs of done units that changed since:
	// shrunk, overwritten or removed, at HEAD (with the commit) or only in
	// the working tree, each with the fix.
	Pins []verify.PinIssue `json:"pins,omitempty"`
}

// Summary is the resume summary of `itr status`. Its JSON field names are
// part of itr's interface (docs/guide/advice.md, "itr status --json").
type Summary struct {
	Task  string `json:"task"`
	Slug  string `json:"slug"`
	Mode  string `json:"mode"`
	Phase string `json:"phase"`
	Dir   string `json:"dir"`
	Done  int    `json:"done"`
	Total int    `json:"total"`
	// Standing is where the task stands now: the reading prime takes
	// whole.
	Standing
	NextAction string `json:"next_action"`
	// Handoff is what Work receives from the units before it: its inputs
	// and what the units it depends on wrote, did and left.
	Handoff *Handoff `json:"handoff,omitempty"`
	// Started are the units under way, the current first; Ready every
	// pending unit whose dependencies are done, in plan order.
	Started        []UnitStatus `json:"started"`
	Ready          []string     `json:"ready"`
	Blocked        []UnitStatus `json:"blocked"`
	DoNotRepeat    []string     `json:"do_not_repeat"`
	Units          []UnitStatus `json:"units"`
	LastCheckpoint string       `json:"last_checkpoint,omitempty"`
	SinceLast      string       `json:"since_last,omitempty"`
	Warnings       []string     `json:"warnings"`
	// Checks are the verification runs that need attention: a failed last
	// run of an unfinished unit, a run interrupted before itr recorded it.
	Checks []Check `json:"checks"`
	// Pace is where the work stands over time: percent done (by units
	// and by Estimate), iterations against the limits, the task's pace
	// and the estimate of what remains.
	Pace Pace `json:"pace"`
	// Flags are the units that need a look first: runaway (round in
	// circles, or near the limit) and stale (no checkpoint for long).
	Flags []Flag `json:"flags"`
	// Claims are the units agents hold (itr claim), with their leases.
	Claims []store.Claim `json:"claims,omitempty"`
	// Agent is who this command acts for in claims (--agent, ITR_AGENT,
	// else user@host:worktree), given when there are claims.
	Agent         string                  `json:"agent,omitempty"`
	Discrepancies []reconcile.Discrepancy `json:"discrepancies"`
	// Undone lists commits made without itr that took committed entries
	// out of the task's logs (reconcile puts them back).
	Undone            []verify.UndoReport `json:"undone,omitempty"`
	CompactionSummary CompactionSummary   `json:"compaction_summary"`
	// Archive is the ref an archived task was read from; "" for an active task.
	Archive string `json:"archive,omitempty"`
	// Decisions are the settled choices of decisions.md (itr decide): the
	// newest decision per title, in the order they were last decided.
	Decisions []Decision `json:"decisions"`
	// ProgressSize is how much of progress.md a reader has to read (from
	// its last Summary entry on) against progress_token_limit; over it, a
	// warning asks for `itr summarize`.
	ProgressSize LogSize `json:"progress_size"`
	// LastSummary is the newest Summary entry of progress.md, where a
	// reader may start.
	LastSummary *LogSummary `json:"last_summary,omitempty"`
	// Edited are the files of the task folder with changes no commit
	// holds (the next checkpoint commits them).
	Edited []string `json:"edited,omitempty"`

	adv     reconcile.Advice  // the rule book's answer the summary words
	sit     situation         // what the workspace found beyond the view
	held    reconcile.Held    // the units other agents hold
	missing reconcile.Missing // the pending units' missing inputs
	view    *state.State      // the view the summary words (state.json, else the fold)
	now     time.Time         // when the summary was read (leases are judged at it)
	plan    *plan.Plan        // the plan it was read with
	facts   *logFacts         // what it read of the log
	// orient is what the files that orient a session say (the plan's
	// notes, context.md, guardrails.md), read once for every rendering;
	// nil for an archived task.
	orient *Orientation
}

// Status builds the resume summary of a task from what git holds.
func Status(st *store.Store, slug string) (*Summary, error) {
	sum, _, err := status(st, slug)
	return sum, err
}

// status is Status and the task it read: the task read once, then each
// part of the summary in turn, the rule book's advice last.
func status(st *store.Store, slug string) (*Summary, *store.Task, error) {
	slug, err := st.Select(slug)
	if err != nil {
		return nil, nil, err
	}
	t, err := st.LoadLight(slug)
	archive := ""
	if errors.Is(err, store.ErrNoTask) {
		// Not active: read it from its archive, when there is one.
		if at, ref, aerr := st.LoadArchived(slug, ""); aerr == nil {
			t, archive, err = at, ref, nil
		}
	}
	if err != nil {
		return nil, nil, err
	}
	r := &statusRead{st: st, t: t, slug: slug, active: archive == "",
		sum: &Summary{Slug: slug, Dir: t.Dir, Warnings: []string{}, Blocked: []UnitStatus{}, DoNotRepeat: []string{}, Discrepancies: []reconcile.Discrepancy{}, Archive: archive}}
	r.facts = factsOf(st, t, r.active)
	recorded := r.view()
	r.diskState()
	r.undos()
	r.outputs()
	r.orientation()
	r.staleInputs()
	// The rows are the view as the rule book reads it: a unit the plan
	// added before `itr plan` recorded it is pending already.
	s := reconcile.Synced(recorded, t.Plan)
	r.ids, r.units = s.Ordered() // every step below walks the units in this order
	r.sizeAndCounters(s)
	r.sum.Checks = checksOf(st, slug, r.ids, r.units, r.active)
	r.claims(s)
	r.pace(s)
	r.rows(s)
	r.existingOutputs(s)
	r.advise(s, recorded)
	r.compaction(s)
	return r.sum, t, nil
}

// statusRead is one reading of a task for status: what each step found,
// for the steps after it.
type statusRead struct {
	st     *store.Store
	t      *store.Task
	slug   string
	active bool // read from the working tree, not an archive
	sum    *Summary
	facts  *logFacts
	// What the advice needs of the steps before it.
	undone    int
	broken    []verify.OutputIssue
	pins      []verify.PinIssue
	badOutput map[string]bool
	held      reconcile.Held
	missing   reconcile.Missing
	ix        planIndex
	// ids and units are the view's units in natural order (units[i] is
	// the unit of ids[i]), read once for every step that walks them all.
	ids   []string
	units []*state.Unit
}

func (r *statusRead) warn(w ...string) { r.sum.Warnings = append(r.sum.Warnings, w...) }

// view is the task's view as recorded (state.json, else the fold of the
// log), with how it differs from the log's fold and what the log and the
// plan could not say.
func (r *statusRead) view() *state.State {
	t, facts := r.t, r.facts
	if t.ProgressErr != nil {
		r.warn(t.ProgressErr.Error())
	}
	if facts.AdoptionNote != "" {
		r.warn(facts.AdoptionNote)
	}
	s := t.State
	if s == nil {
		s = facts.derived
		r.warn(t.StateErr.Error() + "; showing the state rebuilt from the log")
	} else if d := recordedDiff(t, facts); len(d) > 0 {
		r.sum.Discrepancies = d
		r.warn(fmt.Sprintf("state.json differs from what the log says in %d places (first: %s); run `itr reconcile`", len(d), d[0]))
	}
	for _, p := range facts.Problems {
		r.warn(p.Error())
	}
	if t.PlanErr != nil {
		r.warn(t.PlanErr.Error())
	}
	return s
}

// recordedDiff is where the task's recorded view differs from the log's
// fold: nowhere when the fold is the committed state.json itself.
func recordedDiff(t *store.Task, facts *logFacts) []reconcile.Discrepancy {
	if facts.asRecorded {
		return nil
	}
	return reconcile.Diff(t.State, facts.derived, t.Plan)
}

// diskState warns when state.json on disk is not the committed one.
func (r *statusRead) diskState() {
	rel := r.st.Rel(r.slug, store.StateFile)
	if disk, err := r.st.ReadWorktree(rel); r.active && err == nil && !bytes.Equal(disk, r.t.StateRaw) {
		r.warn(rel + " has uncommitted changes; the summary shows the committed state (run `itr reconcile`)")
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.warn(err.Error())
	}
}

// undos finds the plain commits that took committed entries out.
func (r *statusRead) undos() {
	if !r.active {
		return
	}
	undos, err := verify.FindUndos(r.st, r.t)
	r.undone = len(undos)
	if err != nil {
		r.warn(err.Error())
	}
	for _, u := range undos {
		r.sum.Undone = append(r.sum.Undone, verify.ReportOf(u))
		r.warn(u.String() + "; they are in git's history: `itr reconcile` puts them back (so does the next checkpoint)")
	}
}

// outputs finds the done units whose outputs broke (an archived task's
// outputs are in its archive, not at HEAD).
func (r *statusRead) outputs() {
	r.badOutput = map[string]bool{}
	if !r.active {
		return
	}
	issues, large, err := verify.OutputsAndWarnings(r.st, r.t)
	r.broken = issues
	if err != nil {
		r.warn(err.Error())
	}
	for _, o := range issues {
		r.badOutput[o.Unit] = true
		r.warn("done unit " + o.String() + ": " + o.Problem.Fix() + " (`itr verify` says how to put it back)")
	}
	for _, o := range large {
		// It passed, but a session that resumes should not try to read it
		// whole.
		r.warn("done unit " + o.String() + ": " + o.Problem.Fix())
	}
	r.pinned()
}

// pinned compares the outputs the done units pinned with HEAD and the
// working tree: one blob id and one file read per pin, a walk of history
// only for a pin HEAD no longer holds.
func (r *statusRead) pinned() {
	pins, err := verify.Pins(r.st, r.t)
	if err != nil {
		r.warn(err.Error())
	}
	r.pins, r.sum.Pins = pins, pins
	for _, p := range pins {
		r.badOutput[p.Unit] = true
		if p.ToldByOutputCheck() {
			continue
		}
		r.warn("done unit " + p.String() + ": " + p.Fix())
	}
}

// orientation reads the files that orient a session, and warns about
// what is wrong with them (an archived task's are in its archive).
func (r *statusRead) orientation() {
	if !r.active {
		return
	}
	o, warns := orientationOf(r.st, r.t)
	r.sum.orient = o
	r.warn(warns...)
}

// sizeAndCounters reads what the summary says of the task as a whole: its
// name and phase, decisions, the log's size and the plan's counters.
func (r *statusRead) sizeAndCounters(s *state.State) {
	sum, st, t := r.sum, r.st, r.t
	sum.Task, sum.Mode, sum.Phase = s.Task, string(s.Mode), string(s.Phase)
	sum.Decisions = decisionsOf(t.DecisionsRaw)
	sum.ProgressSize, sum.LastSummary = sizeOf(r.facts.Size, st.Config.TokenLimit()), r.facts.Size.Summary
	if !r.active {
		return
	}
	if sum.ProgressSize.Over {
		r.warn(sizeWarning(st.Rel(r.slug, store.ProgressFile), sum.ProgressSize, sum.LastSummary != nil))
	}
	var warns []string
	sum.Counters, warns = verify.Counters(st, t, s)
	r.warn(warns...)
	for _, c := range sum.Counters {
		if !c.Agrees {
			r.warn("counter " + c.String() + "; " + c.Fix)
		}
	}
}

// claims reads the units other agents hold and the pending units' missing
// inputs.
func (r *statusRead) claims(s *state.State) {
	if !r.active {
		return
	}
	st, sum := r.st, r.sum
	r.missing = st.MissingInputsIn(r.t, s)
	claims, err := st.Claims(r.slug)
	if err != nil {
		r.warn(err.Error())
		return
	}
	for i, id := range r.ids {
		// A finished claim matters only where the unit's entries have
		// not arrived yet.
		if c, ok := claims[id]; ok && (c.Finished == "" || r.units[i].Status != state.Done) {
			sum.Claims = append(sum.Claims, c)
		}
	}
	r.held = store.HeldByOthers(claims, st.AgentName(), st.Now())
	if len(sum.Claims) > 0 {
		sum.Agent = st.AgentName()
	}
}

// pace reads where the work stands over time: pace, flags, the check-in
// and the phase hint.
func (r *statusRead) pace(s *state.State) {
	st, t, sum, facts := r.st, r.t, r.sum, r.facts
	ut := facts.times()
	now := st.Now()
	sum.now = now
	sum.Pace = paceOf(s, r.ids, r.units, t.Plan, ut, now)
	sum.Flags = []Flag{}
	if !r.active {
		return
	}
	sum.Flags = flagsOf(r.ids, r.units, facts.backs(), ut, now, st.Config.Stale(), func(unit string) string { return staleReading(st, t, s, unit) })
	every := st.Config.CheckInEvery
	if n, ok := t.Plan.MetaCount(plan.MetaCheckIn); ok {
		every = n
	}
	if since := facts.SinceNote; every > 0 && since >= every {
		sum.CheckIn = fmt.Sprintf("%d iterations since the last note (check in every %d): before going on, write down where things stand with `itr note TEXT`, and any lesson with `itr guardrail`", since, every)
	}
	sum.PhaseHint, _ = phaseHint(s, t.Plan)
}

// rows are the units as status shows them, the current unit and the last
// iteration.
func (r *statusRead) rows(s *state.State) {
	sum := r.sum
	r.ix = indexOf(r.t.Plan)
	r.ix.last = map[string]*LastEntry{}
	for id, u := range r.facts.Units {
		r.ix.last[id] = u.Last
	}
	ids, units := r.ids, r.units
	if sum.Units == nil && len(ids) > 0 {
		sum.Units = make([]UnitStatus, 0, len(ids))
	}
	// A view lined up with its plan reads each unit's plan unit and
	// dependencies by position (see plan.Positions), not by ID.
	var deps [][]int
	aligned := false
	if p := r.t.Plan; p != nil {
		deps, aligned = p.Positions(ids)
	}
	for i, id := range ids {
		var us UnitStatus
		if aligned {
			us = r.ix.rowWith(s, id, units[i], r.t.Plan.Units[i], namesAt(ids, deps[i]))
		} else {
			us = r.ix.row(s, id)
		}
		sum.Units = append(sum.Units, us)
		sum.Total++
		switch units[i].Status {
		case state.Done:
			sum.Done++
			sum.DoneOutputs = append(sum.DoneOutputs, doneOutputs(units[i])...)
			if !r.badOutput[id] { // a done unit whose output broke may need work again
				sum.DoNotRepeat = append(sum.DoNotRepeat, id)
			}
		case state.Blocked:
			sum.Blocked = append(sum.Blocked, us)
		}
	}
	if c := state.Val(s.Current); c != "" && s.Units[c] != nil {
		us := r.ix.row(s, c)
		sum.Current = &us
	}
	sum.Last = r.facts.lastIn(s, "")
	if u := state.Val(s.Updated); u != "" {
		sum.LastCheckpoint = u
		if at, err := time.Parse(time.RFC3339, u); err == nil {
			sum.SinceLast = humanDuration(r.st.Now().Sub(at))
		}
	}
}

// advise asks the rule book what may happen next, with everything the
// steps before found, and words its answer.
func (r *statusRead) advise(s, recorded *state.State) {
	st, t, sum, slug := r.st, r.t, r.sum, r.slug
	archive := sum.Archive
	sit, warns := situationOf(st, t, archive, r.facts, r.held, r.missing, len(sum.Discrepancies) > 0, r.undone, r.broken, r.pins)
	r.warn(warns...)
	sit.StaleInputs = staleMap(sum.StaleInputs)
	adv := reconcile.AdviseSynced(s, recorded, t.Plan, sit.Situation)
	sum.adv, sum.held, sum.missing, sum.view, sum.sit = adv, r.held, r.missing, s, sit
	sum.Actions, sum.Hold = actionsOf(adv, slug), holdOf(adv, sit, s, t.Plan, slug)
	sum.Recheck, sum.Edited = adv.Recheck, sit.Edited
	sum.Partial = sit.partials
	partialFixes(sum.Partial, sum.Actions, sum.Hold)
	for _, p := range sum.Partial {
		r.warn(p.String())
	}
	for i, c := range sum.Checks {
		for _, a := range sum.Actions {
			if !c.Recorded && a.Offer.For == reconcile.MoveRerun && a.Unit == c.Unit {
				sum.Checks[i].Rerun = a.Command
			}
		}
	}
	sum.DoNotRepeat = slices.DeleteFunc(sum.DoNotRepeat, func(id string) bool {
		return slices.Contains(adv.Recheck, id) || sit.StaleInputs[id] != nil
	})
	if n := len(sit.Edited); n > 0 {
		r.warn(fmt.Sprintf("%d file%s of the task folder %s changes no commit holds (%s): the next checkpoint commits them with its entry (if a session stopped before its checkpoint, look at them first)",
			n, store.Plural(n, "", "s"), store.Plural(n, "has", "have"), strings.Join(store.FirstN(sit.Edited, 5), ", ")))
	}
	for _, id := range adv.Recheck {
		r.warn(fmt.Sprintf("%s is done but builds on %s, which is no longer done: re-check it once that is done again (`itr reopen %s --reason ...` if its work no longer holds)",
			id, strings.Join(openDeps(s, t.Plan, id), ", "), id))
	}
	r.work(s, adv)
	sum.NextAction = nextAction(t.Slug, s, adv, sum)
	sum.Paused = s.Paused
	if t.Plan.ApprovalRequired() {
		sum.Approval = s.Approval
	}
	sum.Outcome = reconcile.OutcomeOf(s, t.Entries)
}

// work fills the units the advice names: failed, skipped, ready, under
// way, and the unit to work on with its last entry and handoff.
func (r *statusRead) work(s *state.State, adv reconcile.Advice) {
	sum := r.sum
	for _, id := range adv.Failed {
		sum.Failed = append(sum.Failed, r.ix.row(s, id))
	}
	for _, id := range adv.Skipped {
		sum.Skipped = append(sum.Skipped, r.ix.row(s, id))
	}
	if len(adv.Ready) > 0 {
		sum.Next = adv.Ready[0]
	}
	sum.Ready = append([]string{}, adv.Ready...)
	sum.Started = []UnitStatus{}
	for _, id := range adv.Started {
		sum.Started = append(sum.Started, r.ix.row(s, id))
	}
	if adv.Unit == "" {
		return
	}
	w := r.ix.row(s, adv.Unit)
	sum.Work = &w
	sum.WorkLast = r.facts.lastIn(s, adv.Unit)
	if u := r.facts.Units[adv.Unit]; u != nil {
		sum.WorkReopened = u.Reopen
	}
	if r.active {
		sum.Handoff = handoffOf(r.st, r.t, s, r.facts, adv.Unit)
	}
}

// compaction is the seed's compaction summary of what status found.
func (r *statusRead) compaction(s *state.State) {
	sum := r.sum
	sum.CompactionSummary = CompactionSummary{
		Task:            s.Task,
		Progress:        progressLine(sum.Done, sum.Total) + settledLine(sum.adv),
		NextAction:      sum.NextAction,
		CriticalContext: criticalContext(sum, r.facts.Critical, progresslog.ParseGuardrails(r.t.GuardrailsRaw).Entries),
		DoNotRepeat:     sum.DoNotRepeat,
	}
	sum.CompactionSummary.RecoveryInstructions = recoveryInstructions(sum)
	sum.plan = r.t.Plan
	sum.facts = r.facts
}

// outcomeWords words an outcome for a reader of status or prime: the
// result, the kind and the units missing, then the reason and the
// limitations quoted as the data they are: done with limitations
// (missing R1, S2): “one source only”.
func outcomeWords(o *state.Outcome) string {
	bare := *o
	bare.Reason, bare.Limitations = "", ""
	out := bare.Text()
	var why []string
	for _, t := range []string{o.Reason, o.Limitations} {
		if strings.TrimSpace(t) != "" {
			why = append(why, quote(t, 300))
		}
	}
	if len(why) > 0 {
		out += ": " + strings.Join(why, "; ")
	}
	return out
}

// pauseText words a pause: "since 2026-01-14T10:30:00Z: waiting for review".
func pauseText(p *state.Pause) string {
	if p.Reason == "" {
		return "since " + p.Since
	}
	return "since " + p.Since + ": " + p.Reason
}

// UnitOf is unit id of the view s as status shows it, with its title and
// dependencies from the task's plan.
func UnitOf(st *store.Store, t *store.Task, s *state.State, id string) UnitStatus {
	return indexOf(t.Plan).row(s, id)
}

// planIndex is the plan's units and dependencies, looked up once for all
// the rows of a view, so status and prime stay linear in the units.
type planIndex struct {
	p     *plan.Plan
	units map[string]*plan.Unit
	deps  map[string][]string
	// replacedBy are the units that replace each unit ("Replaces:").
	replacedBy map[string][]string
	// last is each unit's newest iteration entry, when the log was read.
	last map[string]*LastEntry
}

func indexOf(p *plan.Plan) planIndex {
	if p == nil {
		return planIndex{}
	}
	if p.ReadOnly() {
		// A parsed plan's units and graph are built once: no maps of
		// every unit for the few rows a view may ask for.
		return planIndex{p: p, replacedBy: p.ReplacedBy()}
	}
	return planIndex{p: p, units: p.Index(), deps: p.DepMap(), replacedBy: p.ReplacedBy()}
}

// unit is the plan's unit id, nil when the plan has none.
func (ix planIndex) unit(id string) *plan.Unit {
	if ix.units == nil && ix.p != nil {
		return ix.p.Unit(id)
	}
	return ix.units[id]
}

// depsOf are the units id depends on.
func (ix planIndex) depsOf(id string) []string {
	if ix.deps == nil && ix.p != nil {
		return ix.p.Deps(id)
	}
	return ix.deps[id]
}

// row is unit id of s as status shows it.
func (ix planIndex) row(s *state.State, id string) UnitStatus {
	u := s.Units[id]
	if u == nil {
		// A unit of the plan itr plan has not recorded yet: the rule book
		// counts it at once, as pending.
		u = &state.Unit{ID: id, Status: state.Pending}
	}
	pu := ix.unit(id)
	var deps []string
	if pu != nil {
		deps = ix.depsOf(id)
	}
	return ix.rowWith(s, id, u, pu, deps)
}

// namesAt are the IDs at positions at, nil for none (as plan.Deps gives
// them).
func namesAt(ids []string, at []int) []string {
	if len(at) == 0 {
		return nil
	}
	out := make([]string, len(at))
	for k, i := range at {
		out[k] = ids[i]
	}
	return out
}

// rowWith is row of the unit id, u, whose plan unit is pu (nil: none) and
// dependencies deps, for a caller that holds them.
func (ix planIndex) rowWith(s *state.State, id string, u *state.Unit, pu *plan.Unit, deps []string) UnitStatus {
	us := UnitStatus{ID: id, Status: string(u.Status), Iterations: state.Val(u.IterationsUsed), Max: state.Val(u.MaxIterations), Reason: state.Val(u.Reason),
		Progress: state.Val(u.Progress), ProgressDetail: state.Val(u.ProgressDetail)}
	if pu != nil {
		us.Title = pu.Title
		us.Depends = deps
		us.Replaces = pu.Replaces
	}
	us.ReasonKind, us.ClearWhen = state.Val(u.ReasonKind), state.Val(u.ClearWhen)
	us.ReplacedBy = ix.replacedBy[id]
	if !noItems(u, pu) { // the lifecycle looks the unit up in the plan three times
		us.Items = itemsIn(u, pu, lifecycleOf(ix.p, id, s.Mode))
	}
	us.Metrics = metricsOf(u, pu)
	us.StartedAt, us.Restarts = state.Val(u.StartedAt), state.Val(u.Restarts)
	if l := ix.last[id]; l != nil {
		us.Agent, us.Model = l.Agent, l.Model
	}
	if pu != nil && modelsDiffer(pu.Model, us.Model) {
		us.PlanModel = strings.TrimSpace(pu.Model)
	}
	return us
}

// modelsDiffer reports whether the model a plan gives a unit and the one
// its newest iteration ran on are both known and differ: neither names
// the other, ignoring case ("sonnet" and "claude-sonnet-4-5" agree).
func modelsDiffer(planned, recorded string) bool {
	p, r := strings.ToLower(strings.TrimSpace(planned)), strings.ToLower(strings.TrimSpace(recorded))
	if p == "" || r == "" {
		return false
	}
	return !strings.Contains(r, p) && !strings.Contains(p, r)
}

// lastEntry is an iteration entry as a summary shows it, nil for none.
func lastEntry(e *progresslog.Entry) *LastEntry {
	if e == nil {
		return nil
	}
	l := &LastEntry{Unit: e.Unit, Iteration: e.Iteration, Time: e.Stamp}
	l.Did, _ = e.Field("Did")
	l.Remaining, _ = e.Field("Remaining")
	l.Blockers, _ = e.Field("Blockers")
	who := progresslog.WhoOf(*e)
	l.Agent, l.Model, l.Session = who.Agent, who.Model, who.Session
	if v, ok := e.Field(progresslog.FieldFiles); ok {
		l.Files, l.FilesMore = progresslog.ParseFiles(v)
	}
	return l
}

func progressLine(done, total int) string {
	if total == 0 {
		return "no units planned yet"
	}
	return fmt.Sprintf("%d/%d units done, %d%% complete", done, total, done*100/total)
}

func criticalContext(sum *Summary, critical []string, guardrails []progresslog.Guardrail) []string {
	out := []string{}
	for _, n := range critical {
		out = append(out, "critical: "+quote(n, 300))
	}
	// The guardrails that name the unit at hand come first; the rest
	// apply to every unit.
	unit := ""
	if sum.Work != nil {
		unit = sum.Work.ID
	}
	var named, rest []string
	for _, g := range guardrails {
		text := "guardrail " + quote(g.Name, 100)
		if w := strings.TrimSpace(g.When); w != "" {
			text += " (when " + quote(w, 160) + ")"
		}
		if unit != "" && mentions(g, unit) {
			named = append(named, text)
		} else {
			rest = append(rest, text)
		}
	}
	out = append(out, store.FirstN(append(named, rest...), 8)...)
	for _, c := range sum.Checks {
		out = append(out, "check that did not pass: "+c.String())
	}
	if sum.Last != nil {
		if sum.Last.Remaining != "" && !strings.EqualFold(sum.Last.Remaining, "none") {
			out = append(out, fmt.Sprintf("remaining on %s: %s", sum.Last.Unit, quote(sum.Last.Remaining, 300)))
		}
		if sum.Last.Blockers != "" && !strings.EqualFold(sum.Last.Blockers, "none") {
			out = append(out, fmt.Sprintf("blockers on %s: %s", sum.Last.Unit, quote(sum.Last.Blockers, 300)))
		}
	}
	for _, b := range sum.Blocked {
		out = append(out, fmt.Sprintf("%s blocked: %s", b.ID, quote(blockWords(b), 200)))
	}
	for _, f := range sum.Failed {
		out = append(out, fmt.Sprintf("%s failed (needs someone): %s", f.ID, quote(kindReason(f.ReasonKind, f.Reason), 200)))
	}
	for _, sk := range sum.Skipped {
		out = append(out, fmt.Sprintf("%s skipped (do not work on it): %s", sk.ID, quote(sk.Reason, 200)))
	}
	return out
}

// mentions reports whether a guardrail names unit as a word, a word being
// a run of ASCII letters, digits, '-' and '_' (the bytes of an ID) without
// the dashes that end it: "IV-A" in "before IV-A's draft" or "(IV-A)", but
// not "IV" in "IV-A" nor "T1" in "T10".
func mentions(g progresslog.Guardrail, unit string) bool {
	notID := func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}
	for _, text := range []string{g.Name, g.When, g.Problem, g.Solution} {
		if !strings.Contains(text, unit) {
			continue
		}
		for _, w := range strings.FieldsFunc(text, notID) {
			if strings.Trim(w, "-") == unit {
				return true
			}
		}
	}
	return false
}

// recoveryInstructions are what an agent does after a compaction or in a
// new session, most urgent first.
func recoveryInstructions(sum *Summary) []string {
	out := []string{"after a compaction or in a new session, run `itr prime` (MCP: resume) before anything else, and trust it over memory"}
	if sum.Paused != nil {
		out = append(out, "the task is paused ("+pauseText(sum.Paused)+"): do no work on it until `itr resume`")
	}
	if o := sum.Outcome; o != nil && sum.Archive == "" {
		out = append(out, "the task is concluded ("+outcomeWords(o)+"): do no work on it; it is archived next, unless a person takes it back to work with `itr resume`")
	}
	for _, f := range sum.Flags {
		out = append(out, f.Kind+": "+f.Text)
	}
	for _, c := range sum.Checks {
		out = append(out, "look first at "+c.String())
	}
	for _, p := range sum.Partial {
		out = append(out, "look first at "+p.String())
	}
	if len(sum.DoNotRepeat) > 0 {
		out = append(out, "do not repeat the done units: "+strings.Join(store.FirstN(sum.DoNotRepeat, 20), ", "))
	}
	if w := sum.Work; w != nil && w.Items != nil {
		if len(w.Items.DoNotRepeat) > 0 {
			out = append(out, fmt.Sprintf("do not repeat the items of %s recorded done or skipped: %s", w.ID, rangesText(w.Items.DoNotRepeat)))
		}
		if w.Items.Next != "" {
			out = append(out, fmt.Sprintf("the next item of %s is %s; record items with `itr checkpoint %s --item ID`", w.ID, visible(w.Items.Next), w.ID))
		}
	}
	for _, c := range sum.Counters {
		if !c.Agrees {
			out = append(out, "counter "+c.String()+": "+c.Fix)
		}
	}
	if sum.CheckIn != "" {
		out = append(out, sum.CheckIn)
	}
	if ls := sum.LastSummary; ls != nil {
		out = append(out, fmt.Sprintf("progress.md has a Summary entry at line %d that stands for every entry before it: read the log from there on", ls.Line))
	}
	if len(sum.Decisions) > 0 {
		out = append(out, "the decisions in decisions.md are settled: do not argue them again; `itr decide` with the same title records a new choice that replaces one")
	}
	out = append(out, "next: "+sum.NextAction)
	return out
}

// staleReading is seed 004's reading of a stale unit: likely paused (the
// task is paused, or the tree is clean) or likely interrupted (a check or
// uncommitted changes were left behind).
func staleReading(st *store.Store, t *store.Task, s *state.State, unit string) string {
	if s.Paused != nil {
		return "likely paused: the task is paused (" + pauseText(s.Paused) + ")"
	}
	if m, ok := st.RunMarker(t.Slug, unit); ok && !m.Alive() {
		return "likely interrupted: its check " + m.Command + " was cut off (" + m.Started + ")"
	}
	paths, err := st.Repo.Uncommitted(t.Dir)
	switch {
	case err != nil:
		return "cannot tell whether it was paused or interrupted (" + err.Error() + ")"
	case len(paths) > 0:
		return fmt.Sprintf("likely interrupted: %d work file%s not committed (%s); look at them before going on", len(paths), store.Plural(len(paths), "", "s"), strings.Join(store.FirstN(paths, 3), ", "))
	}
	return "likely paused: the work tree is clean"
}

// FutureSuffix ends SinceLast when the last checkpoint is later than now
// (a clock that is behind, or a commit from a machine whose clock is ahead).
const FutureSuffix = " in the future (check the clock)"

// humanDuration is d rounded for a person ("42s", "5m", "3h07m", "4d"); a
// negative d is its size followed by FutureSuffix.
func humanDuration(d time.Duration) string {
	switch {
	case d < 0:
		return humanDuration(-d) + FutureSuffix
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// NextInfo answers `itr next`. Its JSON field names are part of itr's
// interface.
type NextInfo struct {
	Unit    string   `json:"unit,omitempty"`
	Title   string   `json:"title,omitempty"`
	Status  string   `json:"status,omitempty"`
	Reasons []string `json:"reasons"`
	// Handoff is what the unit receives from the units before it.
	Handoff *Handoff `json:"handoff,omitempty"`
	// Next is the next action in words, Actions the moves the rule book
	// accepts now, and Hold why no work can be recorded (with what clears
	// it), as in status.
	Next    string   `json:"next"`
	Actions []Action `json:"actions"`
	Hold    *Hold    `json:"hold,omitempty"`
}

// Next returns the unit to work on now (the current unfinished unit, else
// the first ready one) or, when the task is held or no unit is ready,
// why: the same advice as status and prime.
func Next(st *store.Store, slug string) (*NextInfo, error) {
	sum, t, err := status(st, slug)
	if err != nil {
		return nil, err
	}
	// A state.json or plan that does not read is a hold like any other:
	// its own error, and what clears it.
	adv := sum.adv
	info := &NextInfo{Reasons: []string{}, Next: sum.NextAction, Actions: sum.Actions, Hold: sum.Hold}
	if h := sum.Hold; h.Whole() {
		info.Reasons = append(info.Reasons, h.Reason+"; "+h.Clear)
		return info, nil
	}
	if id := firstWork(sum.Actions); id != "" && adv.Move != reconcile.MoveRepair {
		w := ix(sum, id)
		info.Unit, info.Status, info.Title = w.ID, w.Status, w.Title
		h := sum.Handoff
		if sum.Work == nil || sum.Work.ID != id {
			h = handoffOf(st, t, sum.view, sum.facts, id)
		}
		if h != nil && (len(h.Inputs) > 0 || len(h.From) > 0) {
			info.Handoff = h
		}
		return info, nil
	}
	if adv.Move == reconcile.MoveRepair {
		info.Reasons = append(info.Reasons, sum.NextAction)
		if id := firstWork(sum.Actions); id != "" {
			info.Reasons = append(info.Reasons, fmt.Sprintf("meanwhile %s can take work: it does not build on %s", id, adv.MoveUnit))
		}
		return info, nil
	}
	info.Reasons = append(info.Reasons, whyNone(t.State, t.Plan, adv)...)
	return info, nil
}

// firstWork is the unit of the first action that records work, "" for
// none.
func firstWork(actions []Action) string {
	for _, a := range actions {
		if a.Offer.Op == reconcile.OpCheckpoint {
			return a.Unit
		}
	}
	return ""
}

// ix is the summary's row of unit id.
func ix(sum *Summary, id string) UnitStatus {
	for _, u := range sum.Units {
		if u.ID == id {
			return u
		}
	}
	return UnitStatus{ID: id}
}

// whyNone says why no unit can be worked on, unit by unit.
func whyNone(s *state.State, p *plan.Plan, adv reconcile.Advice) []string {
	if adv.Total == 0 {
		return []string{fmt.Sprintf("no units: write %s and run `itr plan`", reconcile.PlanName(s.Mode))}
	}
	out := stuckWords(s, p, adv.Stuck)
	if len(out) == 0 {
		out = append(out, "every unit is done")
		if adv.Done < adv.Total {
			out[0] = "every unit is done, skipped or replaced"
		}
	}
	return out
}

// LogRow is one itr commit of a task.
type LogRow struct {
	Commit    string `json:"commit"`
	Time      string `json:"time"`
	Event     string `json:"event"`
	Unit      string `json:"unit,omitempty"`
	Iteration string `json:"iteration,omitempty"`
	Status    string `json:"status,omitempty"`
	Subject   string `json:"subject"`
	// Agent, Model and Session are who made the commit's entry, where the
	// entry says; Files the files its work commits changed (an
	// iteration's, the first ten) and FilesMore how many more.
	Agent     string   `json:"agent,omitempty"`
	Model     string   `json:"model,omitempty"`
	Session   string   `json:"session,omitempty"`
	Files     []string `json:"files,omitempty"`
	FilesMore int      `json:"files_more,omitempty"`
}

// Log lists the task's itr commits, newest first, walking first parents
// from HEAD and stopping at the task's Created commit, so its cost grows
// with the task's history, not the repository's.
func Log(st *store.Store, slug string, limit int) ([]LogRow, error) {
	slug, err := st.Select(slug)
	if err != nil {
		return nil, err
	}
	rows := []LogRow{}
	head, err := st.Repo.Head()
	if err != nil {
		return nil, err
	}
	if head.Unborn {
		return rows, nil
	}
	// An archived task's history is read from its archive ref.
	from := "HEAD"
	if active, err := st.ActiveAt(slug); err != nil {
		return nil, err
	} else if !active {
		if _, commit, err := st.FindArchive(slug, ""); err == nil {
			from = commit
		}
	}
	entries := logEntriesAt(st, from, slug)
	err = st.Repo.History(from, func(c gitstate.Commit) bool {
		if v, _ := c.Trailer(store.TrailerTask); v != slug {
			return true
		}
		r := LogRow{Commit: c.Hash, Time: c.Committer.When.UTC().Format(time.RFC3339), Subject: c.Subject}
		r.Event, _ = c.Trailer(store.TrailerEvent)
		r.Unit, _ = c.Trailer(store.TrailerUnit)
		r.Iteration, _ = c.Trailer(store.TrailerIteration)
		r.Status, _ = c.Trailer(store.TrailerStatus)
		if e := entries.of(c, r.Event); e != nil {
			who := progresslog.WhoOf(*e)
			r.Agent, r.Model, r.Session = who.Agent, who.Model, who.Session
			if v, ok := e.Field(progresslog.FieldFiles); ok {
				r.Files, r.FilesMore = progresslog.ParseFiles(v)
			}
		}
		rows = append(rows, r)
		if limit > 0 && len(rows) >= limit {
			return false
		}
		return r.Event != store.EventCreated
	})
	return rows, err
}

// ListRow is one task of `itr list`.
type ListRow struct {
	Slug         string `json:"slug"`
	Task         string `json:"task"`
	Mode         string `json:"mode"`
	Phase        string `json:"phase"`
	Done         int    `json:"done"`
	Total        int    `json:"total"`
	LastActivity string `json:"last_activity,omitempty"`
	State        string `json:"state"` // active, archived, or the reason it cannot be read
	// Archive is the ref an archived task is read from; Archives every
	// archive tag of the slug, oldest first.
	Archive  string   `json:"archive,omitempty"`
	Archives []string `json:"archives,omitempty"`
	// Outcome is how the task ended (complete, done with limitations,
	// abandoned with the reason, failed with the reason and kind); absent
	// while it runs.
	Outcome *state.Outcome `json:"outcome,omitempty"`
}

// List lists every task under the root with its phase and progress.
func List(st *store.Store) ([]ListRow, error) {
	slugs, err := st.Slugs()
	if err != nil {
		return nil, err
	}
	rows := []ListRow{}
	for _, slug := range slugs {
		r := ListRow{Slug: slug, State: "active"}
		t, err := st.Load(slug)
		switch {
		case err != nil:
			r.State = err.Error()
		case t.State == nil:
			r.State = t.StateErr.Error()
		default:
			s := t.State
			r.Task, r.Mode, r.Phase, r.LastActivity = s.Task, string(s.Mode), string(s.Phase), state.Val(s.Updated)
			r.Outcome = s.Outcome
			for _, u := range s.Units {
				r.Total++
				if u.Status == state.Done {
					r.Done++
				}
			}
		}
		rows = append(rows, r)
	}
	archived, err := ArchivedRows(st)
	if err != nil {
		return nil, err
	}
	return append(rows, archived...), nil
}

// ArchivedRows are List's rows of the archived tasks alone, each read from
// its archive.
func ArchivedRows(st *store.Store) ([]ListRow, error) {
	archives, err := st.Archives()
	if err != nil {
		return nil, err
	}
	var rows []ListRow
	for _, a := range archives {
		r := ListRow{Slug: a.Slug, State: "archived", Archive: a.Ref, Archives: a.Tags}
		t := &store.Task{Slug: a.Slug, Dir: st.TaskDir(a.Slug)}
		switch err := st.ReadTaskAt(t, a.Commit); {
		case err != nil:
			r.State = fmt.Sprintf("archived in %s, unreadable: %v", a.Ref, err)
		case t.State == nil:
			r.State = fmt.Sprintf("archived in %s, unreadable: %v", a.Ref, t.StateErr)
		default:
			s := t.State
			r.Task, r.Mode, r.Phase, r.LastActivity = s.Task, string(s.Mode), string(s.Phase), state.Val(s.Updated)
			r.Done, r.Total, _ = ProgressOf(s)
			r.Outcome = reconcile.OutcomeOf(s, t.Entries)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// openDeps are the dependencies of a done unit, direct or not, that are
// no longer settled.
func openDeps(s *state.State, p *plan.Plan, id string) []string {
	if p == nil {
		return nil
	}
	settled := reconcile.SettledFunc(s, p)
	deps := reconcile.BuildsOnMap(p)
	seen := map[string]bool{}
	var out []string
	var walk func(string)
	walk = func(id string) {
		for _, d := range deps[id] {
			if seen[d] {
				continue
			}
			seen[d] = true
			if !settled(d) {
				out = append(out, d)
			}
			walk(d)
		}
	}
	walk(id)
	return out
}

// dependants are the unfinished units that depend on id, directly.
func dependants(sum *Summary, id string) []string {
	var out []string
	for _, u := range sum.Units {
		if u.Status != string(state.Done) && slices.Contains(u.Depends, id) {
			out = append(out, u.ID)
		}
	}
	return out
}
