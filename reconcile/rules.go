package reconcile

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/itr-dev/itr/evidence"
	"github.com/itr-dev/itr/internal/clip"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// The rule book. Every front end (the CLI, the MCP server, hooks) turns a
// request into an Intent; Decide checks it against the state and the plan
// and gives the event to record; the reducer (Step) applies events only
// after the same checks (allowed). Advise answers the other half: what may
// happen next. A refusal is a *Refusal, data that each front end words in
// its own terms.

// Action is what an Intent asks for.
type Action int

// The actions a front end can ask for.
const (
	// Work records one iteration of a unit (a checkpoint).
	Work Action = iota
	// Start asks whether a unit can be worked on now; it records nothing.
	Start
	// Finish moves a unit one step along the closing path: in_progress →
	// confirming, confirming → verifying, verifying → done; Failed records
	// a check that did not hold, which sends the unit back to in_progress.
	Finish
	// Block marks a unit blocked.
	Block
	// Unblock returns a blocked unit to work.
	Unblock
	// Reopen sends a done unit found wrong back to in_progress, and a
	// failed or skipped unit back to work.
	Reopen
	// Fail marks a unit failed: it cannot go on without someone.
	Fail
	// Skip marks a unit skipped: left out on purpose.
	Skip
	// Restart starts a unit's work over from nothing: a unit under way or
	// failed goes back to pending, its iterations kept (restart.go).
	Restart
	// Recheck records that a done unit whose inputs changed after it was
	// done was read again against them and still holds (approve.go).
	Recheck
	// Repin accepts a change to a done unit's outputs on purpose: they are
	// pinned again as they are now (pins.go).
	Repin
)

// Intent is a front end's request about one unit, before it is an event.
type Intent struct {
	Action Action
	// Unit is the unit's ID; "" is the unit Advise names (Work, Start,
	// Finish only).
	Unit string
	// Signal declares the work done (in_progress) or confirmed
	// (confirming); Work only.
	Signal bool
	// Verified says verification passed; Work only, in verifying.
	Verified bool
	// Failed says the check of a Finish did not hold.
	Failed bool
	// Run is the verification run made for this request, nil when none
	// was (or, with WillRun, when it is still to be made). A run that did
	// not pass takes back the request's signal or verification: the unit
	// goes where the lifecycle sends a failed check.
	Run *state.Run
	// Checks are the named checks run for this request (with Run, the one
	// that decided, nil when every check passed before on this tree and
	// was not run again): one that failed takes back the signal or the
	// verification like a failed run; one that broke (error) while none
	// failed holds the unit at its gate (ChecksHold).
	Checks []CheckRun
	// WillRun says a run is to be made before the request is recorded;
	// Decide then checks everything but its outcome.
	WillRun bool
	// VerifiedBy names the person or external check that verified the
	// unit, evidence in place of a run.
	VerifiedBy string
	// Reason is why the unit is blocked (Block), reopened (Reopen), failed
	// (Fail), skipped (Skip) or restarted (Restart).
	Reason string
	// ReasonKind is what a blocked or failed unit needs to go on (one of
	// state.BlockKinds, of state.FailKinds for Fail; "" for none), and
	// ClearWhen when a block is over (Block only).
	ReasonKind, ClearWhen string
	// Activity, when the rule book must pick among started units, gives
	// the order of their last entries in the log (it is called only then,
	// so a caller that has not parsed the log pays nothing otherwise).
	Activity func() Activity
	// Items are the items of the unit's ledger the request records (Work
	// and Finish): each must be one of the unit's items when the plan
	// gives them ("Items:").
	Items []state.ItemMark
	// Values are values of the unit's items the request records (Work and
	// Finish), each naming its item; Metrics the unit's metrics.
	Values  []state.ItemValue
	Metrics []state.Metric
	// Counts are the units' plan counters counted in their files: a move
	// toward done is refused while one disagrees with the items done
	// (where the plan says "Settle items before done"). nil counts none.
	Counts Counts
	// Held are the units other agents hold (claims whose lease runs), each
	// with who holds it until when ("bob@ci:wt until 2026-01-14T12:00:00Z"):
	// work on them is refused, and a unit to work on is picked among the
	// others.
	Held Held
	// Missing are the inputs each unit's plan entry names that are not
	// there (MissingInputs): a pending unit with any cannot start, and a
	// unit to work on is picked among the others.
	Missing Missing
}

// Held maps a unit another agent holds to who holds it until when.
type Held map[string]string

// Activity is the order of the units' last entries in the log: unit → the
// index of its newest entry (a higher index is newer). Units it lacks
// count as the oldest, in natural ID order.
type Activity map[string]int

// ActivityOf reads the order of the units' last entries from a log.
func ActivityOf(entries []progresslog.Entry) Activity {
	a := Activity{}
	for i, e := range entries {
		if e.Unit != "" {
			a[e.Unit] = i + 1
		}
	}
	return a
}

// Code names the rule that refused a request.
type Code string

// The refusals of the rule book.
const (
	NoUnits        Code = "no-units"        // the task has no units yet
	UnknownUnit    Code = "unknown-unit"    // the unit is not in the task
	NotAnID        Code = "not-an-id"       // the text is not a unit ID (no plan to say)
	NoneReady      Code = "none-ready"      // no unit named and none is ready
	UnitDone       Code = "done"            // the unit is finished
	UnitBlocked    Code = "blocked"         // the unit is blocked
	UnitTimedOut   Code = "timeout"         // the unit used all its iterations
	WaitsFor       Code = "waits"           // a dependency is unfinished
	AlreadyBlocked Code = "already-blocked" // blocking a blocked unit
	NotBlocked     Code = "not-blocked"     // unblocking a unit that is not blocked
	NotStarted     Code = "not-started"     // finishing a unit that has not begun
	NeedsVerdict   Code = "needs-verdict"   // a signal in verifying, where the verdict decides
	VerifiedEarly  Code = "verified-early"  // verified outside verifying
	FailedEarly    Code = "failed-early"    // a failed check in in_progress
	WrongSignal    Code = "wrong-signal"    // not the unit's completion signal
	BadMove        Code = "bad-move"        // any other move the lifecycle forbids
	PhaseEarly     Code = "phase-early"     // verify or deliver while units are unfinished
	OutputBad      Code = "output-bad"      // moving a unit toward done while an output it names fails the check
	NotDone        Code = "not-done"        // reopening a unit that is not done
	NotPinnable    Code = "not-pinnable"    // pinning again the outputs of a unit that is not done
	NoOutputs      Code = "no-outputs"      // pinning the outputs of a unit whose plan names none
	NoEvidence     Code = "no-evidence"     // verified with neither a passing run nor who verified it
	TaskPaused     Code = "paused"          // work on a paused task
	BudgetSpent    Code = "budget-spent"    // the task used its Max total iterations
	AlreadyPaused  Code = "already-paused"  // pausing a paused task
	NotPaused      Code = "not-paused"      // resuming a task that is not paused
	HeldElsewhere  Code = "held"            // work on a unit another agent holds
	InputsMissing  Code = "inputs-missing"  // starting a unit whose inputs are not there
	StandsBy       Code = "stands-by"       // starting a unit that replaces units that have not failed
	UnitFailed     Code = "failed"          // work on a failed unit
	UnitSkipped    Code = "skipped"         // work on a skipped unit
	AlreadyFailed  Code = "already-failed"  // failing a failed unit
	AlreadySkipped Code = "already-skipped" // skipping a skipped unit
	FinishedUnit   Code = "finished"        // failing or skipping a done unit
	BadKind        Code = "bad-kind"        // a reason kind the action does not take
	UnknownItem    Code = "unknown-item"    // an item the unit's plan does not give
	NotRestartable Code = "not-restartable" // restarting a unit that is not under way or failed
	// Concluded refuses work (and any unit event, and a pause) on a task
	// that has an outcome, until itr resume takes it back to work.
	Concluded Code = "concluded"
	// AlreadyConcluded refuses a second outcome.
	AlreadyConcluded Code = "already-concluded"
	// NeedsLimitations refuses a delivery of a task with unsettled units
	// that does not say what is missing (itr deliver --limitations).
	NeedsLimitations Code = "needs-limitations"
)

// Dep is an unfinished dependency and its status ("" when the unit is
// missing from the task).
type Dep struct {
	ID     string
	Status state.Status
}

// String reads "T1 (pending)".
func (d Dep) String() string {
	st := string(d.Status)
	if st == "" {
		st = "missing"
	}
	return d.ID + " (" + st + ")"
}

// Refusal is a request the rule book does not allow, as data: which rule,
// which unit in which status, and what the fix needs (the block's reason,
// the limit, the units there are, the unfinished dependencies). Nothing
// was changed. Error words it with the domain's names for the fields of a
// request (signal, verified); Worded lets a front end name them its way.
type Refusal struct {
	Code     Code
	Unit     string
	Status   state.Status
	To       state.Status // for BadMove: the status asked for
	Reason   string       // the block's reason
	Max      int          // the iteration limit
	Units    []string     // the task's units, for UnknownUnit
	PlanFile string       // tasks.md or plan.md
	Waiting  []Dep        // for WaitsFor
	Signal   string       // for WrongSignal: the signal given
	Want     string       // for WrongSignal: the unit's signal
	// Stuck, for NoneReady, says why each unfinished unit cannot move: a
	// refusal of each (blocked, timed out, waiting), in natural ID order.
	Stuck []*Refusal
	// Phase is the phase asked for, for PhaseEarly (Units then lists the
	// unfinished units with their statuses).
	Phase state.Phase
	// Active is set by the reducer when a plan is in force: an unknown
	// unit is then named against the plan's file.
	Active bool
	// Outputs, for OutputBad, are the problems of the unit's outputs, file
	// by file and rule by rule.
	Outputs []evidence.Problem
	// Since is when the task was paused, for TaskPaused and AlreadyPaused
	// (Reason is why).
	Since string
	// Missing, for InputsMissing, are the unit's inputs that are not there.
	Missing []string
	// NotNeeded, for StandsBy, says every unit it replaces (Waiting) is
	// done.
	NotNeeded bool
	// ReasonKind and ClearWhen are the kind of a block or failure and when
	// a block clears (UnitBlocked, AlreadyBlocked, UnitFailed,
	// AlreadyFailed); for BadKind ReasonKind is the kind asked for.
	ReasonKind, ClearWhen string
	// Mode is the task's mode, for the plan file a fix names (UnitFailed).
	Mode state.Mode
	// Item is the item asked for, for UnknownItem, and ItemsText the
	// unit's items ("1 to 17", or the list).
	Item, ItemsText string
	// Items says more of the item rules' refusals (UnknownItemState,
	// ItemsUnsettled, CounterDisagrees, MetricShort).
	Items *ItemRefusal
	// Outcome is the task's outcome, for Concluded and AlreadyConcluded.
	Outcome *state.Outcome
	// Line is the line of the plan's "**Max total iterations:**", for
	// BudgetSpent (0 when unknown); Units then lists the units whose work
	// is not accounted for, and NeedsLimitations lists them too.
	Line int
	// unclipped is Unit as the request named it, in a Clipped copy.
	unclipped string
}

// Clipped is a copy of r whose texts that came from a request or a log
// (the unit named, a reason, when a block clears) are cut to what a
// message may quote of them (clip.Text), for wording.
func (r *Refusal) Clipped() *Refusal {
	c := *r
	if c.unclipped == "" {
		c.unclipped = r.Unit
	}
	c.Unit, c.Reason, c.ClearWhen = clip.Text(r.Unit), clip.Text(r.Reason), clip.Text(r.ClearWhen)
	return &c
}

// Error words the refusal with the domain's field names.
func (r *Refusal) Error() string { return r.Worded(func(f string) string { return f }) }

// Worded is the message with each field of the request named by field
// ("signal", "verified"), e.g. as a flag.
func (r *Refusal) Worded(field func(string) string) string {
	r = r.Clipped()
	for _, w := range []func(func(string) string) string{r.wordedTask, r.wordedUnit, r.wordedRequest, r.itemWords, r.approvalWords} {
		if msg := w(field); msg != "" {
			return msg
		}
	}
	return fmt.Sprintf("unit %s: %s", r.Unit, r.Code)
}

// wordedTask words the refusals about the task as a whole; "" for the others.
func (r *Refusal) wordedTask(field func(string) string) string {
	u := r.Unit
	switch r.Code {
	case NoUnits:
		return fmt.Sprintf("unit %s is not in the task: it has no units yet; write %s and run `itr plan`", u, r.PlanFile)
	case UnknownUnit:
		if err := state.CheckID(r.unclipped); err != nil {
			return fmt.Sprintf("%v; the units of %s: %s", err, r.PlanFile, strings.Join(r.Units, ", "))
		}
		if i := slices.IndexFunc(r.Units, func(id string) bool { return strings.EqualFold(id, u) }); i >= 0 {
			where := "the task"
			if r.Active {
				where = r.PlanFile
			}
			return fmt.Sprintf("unit %s is not in %s: unit IDs are case-sensitive; did you mean %s? (units: %s)", u, where, r.Units[i], strings.Join(r.Units, ", "))
		}
		if r.Active {
			return fmt.Sprintf("unit %s is not in %s (units: %s)", u, r.PlanFile, strings.Join(r.Units, ", "))
		}
		return fmt.Sprintf("unit %s is not in the task (units: %s); add it to %s and run `itr plan`", u, strings.Join(r.Units, ", "), r.PlanFile)
	case NotAnID:
		return fmt.Sprintf("%q is not a unit ID: %s", u, state.IDRule)
	case NoneReady:
		return "no unit is ready; name one: itr checkpoint UNIT " + field("did") + " ... (itr next says why none is ready)"
	case BudgetSpent:
		return fmt.Sprintf("the task used all %d of its iterations (\"**Max total iterations:** %d\" at %s); nothing was recorded: %s", r.Max, r.Max, r.budgetAt(), BudgetWaysOut(r, field))
	case Concluded:
		return fmt.Sprintf("the task is concluded, %s; nothing was recorded: it takes no more work: archive it (`itr archive`), or take it back to work with `itr resume`", outcomeText(r.Outcome))
	case AlreadyConcluded:
		return fmt.Sprintf("the task is already concluded, %s; nothing was recorded: to record another outcome, take it back to work with `itr resume` first", outcomeText(r.Outcome))
	case NeedsLimitations:
		return fmt.Sprintf("%d unit%s unfinished (%s): say what the delivery lacks with %s TEXT (the outcome is then done with limitations), or finish %s first",
			len(r.Units), plural(len(r.Units)), strings.Join(firstOf(r.Units, 5), ", "), field("limitations"), map[bool]string{true: "it", false: "them"}[len(r.Units) == 1])
	case TaskPaused:
		return fmt.Sprintf("the task is paused (since %s: %s); nothing was recorded: resume it with `itr resume` first", r.Since, orWhy(r.Reason))
	case AlreadyPaused:
		return fmt.Sprintf("the task is already paused (since %s: %s); `itr resume` resumes it", r.Since, orWhy(r.Reason))
	case NotPaused:
		return "the task is neither paused nor concluded; there is nothing to resume"
	case PhaseEarly:
		return fmt.Sprintf("phase %s with %d unit%s unfinished (%s): finish %s first, or pass %s to move on anyway",
			r.Phase, len(r.Units), plural(len(r.Units)), strings.Join(firstOf(r.Units, 5), ", "), map[bool]string{true: "it", false: "them"}[len(r.Units) == 1], field("force"))
	}
	return ""
}

// wordedUnit words the refusals for the unit's own state; "" for the others.
func (r *Refusal) wordedUnit(field func(string) string) string {
	u := r.Unit
	switch r.Code {
	case UnitDone:
		return fmt.Sprintf("unit %s is done; a finished unit takes no more iterations (if it was found wrong, send it back with `itr reopen %s %s TEXT`)", u, u, field("reason"))
	case UnitBlocked:
		return fmt.Sprintf("unit %s is blocked (%s); run `itr unblock %s` first", u, blockText(r), u)
	case InputsMissing:
		return inputsMissing(r)
	case StandsBy:
		return standsByText(r)
	case UnitFailed:
		return fmt.Sprintf("unit %s failed (%s); nothing was recorded: a failed unit takes no work until it is reopened: %s", u, kindReason(r.ReasonKind, r.Reason), FailedFix(u, r.Mode, field))
	case UnitSkipped:
		return fmt.Sprintf("unit %s was skipped (%s); nothing was recorded: to work on it after all, reopen it with `itr reopen %s %s TEXT`", u, r.Reason, u, field("reason"))
	case HeldElsewhere:
		return fmt.Sprintf("unit %s is held by %s; pick another unit (itr next), or ask them to release it (itr release %s)", u, r.Reason, u)
	case UnitTimedOut:
		return fmt.Sprintf("unit %s reached its limit of %d iterations; raise its Max iterations in the plan and run `itr plan`", u, r.Max)
	case WaitsFor:
		return fmt.Sprintf("unit %s cannot start: it depends on %s; finish those first (itr next shows what is ready)", u, joinDeps(r.Waiting))
	}
	return ""
}

// wordedRequest words the refusals of a request that does not fit the unit; "" for the others.
func (r *Refusal) wordedRequest(field func(string) string) string {
	u := r.Unit
	switch r.Code {
	case AlreadyFailed:
		return fmt.Sprintf("unit %s already failed (%s); nothing was recorded: to fail it for another reason, reopen it first (`itr reopen %s %s TEXT`)", u, kindReason(r.ReasonKind, r.Reason), u, field("reason"))
	case AlreadySkipped:
		return fmt.Sprintf("unit %s is already skipped (%s); nothing was recorded", u, r.Reason)
	case FinishedUnit:
		return fmt.Sprintf("unit %s is done, so it cannot become %s; nothing was recorded: if its work was found wrong, reopen it first (`itr reopen %s %s TEXT`)", u, r.To, u, field("reason"))
	case BadKind:
		kinds, what := state.BlockKinds, "block kind"
		if r.To == state.Failed {
			kinds, what = state.FailKinds, "failure kind"
		}
		return fmt.Sprintf("%q is not a %s (one of %s); nothing was recorded", r.ReasonKind, what, strings.Join(kinds, ", "))
	case AlreadyBlocked:
		return fmt.Sprintf("unit %s is already blocked (%s); run `itr unblock %s` first to block it for another reason", u, blockText(r), u)
	case NotBlocked:
		return fmt.Sprintf("unit %s is %s, not blocked; there is nothing to unblock", u, r.Status)
	case NotStarted:
		return fmt.Sprintf("unit %s is %s: record its first iteration before finishing it", u, r.Status)
	case NeedsVerdict:
		return fmt.Sprintf("unit %s is verifying: pass %s when verification passed, or neither flag when it found problems (the unit goes back to in_progress)", u, field("verified"))
	case VerifiedEarly:
		return fmt.Sprintf("unit %s is %s: %s applies only in verifying, after the confirmation (%s) passed", u, r.Status, field("verified"), field("signal"))
	case FailedEarly:
		return fmt.Sprintf("unit %s is %s: a failed check applies only in confirming or verifying; record more work instead", u, r.Status)
	case WrongSignal:
		return fmt.Sprintf("signal %q is not the completion signal of %s (%s)", r.Signal, u, r.Want)
	case BadMove:
		return (&state.TransitionError{Unit: u, From: r.Status, To: r.To}).Error()
	case NotDone:
		return notDone(r, field)
	case NotPinnable, NoOutputs:
		return notPinnable(r, field)
	case NotRestartable:
		return notRestartable(r, field)
	case NoEvidence:
		return fmt.Sprintf("unit %s cannot be verified on a claim (nothing was recorded): run its check with %s, or name the person or external check that verified it with %s TEXT",
			u, field("verify"), field("verified-by"))
	case OutputBad:
		return fmt.Sprintf("unit %s cannot move toward done (nothing was recorded): %s", u, OutputProblems(r.Outputs))
	case UnknownItem:
		return fmt.Sprintf("item %s is not an item of %s (its items in %s: %s); nothing was recorded", r.Item, u, r.PlanFile, r.ItemsText)
	}
	return ""
}

// JoinDeps reads "T1 (pending), T2 (missing)".
func JoinDeps(ds []Dep) string { return joinDeps(ds) }

func joinDeps(ds []Dep) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.String()
	}
	return strings.Join(parts, ", ")
}

// Decide checks an intent against the state and the plan (nil when there
// is none) and returns the event it records, the unit resolved. For Start
// the event's Kind is KindOther: nothing is recorded. A refusal is a
// *Refusal. The event has no time, line or work commits: the caller adds
// them.
func Decide(s *state.State, p *plan.Plan, in Intent) (Event, error) {
	s = s.Clone()
	sync(s, p)
	return decide(s, p, in)
}

// decide is Decide on a view already synced with the plan; it changes
// nothing of s.
func decide(s *state.State, p *plan.Plan, in Intent) (Event, error) {
	id := in.Unit
	if r := concluded(s, id); r != nil {
		return Event{}, r
	}
	work := in.Action == Work || in.Action == Start || in.Action == Finish
	if r := budgetSpent(s, p, id); work && s.Paused == nil && r != nil {
		// The budget holds every unit alike: its refusal names the budget
		// and the ways out, whichever unit was asked for.
		return Event{}, r
	}
	if id == "" && work {
		var act Activity
		if in.Activity != nil && !open(s.Units[state.Val(s.Current)]) {
			act = in.Activity()
		}
		adv := adviseView(s, p, act, in.Held, in.Missing)
		if adv.Unit == "" {
			return Event{}, &Refusal{Code: NoneReady, PlanFile: PlanName(s.Mode), Stuck: adv.Stuck}
		}
		id = adv.Unit
	}
	u := s.Units[id]
	if u == nil {
		return Event{}, unknown(s, p, id, false)
	}
	if ev, ok, err := decideSetAside(s, p, in, id); ok {
		return ev, err
	}
	// Work, Start and Finish: the task must not be on hold, and the unit
	// must be open to work.
	if err := openToWork(s, p, in, u); err != nil {
		return Event{}, err
	}
	if in.Action == Start {
		return Event{Unit: id, Kind: progresslog.KindOther}, nil
	}
	in, err := verdict(in, u)
	if err != nil {
		return Event{}, err
	}
	if err := knownItems(p, id, in.Items); err != nil {
		return Event{}, err
	}
	if in.Items, err = knownStates(p, id, in.Items); err != nil {
		return Event{}, err
	}
	if err := knownValueItems(p, id, in.Values); err != nil {
		return Event{}, err
	}
	ev := iterationEvent(p, in, u)
	if err := allowed(s, p, ev); err != nil {
		return ev, err
	}
	return ev, settledBeforeDone(s, p, u, ev, in.Counts)
}

// decideSetAside decides the actions that set a unit aside or bring it
// back (block, fail, skip, unblock, reopen); ok is false for the others.
func decideSetAside(s *state.State, p *plan.Plan, in Intent, id string) (ev Event, ok bool, err error) {
	ev = Event{Unit: id}
	switch in.Action {
	case Block:
		ev.Kind, ev.Reason = progresslog.KindBlocked, in.Reason
		ev.ReasonKind, ev.ClearWhen = in.ReasonKind, in.ClearWhen
		if err := checkKind(id, in.ReasonKind, state.Blocked); err != nil {
			return Event{}, true, err
		}
	case Fail:
		ev.Kind, ev.Reason, ev.ReasonKind = progresslog.KindFailed, in.Reason, in.ReasonKind
		if err := checkKind(id, in.ReasonKind, state.Failed); err != nil {
			return Event{}, true, err
		}
	case Skip:
		ev.Kind, ev.Reason = progresslog.KindSkipped, in.Reason
	case Unblock:
		ev.Kind = progresslog.KindUnblocked
	case Reopen:
		ev.Kind, ev.Reason = progresslog.KindReopened, in.Reason
	case Recheck:
		ev.Kind, ev.Reason = progresslog.KindRechecked, in.Reason
	case Repin:
		ev.Kind, ev.Reason = progresslog.KindPinned, in.Reason
		if _, ok := OutputSpec(p, id); !ok && s.Units[id].Status == state.Done {
			return Event{}, true, &Refusal{Code: NoOutputs, Unit: id, Status: state.Done}
		}
	case Restart:
		// Starting another agent's unit over would undo its work.
		if who, held := in.Held[id]; held {
			return Event{}, true, &Refusal{Code: HeldElsewhere, Unit: id, Status: s.Units[id].Status, Reason: who}
		}
		ev.Kind, ev.Reason = progresslog.KindRestarted, in.Reason
	default:
		return Event{}, false, nil
	}
	return ev, true, allowed(s, p, ev)
}

// openToWork refuses work (and starting) on a unit while the task is
// paused, the unit is not workable, another agent holds it, its inputs
// are missing, or the task used its budget.
func openToWork(s *state.State, p *plan.Plan, in Intent, u *state.Unit) error {
	id := u.ID
	if ps := s.Paused; ps != nil {
		return &Refusal{Code: TaskPaused, Unit: id, Since: ps.Since, Reason: ps.Reason}
	}
	if r := approvalNeeded(s, p, id); r != nil {
		return r
	}
	if err := workable(s, p, u); err != nil {
		return err
	}
	if who, ok := in.Held[id]; ok {
		return &Refusal{Code: HeldElsewhere, Unit: id, Status: u.Status, Reason: who}
	}
	if r := missingInputs(u, in.Missing); r != nil {
		return r
	}
	if r := budgetSpent(s, p, id); r != nil {
		return r
	}
	return nil
}

// verdict maps a Finish to the signal or verification the unit's status
// takes, and refuses a Work whose flags do not fit the status.
func verdict(in Intent, u *state.Unit) (Intent, error) {
	id := u.ID
	switch in.Action {
	case Finish:
		switch u.Status {
		case state.Pending:
			return in, &Refusal{Code: NotStarted, Unit: id, Status: u.Status}
		case state.InProgress:
			if in.Failed {
				return in, &Refusal{Code: FailedEarly, Unit: id, Status: u.Status}
			}
			in.Signal = true
		case state.Confirming:
			in.Signal = !in.Failed
		case state.Verifying:
			in.Verified = !in.Failed
		}
	case Work:
		if u.Status == state.Verifying && in.Signal {
			return in, &Refusal{Code: NeedsVerdict, Unit: id, Status: u.Status}
		}
		if in.Verified && u.Status != state.Verifying {
			return in, &Refusal{Code: VerifiedEarly, Unit: id, Status: u.Status}
		}
	}
	if in.Verified && u.Status == state.Verifying {
		if err := evidenced(in, id); err != nil {
			return in, err
		}
	}
	return in, nil
}

// iterationEvent is the iteration an accepted Work or Finish records: a
// run that did not pass takes back its signal or verification.
func iterationEvent(p *plan.Plan, in Intent, u *state.Unit) Event {
	id := u.ID
	ev := Event{Unit: id, Kind: progresslog.KindIteration, Items: in.Items, Values: in.Values, Metrics: in.Metrics, Run: in.Run, Checks: in.Checks, Iteration: state.Val(u.IterationsUsed) + 1}
	if in.Run != nil && !in.Run.Passed() || len(in.Checks) > 0 && !ChecksPassed(in.Checks) {
		in.Signal, in.Verified = false, false
	}
	if in.Signal && u.Status != state.Verifying {
		ev.Signal = signalOf(p, id)
	}
	if u.Status == state.Verifying && ChecksHold(in.Checks) {
		return ev // a check broke: no verdict, the unit stays verifying
	}
	if u.Status == state.Verifying {
		ev.Verification = "failed"
		if in.Verified {
			ev.Verification = "passed"
			ev.VerifiedBy = strings.TrimSpace(in.VerifiedBy)
		}
	}
	return ev
}

// knownItems refuses items the unit's plan does not give, when it gives
// them ("Items: 17" or a list). A range must lie within 1..N.
func knownItems(p *plan.Plan, id string, marks []state.ItemMark) error {
	if !active(p) || len(marks) == 0 {
		return nil
	}
	pu := p.Unit(id)
	if pu == nil || !pu.HasItems() {
		return nil
	}
	for _, m := range marks {
		r := m.Range
		ok := false
		switch {
		case r.Name != "":
			ok = pu.HasItem(r.Name)
		case pu.ItemCount > 0:
			ok = r.Hi <= pu.ItemCount
		default:
			ok = r.Lo == r.Hi && pu.HasItem(r.String())
		}
		if !ok {
			return &Refusal{Code: UnknownItem, Unit: id, Item: r.String(), ItemsText: pu.ItemsText(), PlanFile: planFile(p)}
		}
	}
	return nil
}

// TotalIterations is the iterations the task's units used, together.
func TotalIterations(s *state.State) int {
	n := 0
	for _, u := range s.Units {
		n += state.Val(u.IterationsUsed)
	}
	return n
}

// DecidePause checks a pause (on) or a resume (!on) of the task and gives
// the event to record. Pausing stops new work (Decide refuses it) until a
// resume; it is not a phase: the phase keeps saying where the work stands.
// The fold applies work recorded while paused (a clone that did not know),
// since a log never loses an entry.
//
// A task that has an outcome is not paused (Concluded): itr resume takes
// it back to work instead, its outcome gone.
func DecidePause(s *state.State, on bool, reason string) (Event, error) {
	ps := s.Paused
	switch {
	case on && s.Outcome != nil:
		return Event{}, concluded(s, "")
	case s.Outcome != nil:
		return Event{Kind: progresslog.KindResumed}, nil
	case on && ps != nil:
		return Event{}, &Refusal{Code: AlreadyPaused, Since: ps.Since, Reason: ps.Reason}
	case on:
		return Event{Kind: progresslog.KindPaused, Reason: reason}, nil
	case ps == nil:
		return Event{}, &Refusal{Code: NotPaused}
	}
	return Event{Kind: progresslog.KindResumed}, nil
}

func orWhy(reason string) string {
	if strings.TrimSpace(reason) == "" {
		return "no reason given"
	}
	return reason
}

// evidenced refuses a verification that rests on a claim alone: it needs a
// run (made, or about to be) or the name of who verified. The reducer does
// not ask for it, so logs written before the rule still fold.
func evidenced(in Intent, id string) error {
	if in.Run == nil && len(in.Checks) == 0 && !in.WillRun && strings.TrimSpace(in.VerifiedBy) == "" {
		return &Refusal{Code: NoEvidence, Unit: id, Status: state.Verifying}
	}
	return nil
}

// checkKind refuses a reason kind a block (to blocked) or a failure (to
// failed) does not take.
func checkKind(id, kind string, to state.Status) error {
	if kind == "" {
		return nil
	}
	kinds := state.BlockKinds
	if to == state.Failed {
		kinds = state.FailKinds
	}
	if _, err := state.ParseKind("kind", kind, kinds); err != nil {
		return &Refusal{Code: BadKind, Unit: id, To: to, ReasonKind: kind}
	}
	return nil
}

// workable refuses work on a unit that is finished, blocked, timed out,
// failed, skipped, or pending with unfinished dependencies.
func workable(s *state.State, p *plan.Plan, u *state.Unit) error {
	if u.Status == state.Done {
		return &Refusal{Code: UnitDone, Unit: u.ID, Status: u.Status}
	}
	var wait []Dep
	if u.Status == state.Pending {
		wait = waitingOn(s, p, u.ID)
	}
	r := stuck(u, wait)
	if r == nil {
		r = standingBy(s, p, u)
	}
	if r != nil {
		r.Mode = s.Mode
		return r
	}
	return nil
}

// stuck is why an unfinished unit cannot move (blocked, timed out, or
// pending on the unfinished dependencies wait), or nil.
func stuck(u *state.Unit, wait []Dep) *Refusal {
	switch u.Status {
	case state.Blocked:
		return &Refusal{Code: UnitBlocked, Unit: u.ID, Status: u.Status, Reason: state.Val(u.Reason),
			ReasonKind: state.Val(u.ReasonKind), ClearWhen: state.Val(u.ClearWhen)}
	case state.Timeout:
		return &Refusal{Code: UnitTimedOut, Unit: u.ID, Status: u.Status, Max: state.Val(u.MaxIterations)}
	case state.Failed:
		return &Refusal{Code: UnitFailed, Unit: u.ID, Status: u.Status, Reason: state.Val(u.Reason), ReasonKind: state.Val(u.ReasonKind)}
	case state.Skipped:
		return &Refusal{Code: UnitSkipped, Unit: u.ID, Status: u.Status, Reason: state.Val(u.Reason)}
	case state.Pending:
		if len(wait) > 0 {
			return &Refusal{Code: WaitsFor, Unit: u.ID, Status: u.Status, Waiting: wait}
		}
	}
	return nil
}

// allowed is the check of one event against the view, shared by Decide
// and by the reducer: a log entry that breaks it is not applied. Unlike
// Decide it does not look at dependencies, so a log that worked on a unit
// early still folds.
func allowed(s *state.State, p *plan.Plan, ev Event) error {
	if ev.Kind == progresslog.KindConcluded && s.Outcome != nil {
		return &Refusal{Code: AlreadyConcluded, Outcome: s.Outcome.Clone()}
	}
	switch ev.Kind {
	case progresslog.KindIteration, progresslog.KindBlocked, progresslog.KindUnblocked, progresslog.KindReopened,
		progresslog.KindFailed, progresslog.KindSkipped, progresslog.KindRestarted, progresslog.KindRechecked, progresslog.KindPinned:
	default:
		return nil
	}
	u := s.Units[ev.Unit]
	if u == nil {
		return allowedNew(s, p, ev)
	}
	switch ev.Kind {
	case progresslog.KindIteration:
		switch u.Status {
		case state.Done, state.Blocked, state.Timeout, state.Failed, state.Skipped:
			return workable(s, nil, u)
		}
		if ev.Signal != "" && ev.Signal != signalOf(p, u.ID) {
			return &Refusal{Code: WrongSignal, Unit: u.ID, Status: u.Status, Signal: ev.Signal, Want: signalOf(p, u.ID)}
		}
	case progresslog.KindBlocked:
		if u.Status == state.Blocked {
			return &Refusal{Code: AlreadyBlocked, Unit: u.ID, Status: u.Status, Reason: state.Val(u.Reason),
				ReasonKind: state.Val(u.ReasonKind), ClearWhen: state.Val(u.ClearWhen)}
		}
		if !state.CanMove(u.Status, state.Blocked) {
			return &Refusal{Code: BadMove, Unit: u.ID, Status: u.Status, To: state.Blocked}
		}
	case progresslog.KindUnblocked:
		if u.Status != state.Blocked {
			return &Refusal{Code: NotBlocked, Unit: u.ID, Status: u.Status}
		}
	case progresslog.KindReopened:
		if u.Status != state.Done && u.Status != state.Failed && u.Status != state.Skipped {
			return &Refusal{Code: NotDone, Unit: u.ID, Status: u.Status}
		}
	case progresslog.KindRechecked, progresslog.KindPinned:
		if u.Status != state.Done {
			return &Refusal{Code: doneOnly[ev.Kind], Unit: u.ID, Status: u.Status}
		}
	case progresslog.KindRestarted:
		if r := restartRefusal(u); r != nil {
			return r
		}
	case progresslog.KindFailed, progresslog.KindSkipped:
		return setAside(u, ev.Kind)
	}
	return nil
}

// doneOnly are the refusals of the entries only a done unit takes.
var doneOnly = map[progresslog.Kind]Code{
	progresslog.KindRechecked: RecheckNotDone,
	progresslog.KindPinned:    NotPinnable,
}

// setAside checks a failure (KindFailed) or a skip (KindSkipped) of u.
func setAside(u *state.Unit, kind progresslog.Kind) error {
	to := state.Failed
	if kind == progresslog.KindSkipped {
		to = state.Skipped
	}
	switch {
	case u.Status == state.Done:
		return &Refusal{Code: FinishedUnit, Unit: u.ID, Status: u.Status, To: to}
	case u.Status == state.Failed && to == state.Failed:
		return &Refusal{Code: AlreadyFailed, Unit: u.ID, Status: u.Status, Reason: state.Val(u.Reason), ReasonKind: state.Val(u.ReasonKind)}
	case u.Status == state.Skipped && to == state.Skipped:
		return &Refusal{Code: AlreadySkipped, Unit: u.ID, Status: u.Status, Reason: state.Val(u.Reason)}
	case !state.CanMove(u.Status, to):
		return &Refusal{Code: BadMove, Unit: u.ID, Status: u.Status, To: to}
	}
	return nil
}

// allowedNew is allowed for an event of a unit the view does not have:
// without a plan its first event brings it in, pending, unless there is
// then nothing to do (unblock, reopen, restart).
func allowedNew(s *state.State, p *plan.Plan, ev Event) error {
	if active(p) || !state.ValidID(ev.Unit) {
		return unknown(s, p, ev.Unit, true)
	}
	switch ev.Kind {
	case progresslog.KindUnblocked:
		// It would come in pending: there is nothing to unblock.
		return &Refusal{Code: NotBlocked, Unit: ev.Unit, Status: state.Pending}
	case progresslog.KindReopened:
		// Nor anything to reopen.
		return &Refusal{Code: NotDone, Unit: ev.Unit, Status: state.Pending}
	case progresslog.KindRestarted:
		// Nor any work to restart.
		return &Refusal{Code: NotRestartable, Unit: ev.Unit, Status: state.Pending}
	case progresslog.KindRechecked:
		// Nor a done unit to re-check.
		return &Refusal{Code: RecheckNotDone, Unit: ev.Unit, Status: state.Pending}
	}
	return nil
}

// unknown is the refusal of a unit the task does not have; fold words it
// against the plan's file, as a log entry is checked against the plan.
func unknown(s *state.State, p *plan.Plan, id string, fold bool) *Refusal {
	if fold {
		if active(p) {
			return &Refusal{Code: UnknownUnit, Unit: id, Units: p.IDs(), PlanFile: planFile(p), Active: true}
		}
		return &Refusal{Code: NotAnID, Unit: id}
	}
	ids := s.IDs()
	if len(ids) == 0 {
		return &Refusal{Code: NoUnits, Unit: id, PlanFile: PlanName(s.Mode)}
	}
	return &Refusal{Code: UnknownUnit, Unit: id, Units: ids, PlanFile: PlanName(s.Mode)}
}

// PlanName is the plan file of a mode: plan.md in knowledge mode, else
// tasks.md.
func PlanName(m state.Mode) string {
	if m == state.Knowledge {
		return "plan.md"
	}
	return "tasks.md"
}

// waitingOn lists the unsettled dependencies of a unit with their
// statuses.
func waitingOn(s *state.State, p *plan.Plan, id string) []Dep {
	if p == nil {
		return nil
	}
	return unfinished(s, settledFunc(s, p), p.Deps(id))
}

// unfinished lists the units of deps that are not settled (done, skipped,
// or failed and replaced by a done unit), with their statuses.
func unfinished(s *state.State, settled func(string) bool, deps []string) []Dep {
	var out []Dep
	for _, d := range deps {
		u := s.Units[d]
		if settled(d) {
			continue
		}
		dep := Dep{ID: d}
		if u != nil {
			dep.Status = u.Status
		}
		out = append(out, dep)
	}
	return out
}

// CheckPhase is the rule for moving the whole task to a phase: verify and
// deliver come after the work, so while a unit is unfinished they are
// refused (PhaseEarly) unless forced.
func CheckPhase(s *state.State, p state.Phase, force bool) error {
	return CheckPhaseIn(s, nil, p, force)
}

// CheckPhaseIn is CheckPhase with the plan in force (nil for none): a
// settled unit (done, skipped, or failed and replaced by a done unit) is
// not unfinished.
func CheckPhaseIn(s *state.State, pl *plan.Plan, p state.Phase, force bool) error {
	if force || (p != state.Verify && p != state.Deliver) {
		return nil
	}
	settled := settledFunc(s, pl)
	var open []string
	for _, id := range s.IDs() {
		if u := s.Units[id]; !settled(id) {
			open = append(open, fmt.Sprintf("%s %s", id, u.Status))
		}
	}
	if len(open) == 0 {
		return nil
	}
	return &Refusal{Code: PhaseEarly, Phase: p, Units: open}
}

func plural(n int) string {
	if n == 1 {
		return " is"
	}
	return "s are"
}

func firstOf(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string(nil), s[:n]...), fmt.Sprintf("and %d more", len(s)-n))
}

// Move is the kind of step Advise suggests.
type Move string

// The moves Advise can suggest.
const (
	MoveContinue   Move = "continue"    // more work on the unit (in_progress)
	MoveConfirm    Move = "confirm"     // the N+1 confirmation (confirming)
	MoveVerify     Move = "verify"      // quality and review (verifying)
	MoveRaiseLimit Move = "raise-limit" // the unit used all its iterations
	MoveUnblock    Move = "unblock"     // resolve the block
	MoveStart      Move = "start"       // begin a ready unit
	MoveWritePlan  Move = "write-plan"  // the task has no units
	MoveRestore    Move = "restore"     // the task is archived
	MoveArchive    Move = "archive"     // every unit is done
	MoveWait       Move = "wait"        // nothing can move (see Waiting)
	MoveResolve    Move = "resolve"     // a failed unit needs someone: reopen, skip or replace it
)

// Advice is what may happen next in a task: the one answer behind itr
// next, status, prime and MCP's start and finish.
type Advice struct {
	// Unit is the unit to work on now: the current unit while it is open to
	// work, else the first ready one; "" when none can be worked on.
	Unit string
	// Status is Unit's status.
	Status state.Status
	// Allowed are the statuses Unit may move to.
	Allowed []state.Status
	// Ready are the pending units whose dependencies are done, in plan
	// order.
	Ready []string
	// Started are the units under way (in_progress, confirming,
	// verifying), the current one first, then by their last activity,
	// oldest first.
	Started []string
	// Move is the step to take, and MoveUnit the unit it is about (the
	// current unit even when blocked or timed out, or the first blocked
	// or timed-out unit when nothing else can move).
	Move     Move
	MoveUnit string
	// Done and Total count the units.
	Done, Total int
	// Blocked and TimedOut list those units; Waiting the unfinished
	// dependencies of each pending unit that cannot start.
	Blocked, TimedOut []string
	Waiting           map[string][]Dep
	// Stuck says why each unit that is neither done nor ready cannot
	// move, as the refusal work on it would get, in natural ID order.
	Stuck []*Refusal
	// Held are the unfinished units other agents hold (AdviseHeld), in
	// natural ID order.
	Held []string
	// Failed lists the failed units no done unit replaces (they need
	// someone), Replaced the failed units a done unit replaces, Skipped
	// the skipped units; Settled counts the units whose work is accounted
	// for (done, skipped, or replaced): when it is Total, the move is
	// archive.
	Failed, Replaced, Skipped []string
	Settled                   int
	// Offers are the moves the rule book accepts now, the most urgent
	// first: each unit operation's Intent is one Decide accepted (AdviseIn
	// only).
	Offers []Offer
	// Hold says why no work can be recorded now and what clears it; nil
	// while some unit takes work (AdviseIn only).
	Hold *Hold
	// Recheck are the done units built on a unit that is no longer done
	// (reopened): their work may not hold once it is done again. Broken
	// are the done units whose outputs fail their checks now.
	Recheck, Broken []string
	// Settle is why the unit to work on may not move toward done now by
	// the settle rule (ItemsUnsettled, CounterDisagrees, MetricShort), nil
	// when it may (AdviseIn only): no signal is offered, and for unsettled
	// items an offer of MoveSettle names the item work instead.
	Settle *Refusal
}

// Advise returns what may happen next. The unit to work on is the current
// unit while it is open to work; else the units under way, oldest activity
// first (act orders them; nil leaves them in ID order); else the first
// ready unit. A unit that was started and not finished is never lost
// behind other work. Advise reads the view and the plan only and is linear
// in the number of units.
func Advise(s *state.State, p *plan.Plan, act Activity) Advice {
	return AdviseHeld(s, p, act, nil)
}

// AdviseHeld is Advise for an agent among others: the units in held (other
// agents' claims) are never the unit to work on, nor in Ready or Started;
// they are listed in Held and, when nothing else is left, in Stuck as
// HeldElsewhere refusals.
func AdviseHeld(s *state.State, p *plan.Plan, act Activity, held Held) Advice {
	return AdviseFor(s, p, act, held, nil)
}

// AdviseFor is AdviseHeld knowing which inputs are missing: a pending
// unit with missing inputs is not ready; it is listed in Stuck with an
// InputsMissing refusal.
func AdviseFor(s *state.State, p *plan.Plan, act Activity, held Held, missing Missing) Advice {
	return adviseView(s, p, act, held, missing)
}

// adviseView is AdviseFor: the unit to work on and why the others cannot
// move, read from the view as it is.
func adviseView(s *state.State, p *plan.Plan, act Activity, held Held, missing Missing) Advice {
	ids, units := s.Ordered()
	if p != nil {
		if deps, ok := p.Positions(ids); ok {
			return advisePositions(s, p, act, held, missing, ids, units, deps)
		}
	}
	return adviseByID(s, p, act, held, missing, ids, units)
}

// adviseByID is adviseView for a state whose units do not line up with
// the plan's: each unit and dependency looked up by ID.
func adviseByID(s *state.State, p *plan.Plan, act Activity, held Held, missing Missing, ids []string, units []*state.Unit) Advice {
	a := Advice{Waiting: map[string][]Dep{}}
	settled := settledFunc(s, p)
	a.Ready = ready(s, p, settled)
	a.Ready = slices.DeleteFunc(a.Ready, func(id string) bool {
		r, _ := standBy(s, p, s.Units[id])
		return held[id] != "" || len(missing[id]) > 0 || r != nil
	})
	var deps map[string][]string
	if p != nil {
		deps = p.DepMap() // one build of the graph for every unit
	}
	cur := state.Val(s.Current)
	for i, id := range ids {
		u := units[i]
		var wait []Dep
		if u.Status == state.Pending {
			wait = unfinished(s, settled, deps[id])
		}
		a.classify(s, p, id, u, id != cur, settled(id), wait, held, missing)
	}
	a.pickUnit(s, act, held)
	a.pickMove(s)
	return a
}

// advisePositions is adviseView for a state whose units line up with the
// plan's (Positions): every unit and dependency by position, each unit's
// settledness worked out once, no unit looked up by ID.
func advisePositions(s *state.State, p *plan.Plan, act Activity, held Held, missing Missing, ids []string, units []*state.Unit, deps [][]int) Advice {
	a := Advice{Waiting: map[string][]Dep{}}
	settled := SettledAt(s, p, ids, units)
	unsettled := func(d int) bool { return !settled[d] }
	// ready, then less the held, those missing inputs and those standing by.
	var readyAt []int
	for _, v := range p.OrderPositions() {
		if !settled[v] && !slices.ContainsFunc(deps[v], unsettled) && units[v].Status == state.Pending {
			readyAt = append(readyAt, v)
		}
	}
	if readyAt != nil {
		a.Ready = make([]string, 0, len(readyAt))
		for _, v := range readyAt {
			id := ids[v]
			if r, _ := standBy(s, p, units[v]); held[id] == "" && len(missing[id]) == 0 && r == nil {
				a.Ready = append(a.Ready, id)
			}
		}
	}
	cur := state.Val(s.Current)
	for i, id := range ids {
		u := units[i]
		var wait []Dep
		if u.Status == state.Pending {
			for _, d := range deps[i] {
				if !settled[d] {
					wait = append(wait, Dep{ID: ids[d], Status: units[d].Status})
				}
			}
		}
		a.classify(s, p, id, u, id != cur, settled[i], wait, held, missing)
	}
	a.pickUnit(s, act, held)
	a.pickMove(s)
	return a
}

// classify counts unit id (u) of s in the advice: done, blocked, timed
// out, waiting (on wait, its unsettled dependencies), under way (started
// other than the current one), skipped, failed or replaced, settled; and,
// when it cannot move, the refusal work on it would get.
func (a *Advice) classify(s *state.State, p *plan.Plan, id string, u *state.Unit, notCurrent, settled bool, wait []Dep, held Held, missing Missing) {
	a.Total++
	switch u.Status {
	case state.Done:
		a.Done++
	case state.Blocked:
		a.Blocked = append(a.Blocked, id)
	case state.Timeout:
		a.TimedOut = append(a.TimedOut, id)
	case state.Pending:
		if len(wait) > 0 {
			a.Waiting[id] = wait
		}
	case state.InProgress, state.Confirming, state.Verifying:
		if notCurrent && held[id] == "" {
			a.Started = append(a.Started, id)
		}
	case state.Skipped:
		a.Skipped = append(a.Skipped, id)
	case state.Failed:
		if !settled {
			a.Failed = append(a.Failed, id)
		} else {
			a.Replaced = append(a.Replaced, id)
		}
	}
	var r *Refusal
	if settled {
		a.Settled++
	} else {
		r = whyStuck(s, p, u, wait, missing) // a.Waiting[id], without looking it up
	}
	if who := held[id]; who != "" && u.Status != state.Done {
		a.Held = append(a.Held, id)
		if r == nil {
			r = &Refusal{Code: HeldElsewhere, Unit: id, Status: u.Status, Reason: who}
		}
	}
	if r != nil {
		a.Stuck = append(a.Stuck, r)
	}
}

// whyStuck is the refusal work on an unsettled unit gets by its own
// state (blocked, timed out, failed, skipped, waiting), by standing by for
// units it replaces, or by missing inputs; nil when it may move.
func whyStuck(s *state.State, p *plan.Plan, u *state.Unit, wait []Dep, missing Missing) *Refusal {
	r := stuck(u, wait)
	if r == nil {
		r = standingBy(s, p, u)
	}
	if r == nil {
		r = missingInputs(u, missing)
	}
	if r != nil {
		r.Mode = s.Mode
	}
	return r
}

// pickUnit orders the units under way (the current unit first, then the
// oldest activity) and picks the unit to work on: the current unit while
// it is open, else the one under way touched longest ago, else the first
// ready one.
func (a *Advice) pickUnit(s *state.State, act Activity, held Held) {
	cur := state.Val(s.Current)
	// Oldest activity first; ids are in natural order, so ties keep it.
	sort.SliceStable(a.Started, func(i, j int) bool { return act[a.Started[i]] < act[a.Started[j]] })
	curOpen := open(s.Units[cur]) && held[cur] == ""
	if u := s.Units[cur]; u != nil && u.Status.Started() && curOpen {
		a.Started = append([]string{cur}, a.Started...)
	}
	switch {
	case curOpen:
		a.Unit = cur
	case len(a.Started) > 0:
		a.Unit = a.Started[0]
	case len(a.Ready) > 0:
		a.Unit = a.Ready[0]
	}
	if a.Unit != "" {
		a.Status = s.Units[a.Unit].Status
		a.Allowed = state.AllowedNext(a.Status)
	}
}

// pickMove is the step to take: the current unit's own state first (it
// used its iterations, or is blocked), then the unit to work on, then the
// task's.
func (a *Advice) pickMove(s *state.State) {
	cur := state.Val(s.Current)
	if u := s.Units[cur]; u != nil {
		switch u.Status {
		case state.Timeout:
			a.Move, a.MoveUnit = MoveRaiseLimit, cur
			return
		case state.Blocked:
			a.Move, a.MoveUnit = MoveUnblock, cur
			return
		}
	}
	if a.Unit != "" {
		if m := workMove(s.Units[a.Unit].Status); m != "" {
			a.Move, a.MoveUnit = m, a.Unit
			return
		}
	}
	switch {
	case a.Total == 0:
		a.Move = MoveWritePlan
	case s.Phase == state.Complete:
		a.Move = MoveRestore
	case a.Settled == a.Total && s.Phase.Rank() < state.Verify.Rank():
		a.Move = MoveVerifyTask
	case a.Settled == a.Total:
		a.Move = MoveArchive
	case a.Unit != "":
		a.Move, a.MoveUnit = MoveStart, a.Unit
	case len(a.TimedOut) > 0:
		a.Move, a.MoveUnit = MoveRaiseLimit, a.TimedOut[0]
	case len(a.Blocked) > 0:
		a.Move, a.MoveUnit = MoveUnblock, a.Blocked[0]
	case len(a.Failed) > 0:
		a.Move, a.MoveUnit = MoveResolve, a.Failed[0]
	default:
		a.Move = MoveWait
	}
}

// open reports whether a unit can take work now as far as its own status
// goes: under way, or pending (its dependencies are checked apart).
func open(u *state.Unit) bool {
	if u == nil {
		return false
	}
	switch u.Status {
	case state.InProgress, state.Confirming, state.Verifying:
		return true
	}
	return false
}

// workMove is the move for a unit under way in status st, or "".
func workMove(st state.Status) Move {
	switch st {
	case state.InProgress:
		return MoveContinue
	case state.Confirming:
		return MoveConfirm
	case state.Verifying:
		return MoveVerify
	}
	return ""
}

// ready lists the pending units whose dependencies are settled (done,
// skipped, or failed and replaced by a done unit), in plan order (natural
// ID order without a plan).
func ready(s *state.State, p *plan.Plan, settled func(string) bool) []string {
	var ids []string
	if p == nil {
		for _, id := range s.IDs() {
			if s.Units[id].Status == state.Pending {
				ids = append(ids, id)
			}
		}
		return ids
	}
	for _, id := range p.Ready(settled) {
		if u := s.Units[id]; u != nil && u.Status == state.Pending {
			ids = append(ids, id)
		}
	}
	return ids
}
