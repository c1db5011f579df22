package reconcile

import (
	"errors"
	"fmt"
	"slices"

	"github.com/itr-dev/itr/evidence"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
)

// The advisor. Advise answers "what may happen next" as data: the moves
// the rule book accepts now (Offers, each checked with Decide before it is
// offered) and, when no work can be recorded, what holds it and who or
// what clears it (Hold). Every front end (next, status, prime, the agents'
// hooks, MCP, shell completion, the report) words this one answer; none
// decides alone. What the workspace found beyond the view and the plan (a
// log appended but not committed, a git merge, an interrupted check, a
// broken output) comes in as a Situation, plain data: the rule book reads
// no files.

// Situation is what the workspace found about a task beyond its view and
// its plan, the facts a write would be refused or repaired for. The zero
// value is a healthy task with no other agents.
type Situation struct {
	// Activity orders the units under way by their last entries.
	Activity Activity
	// Held are the units other agents hold; Missing the pending units'
	// missing inputs.
	Held    Held
	Missing Missing
	// Archived says the task was read from its archive: nothing can be
	// recorded until it is restored.
	Archived bool
	// InTheWay, for an archived task, is the folder of its name in the
	// working tree when it holds more than the deliverables an archive
	// leaves (a file checked out by hand): restore refuses it until it is
	// moved away, so restore is not offered.
	InTheWay string
	// Operation is a git operation in progress ("merge", "rebase",
	// "cherry-pick", "revert"): itr records nothing until it is concluded.
	Operation string
	// Unreadable is a file of the task that does not read (state.json, the
	// plan): nothing can be recorded until it does.
	Unreadable *Unreadable
	// Unsaved are itr's own files whose content on disk differs from the
	// last commit (a record stopped between its append and its commit, a
	// hand edit): a record would lose or commit them unchecked, so it is
	// refused until they are reconciled.
	Unsaved []Unsaved
	// Edited are the other files of the task folder (brief.md, outputs/)
	// that differ from the last commit: the next record commits them with
	// its entry, so they are looked at first.
	Edited []string
	// Undone counts the commits made without itr that took committed
	// entries out of the logs; the next record (or reconcile) puts them
	// back.
	Undone int
	// Adopt says the folder was written without itr: the next record (or
	// reconcile) adopts it first.
	Adopt bool
	// Stale says state.json differs from the fold of the log beside it.
	Stale bool
	// Broken are the done units whose outputs fail their checks now, with
	// the problems.
	Broken map[string][]evidence.Problem
	// Unpinned are the done units whose outputs are no longer what the
	// entry that made them done pinned (at HEAD or in the working tree):
	// work that reads them waits for the repair, as for Broken.
	Unpinned map[string]Unpinned
	// Unready are the unfinished units whose outputs fail their checks
	// now: a move toward done (a signal, a passed verification) is refused
	// until they pass (CheckOutputs), so none is offered.
	Unready map[string][]evidence.Problem
	// Interrupted are the checks cut off before itr could record them.
	Interrupted []Interrupted
	// Counts are the units' plan counters counted in their files: while
	// one disagrees with the items done, a move toward done is refused
	// (where the plan says "Settle items before done"), so none is
	// offered.
	Counts Counts
	// Partial are the units under way whose declared outputs an
	// interrupted iteration left half-written, with those outputs (as
	// the plan names them): the work goes on from them (finish them), or
	// the unit starts over (restart, offered where the rule book
	// accepts it).
	Partial map[string][]string
	// StaleInputs are the done units whose inputs (the plan's Inputs: a
	// file, or another unit's outputs) changed since they were done, or
	// whose upstream unit was reopened since, each with what changed as
	// the workspace words it: their work may not hold. A re-check (itr
	// recheck) or a reopen is offered for each.
	StaleInputs map[string][]string
}

// Unpinned is how a done unit's pinned outputs changed: the paths that
// changed, and whether they pass the output check as the working tree
// holds them (so the change may be accepted with a Repin).
type Unpinned struct {
	Paths      []string
	Acceptable bool
}

// Unreadable is a task file that does not read, and why.
type Unreadable struct {
	File    string // from the repository top
	Problem string
	// Plan says it is the plan file (fixed by hand); else it is
	// state.json, which reconcile rebuilds from the log.
	Plan bool
}

// Unsaved is one of itr's files that differs on disk from the last commit.
type Unsaved struct {
	File string // from the repository top
	// Name is the file's name in the task folder (progress.md,
	// state.json, guardrails.md, decisions.md).
	Name    string
	Deleted bool
	// Appended are the entries of progress.md on disk after the committed
	// ones (a record that stopped before its commit), oldest first; none
	// when the file was changed otherwise.
	Appended []AppendedEntry
}

// AppendedEntry is an entry of progress.md that no commit holds yet.
type AppendedEntry struct {
	Unit      string
	Iteration int
	Title     string // "R1 iteration 4", "Blocked R2"
	Did       string
	Remaining string
}

// Interrupted is a check that was cut off before itr recorded it.
type Interrupted struct {
	Unit    string
	Command string // as it was shown
	// Argv is the command to run again; nil runs the unit's Verify line
	// (and, when the plan gives none and the marker no argv, the check
	// cannot be run again as it was).
	Argv []string
}

// Op is an operation an Offer asks a front end to run.
type Op string

// The operations the advisor offers.
const (
	OpCheckpoint Op = "checkpoint" // record an iteration (Intent Work)
	OpBlock      Op = "block"
	OpUnblock    Op = "unblock"
	OpReopen     Op = "reopen"
	OpSkip       Op = "skip"
	OpResume     Op = "resume"
	OpReconcile  Op = "reconcile"
	OpPlan       Op = "plan"
	OpArchive    Op = "archive"
	OpRestore    Op = "restore"
	OpRestart    Op = "restart"
	// OpDeliver wraps the task up with what exists (itr deliver): at the
	// budget, the outcome done with limitations.
	OpDeliver Op = "deliver"
	// OpApprove approves the plan (itr approve --by WHO): a person's act.
	OpApprove Op = "approve"
	// OpRecheck records that a done unit still holds against its changed
	// inputs (itr recheck).
	OpRecheck Op = "recheck"
	// OpPhase moves the task to the offer's Phase (itr phase).
	OpPhase Op = "phase"
)

// Offer is one move the rule book accepts now: the operation, the unit,
// and for a unit operation the Intent Decide accepted. Text fields (did,
// reason) are the caller's to fill.
type Offer struct {
	Op   Op
	Unit string
	// Intent is what Decide was asked and accepted (unit operations).
	Intent Intent
	// Verify says a check is run first: Argv, else the unit's Verify line.
	Verify bool
	Argv   []string
	// For says what the offer is for.
	For Move
	// Person says a person's judgement comes first: resume when the hold
	// is over, unblock once the block is resolved, reopen once the cause
	// of a failure is fixed.
	Person bool
	// Phase is the phase an OpPhase moves the task to.
	Phase state.Phase
}

// Hold says why no work can be recorded now: the rule that holds it, the
// refusal a write gets, and what clears it.
type Hold struct {
	Code Code
	// Refusal is what a checkpoint gets now (nil for a hold that is not a
	// rule book refusal: Operation, Unsaved, Unreadable, Archived).
	Refusal *Refusal
	// Clear is the operation that clears the hold, "" when an edit or a
	// person's act does (Edit says which). At the budget (BudgetSpent) it
	// is OpDeliver, which ends the task with what exists, beside the edit
	// that raises the budget.
	Clear Op
	// Person says a person clears it (raise the budget, resume the task,
	// resolve a block or a failure).
	Person bool
	// Edit names what must change by hand: EditBudget (the plan's Max
	// total iterations), EditLimit (a unit's Max iterations), EditPlan
	// (the unreadable plan), EditCommit (commit decisions.md with git),
	// EditGit (conclude the git operation), EditFolder (move away the
	// folder in the way of a restore).
	Edit string
}

// The holds beyond the rule book's refusals.
const (
	HoldArchived   Code = "archived"   // the task is archived
	HoldOperation  Code = "operation"  // a git operation is in progress
	HoldUnsaved    Code = "unsaved"    // itr's files differ on disk from the last commit
	HoldUnreadable Code = "unreadable" // a task file does not read
)

// The edits that clear a hold.
const (
	EditBudget = "budget"
	EditLimit  = "limit"
	EditPlan   = "plan"
	EditCommit = "commit"
	EditGit    = "git"
	// EditFolder: move away the folder in the way of a restore.
	EditFolder = "folder"
)

// The moves beyond the unit's own.
const (
	MoveResume      Move = "resume"       // the task is paused
	MoveReconcile   Move = "reconcile"    // itr's files or the view need reconciling
	MoveRepair      Move = "repair"       // a done unit's output broke
	MoveRerun       Move = "rerun"        // a check was interrupted
	MoveRaiseBudget Move = "raise-budget" // the task used its Max total iterations
	MoveGit         Move = "git"          // conclude the git operation, or commit a file with git
	MoveFixPlan     Move = "fix-plan"     // the plan does not read
	MoveReplan      Move = "replan"       // the plan changed since itr plan
	MoveBlock       Move = "block"        // set the unit aside until something outside clears
	MoveRestart     Move = "restart"      // start a unit over: an interrupted iteration left its outputs partial
	MoveDeliver     Move = "deliver"      // wrap up what exists: the task used its budget
	MoveApprove     Move = "approve"      // a person approves the plan before unit work
	MoveRecheck     Move = "recheck"      // a done unit's inputs changed since it was done
	// MoveVerifyTask moves the task to phase verify: every unit is
	// settled, and the work is reviewed as a whole before the archive.
	MoveVerifyTask Move = "verify-task"
)

// AdviseIn is the advisor: Advise with everything the workspace found.
// The view is synced with the plan first, as Decide does, so a limit
// raised in the plan counts at once. Every Offer is one Decide (or the
// operation's own rule) accepts; when no work can be recorded, Hold says
// why.
func AdviseIn(s *state.State, p *plan.Plan, sit Situation) Advice {
	return AdviseSynced(Synced(s, p), s, p, sit)
}

// AdviseSynced is AdviseIn for a caller that holds the view synced with
// the plan already (Synced's result, which it does not change) beside the
// view as recorded (for what `itr plan` would record): one copy of the
// view, not two.
func AdviseSynced(s, view *state.State, p *plan.Plan, sit Situation) Advice {
	a := adviseView(s, p, sit.Activity, sit.Held, sit.Missing)
	a.Recheck = recheck(s, p)
	if broken := brokenUnits(sit); len(broken) > 0 {
		a.Broken = sortedKeys(broken)
	}
	if h := situationHold(s, p, sit); h != nil {
		a.Hold = h
		a.Move, a.MoveUnit = holdMove(h), h.unit()
		switch h.Clear {
		case OpDeliver:
			a.Offers = []Offer{{Op: OpDeliver, For: MoveDeliver, Person: true}}
		case OpResume:
			if h.Code == Concluded {
				// Over: archive it, or a person takes it back to work.
				a.Offers = []Offer{{Op: OpArchive, For: MoveArchive}, {Op: OpResume, For: MoveResume, Person: true}}
				break
			}
			a.Offers = []Offer{{Op: OpResume, For: MoveResume, Person: true}}
		case OpRestore:
			a.Offers = []Offer{{Op: OpRestore, For: MoveRestore}}
		case OpReconcile:
			a.Offers = []Offer{{Op: OpReconcile, For: MoveReconcile}}
		case OpApprove:
			a.Offers = []Offer{{Op: OpApprove, For: MoveApprove, Person: true}}
		}
		return a
	}
	a.Offers = offers(s, view, p, sit, &a)
	if len(a.Offers) > 0 && (a.Offers[0].For == MoveRepair || a.Offers[0].For == MoveRerun || a.Offers[0].For == MoveReconcile || a.Offers[0].For == MoveRecheck) {
		a.Move, a.MoveUnit = a.Offers[0].For, a.Offers[0].Unit
	}
	if a.Move == MoveRestore {
		a.Move = MoveArchive // not archived (Archived would hold it): finish the archive
	}
	// No unit takes work: say what holds it, unless a repair comes first
	// (the units that build on a broken output are held back by advice,
	// not refused).
	if !anyWork(a.Offers) && a.Move != MoveRepair {
		if h := stuckHold(s, a); h != nil {
			a.Hold = h
		}
	}
	return a
}

// situationHold is the hold of the task as a whole: archived, a git
// operation, an unreadable file, unsaved files, paused, the budget spent.
func situationHold(s *state.State, p *plan.Plan, sit Situation) *Hold {
	switch {
	case sit.Archived && sit.InTheWay != "":
		return &Hold{Code: HoldArchived, Edit: EditFolder}
	case sit.Archived:
		return &Hold{Code: HoldArchived, Clear: OpRestore}
	case sit.Operation != "":
		return &Hold{Code: HoldOperation, Edit: EditGit}
	case sit.Unreadable != nil:
		if sit.Unreadable.Plan {
			return &Hold{Code: HoldUnreadable, Edit: EditPlan}
		}
		return &Hold{Code: HoldUnreadable, Clear: OpReconcile}
	}
	for _, u := range sit.Unsaved {
		if u.Name == "decisions.md" && !u.Deleted {
			// reconcile rebuilds from progress.md; a decision written by
			// hand is committed with git.
			return &Hold{Code: HoldUnsaved, Edit: EditCommit}
		}
	}
	// A record reconciles first where a plain commit took entries out or
	// the folder was written without itr, and that reconcile takes in
	// itr's unsaved files too (a hand edit of state.json is kept aside):
	// no hold then, but reconcile comes first among the offers.
	if len(sit.Unsaved) > 0 && sit.Undone == 0 && !sit.Adopt {
		return &Hold{Code: HoldUnsaved, Clear: OpReconcile}
	}
	// A concluded task is held; in phase complete it is an archive that
	// stopped before it took the folder out, which archive finishes.
	if r := concluded(s, ""); r != nil && s.Phase != state.Complete {
		return &Hold{Code: Concluded, Refusal: r, Clear: OpResume, Person: true}
	}
	if ps := s.Paused; ps != nil {
		return &Hold{Code: TaskPaused, Refusal: &Refusal{Code: TaskPaused, Since: ps.Since, Reason: ps.Reason}, Clear: OpResume, Person: true}
	}
	if r := approvalNeeded(s, p, ""); r != nil && unsettledAny(s, p) {
		return &Hold{Code: NeedsApproval, Refusal: r, Clear: OpApprove, Person: true}
	}
	if r := budgetSpent(s, p, ""); r != nil && s.Outcome == nil {
		return &Hold{Code: BudgetSpent, Refusal: r, Person: true, Edit: EditBudget, Clear: OpDeliver}
	}
	return nil
}

// unit is the unit a hold is about, "" for the task.
func (h *Hold) unit() string {
	if h.Refusal != nil {
		return h.Refusal.Unit
	}
	return ""
}

// holdMove is the move that clears a hold.
func holdMove(h *Hold) Move {
	switch h.Code {
	case HoldArchived:
		return MoveRestore
	case HoldOperation:
		return MoveGit
	case HoldUnreadable:
		if h.Edit == EditPlan {
			return MoveFixPlan
		}
		return MoveReconcile
	case HoldUnsaved:
		if h.Edit == EditCommit {
			return MoveGit
		}
		return MoveReconcile
	case TaskPaused:
		return MoveResume
	case BudgetSpent:
		return MoveRaiseBudget
	case NeedsApproval:
		return MoveApprove
	case Concluded:
		return MoveArchive
	}
	return MoveWait
}

// stuckHold is the hold when no unit takes work: the refusal a checkpoint
// gets (none ready, the unit's own), and who clears it.
func stuckHold(s *state.State, a Advice) *Hold {
	if a.Total == 0 {
		return &Hold{Code: NoUnits, Refusal: &Refusal{Code: NoUnits, PlanFile: PlanName(s.Mode)}, Edit: EditPlan}
	}
	if a.Settled == a.Total || s.Phase == state.Complete {
		return nil // nothing is left: archive (offered) is the move
	}
	r := &Refusal{Code: NoneReady, PlanFile: PlanName(s.Mode), Stuck: a.Stuck}
	h := &Hold{Code: NoneReady, Refusal: r}
	// A person clears it when some unit needs one: a limit to raise, a
	// block to resolve, a failure to look at.
	for _, st := range a.Stuck {
		switch st.Code {
		case UnitTimedOut:
			h.Person, h.Edit = true, EditLimit
		case UnitBlocked, UnitFailed:
			h.Person = true
		}
	}
	return h
}

// offers are the moves Decide accepts now, the most urgent first.
func offers(s, view *state.State, p *plan.Plan, sit Situation, a *Advice) []Offer {
	var out []Offer
	try := func(o Offer) error {
		o.Intent.Unit, o.Intent.Held, o.Intent.Missing, o.Intent.Counts = o.Unit, sit.Held, sit.Missing, sit.Counts
		o.Intent.WillRun = o.Verify
		ev, err := decide(s, p, o.Intent)
		if err == nil && !(Closing(ev) && len(sit.Unready[o.Unit]) > 0) {
			out = append(out, o)
		}
		return err
	}
	add := func(o Offer) { _ = try(o) }
	broken := brokenUnits(sit)
	tainted := taintedBy(s, p, broken)
	// A done unit whose output broke (or changed since it was pinned at
	// done) comes first: work may build on it.
	repairOffers(s, sit, broken, add)
	// A done unit whose inputs changed since it was done: read it again
	// against them, then record that it holds, or reopen it.
	for _, o := range recheckOffers(s, sit.StaleInputs) {
		add(o)
	}
	// A check cut off before itr recorded it: run it again.
	for _, in := range sit.Interrupted {
		if in.Argv == nil && checkOf(p, in.Unit) == "" {
			continue // nothing to run again as it was
		}
		add(Offer{Op: OpCheckpoint, Unit: in.Unit, Intent: Intent{Action: Work}, Verify: true, Argv: in.Argv, For: MoveRerun})
	}
	// The unit to work on, unless it builds on a broken output: then the
	// first under way or ready that does not.
	for _, id := range append(append([]string{a.Unit}, a.Started...), a.Ready...) {
		if id != "" && !tainted[id] {
			workOffers(s.Units[id], checkOf(p, id) != "", try, a)
			break
		}
	}
	// Outputs an interrupted iteration left partial: finishing them is the
	// unit's own work (above); starting it over is the other way.
	for _, id := range sortedKeys(sit.Partial) {
		add(Offer{Op: OpRestart, Unit: id, Intent: Intent{Action: Restart}, For: MoveRestart})
	}
	// The current unit's own state, then the units that need someone.
	cur := state.Val(s.Current)
	if u := s.Units[cur]; u != nil && u.Status == state.Blocked {
		add(Offer{Op: OpUnblock, Unit: cur, Intent: Intent{Action: Unblock}, For: MoveUnblock, Person: true})
	}
	if !anyWork(out) {
		for _, o := range needSomeone(a, cur) {
			add(o)
		}
	}
	out = append(out, endOffers(s, p, a)...)
	// What the next record would do anyway, offered on its own: first,
	// where itr's files changed without a commit.
	if sit.Undone > 0 || sit.Adopt || sit.Stale || len(sit.Unsaved) > 0 {
		rec := Offer{Op: OpReconcile, For: MoveReconcile}
		if len(sit.Unsaved) > 0 {
			out = append([]Offer{rec}, out...)
		} else {
			out = append(out, rec)
		}
	}
	if added, removed, changed := PlanChanges(view, p); len(added)+len(changed) > 0 && !startedAmong(s, removed) {
		out = append(out, Offer{Op: OpPlan, For: MoveReplan})
	}
	return out
}

// recheckOffers are the re-check and the reopen of each done unit whose
// inputs changed since it was done; the caller keeps those Decide accepts.
func recheckOffers(s *state.State, stale map[string][]string) []Offer {
	var out []Offer
	for _, id := range sortedKeys(stale) {
		if u := s.Units[id]; u != nil && u.Status == state.Done {
			out = append(out,
				Offer{Op: OpRecheck, Unit: id, Intent: Intent{Action: Recheck}, For: MoveRecheck},
				Offer{Op: OpReopen, Unit: id, Intent: Intent{Action: Reopen}, For: MoveRecheck})
		}
	}
	return out
}

// endOffers are the moves of a task whose units are all settled: the move
// to verify while the phase is before it (itr phase verify, where the work
// is reviewed as a whole), and the archive. Complete but still in the
// working tree: an archive stopped before it removed the folder, and
// running it again finishes it.
func endOffers(s *state.State, p *plan.Plan, a *Advice) []Offer {
	all := a.Total > 0 && a.Settled == a.Total
	var out []Offer
	if all && s.Phase.Rank() < state.Verify.Rank() && CheckPhaseIn(s, p, state.Verify, false) == nil {
		out = append(out, Offer{Op: OpPhase, Phase: state.Verify, For: MoveVerifyTask})
	}
	if all || s.Phase == state.Complete {
		out = append(out, Offer{Op: OpArchive, For: MoveArchive})
	}
	return out
}

// workOffers tries the moves of unit u, the unit to work on (check says
// its plan gives a Verify line). A move toward done the settle rule holds
// says why in a.Settle, and the item work that settles the items is
// offered instead.
func workOffers(u *state.Unit, check bool, try func(Offer) error, a *Advice) {
	for _, o := range unitOffers(u, check) {
		err := try(o)
		var r *Refusal
		if errors.As(err, &r) && settleCode(r.Code) && a.Settle == nil {
			a.Settle = r
		}
		if so, ok := settleOffer(err, u); ok {
			_ = try(so)
		}
	}
}

// needSomeone are the moves that need a person when no unit takes work:
// unblock the first blocked unit (but the current one, offered already),
// and reopen (retry), skip or restart (seed 004's "start fresh") the first
// failed unit; the caller keeps those Decide accepts.
func needSomeone(a *Advice, cur string) []Offer {
	var out []Offer
	for _, id := range a.Blocked {
		if id != cur {
			out = append(out, Offer{Op: OpUnblock, Unit: id, Intent: Intent{Action: Unblock}, For: MoveUnblock, Person: true})
			break
		}
	}
	if len(a.Failed) > 0 {
		id := a.Failed[0]
		out = append(out,
			Offer{Op: OpReopen, Unit: id, Intent: Intent{Action: Reopen}, For: MoveResolve, Person: true},
			Offer{Op: OpSkip, Unit: id, Intent: Intent{Action: Skip}, For: MoveResolve, Person: true},
			Offer{Op: OpRestart, Unit: id, Intent: Intent{Action: Restart}, For: MoveResolve, Person: true})
	}
	return out
}

// checkOf is the unit's Verify line, "" for none; "checks" for a unit
// whose plan gives named checks without one.
func checkOf(p *plan.Plan, id string) string {
	if !active(p) {
		return ""
	}
	if pu := p.Unit(id); pu != nil {
		if c := pu.Check(); c != "" || !pu.HasCheck() {
			return c
		}
		return "checks"
	}
	return ""
}

// unitOffers are the checkpoints a unit takes in its status, and a block;
// the caller keeps those Decide accepts. check says the plan gives the
// unit a Verify line.
func unitOffers(u *state.Unit, check bool) []Offer {
	id := u.ID
	var list []Offer
	switch u.Status {
	case state.Pending:
		list = append(list, Offer{Op: OpCheckpoint, Unit: id, Intent: Intent{Action: Work}, For: MoveStart})
	case state.InProgress:
		list = append(list,
			Offer{Op: OpCheckpoint, Unit: id, Intent: Intent{Action: Work}, For: MoveContinue},
			Offer{Op: OpCheckpoint, Unit: id, Intent: Intent{Action: Work, Signal: true}, Verify: check, For: MoveContinue})
	case state.Confirming:
		list = append(list,
			Offer{Op: OpCheckpoint, Unit: id, Intent: Intent{Action: Work, Signal: true}, Verify: check, For: MoveConfirm},
			Offer{Op: OpCheckpoint, Unit: id, Intent: Intent{Action: Work}, For: MoveConfirm})
	case state.Verifying:
		// Verified needs evidence: the unit's check, else who verified.
		v := Offer{Op: OpCheckpoint, Unit: id, Intent: Intent{Action: Work, Verified: true}, Verify: true, For: MoveVerify}
		if !check {
			v = Offer{Op: OpCheckpoint, Unit: id, Intent: Intent{Action: Work, Verified: true, VerifiedBy: "someone"}, For: MoveVerify}
		}
		list = append(list, v, Offer{Op: OpCheckpoint, Unit: id, Intent: Intent{Action: Work}, For: MoveVerify})
	}
	blk := Offer{Op: OpBlock, Unit: id, Intent: Intent{Action: Block}, For: MoveBlock}
	if len(BrokenChecks(u)) > 0 {
		// A check of its own broke: set it aside as a tool error.
		blk.Intent.ReasonKind = state.KindToolError
	}
	list = append(list, blk)
	return list
}

// BrokenChecks are the names of the unit's named checks that broke (an
// error of the check itself: exit 2 and above, a signal, a timeout) in
// its latest iteration, sorted.
func BrokenChecks(u *state.Unit) []string {
	if u == nil {
		return nil
	}
	var out []string
	for _, name := range state.CheckNames(u.Checks) {
		c := u.Checks[name]
		if c.Outcome == state.CheckError && c.Iteration == state.Val(u.IterationsUsed) && c.Iteration > 0 {
			out = append(out, name)
		}
	}
	return out
}

// anyWork reports whether an offer records work (a checkpoint).
func anyWork(os []Offer) bool {
	for _, o := range os {
		if o.Op == OpCheckpoint {
			return true
		}
	}
	return false
}

// recheck are the done units that build (through their dependencies) on a
// unit that is no longer done (reopened, or worked on out of order): their
// work may not hold once it is done again.
func recheck(s *state.State, p *plan.Plan) []string {
	if !active(p) {
		return nil
	}
	ids, units := s.Ordered()
	if deps, ok := p.Positions(ids); ok {
		return recheckAt(s, p, ids, units, deps)
	}
	return recheckByID(s, p)
}

// recheckByID is recheck looking each unit up by ID.
func recheckByID(s *state.State, p *plan.Plan) []string {
	settled := settledFunc(s, p)
	on := buildsOn(BuildsOnMap(p), func(d string) bool { return !settled(d) })
	var out []string
	for id, u := range s.Units {
		if u.Status == state.Done && on(id) {
			out = append(out, id)
		}
	}
	sortIDs(out)
	return out
}

// BuildsOnMap maps each unit of the plan to the units it builds on
// directly: its dependencies, then the units whose outputs it reads
// (Inputs: T1.output).
func BuildsOnMap(p *plan.Plan) map[string][]string {
	deps := p.DepMap()
	for _, pu := range p.Units {
		for _, in := range pu.InputRefs() {
			if in.Unit != "" && !slices.Contains(deps[pu.ID], in.Unit) {
				deps[pu.ID] = append(slices.Clip(deps[pu.ID]), in.Unit)
			}
		}
	}
	return deps
}

// taintedBy are the unfinished units that build, through their
// dependencies, on the broken done units.
func taintedBy(s *state.State, p *plan.Plan, broken map[string]bool) map[string]bool {
	out := map[string]bool{}
	if len(broken) == 0 || !active(p) {
		return out
	}
	on := buildsOn(readsFrom(p), func(d string) bool { return broken[d] })
	for id, u := range s.Units {
		if u.Status != state.Done && on(id) {
			out[id] = true
		}
	}
	return out
}

// recheckAt is recheck of a view lined up with its plan (plan.Positions):
// the units it builds on by position (the graph holds the units whose
// outputs a unit reads), and as unsettled any unit it reads from that the
// plan has not got, as BuildsOnMap and settledFunc have it.
func recheckAt(s *state.State, p *plan.Plan, ids []string, units []*state.Unit, deps [][]int) []string {
	settled := SettledAt(s, p, ids, units)
	const (
		_ = iota // not looked at yet
		clean
		builds
		visiting
	)
	memo := make([]uint8, len(ids))
	var on func(i int) bool
	on = func(i int) bool {
		switch memo[i] {
		case clean, visiting:
			return false
		case builds:
			return true
		}
		memo[i] = visiting
		res := false
		for _, d := range deps[i] {
			if !settled[d] || on(d) {
				res = true
				break
			}
		}
		if !res {
			for _, in := range p.Units[i].InputRefs() {
				if in.Unit != "" && p.Unit(in.Unit) == nil {
					res = true // reads from a unit the view has not got: unsettled
					break
				}
			}
		}
		memo[i] = clean
		if res {
			memo[i] = builds
		}
		return res
	}
	var out []string
	for i, u := range units {
		if u.Status == state.Done && on(i) {
			out = append(out, ids[i])
		}
	}
	return out
}

// buildsOn returns whether a unit depends, directly or through other
// units, on one that hit picks; each unit is looked at once (a cycle,
// which the plan refuses anyway, stops the walk).
func buildsOn(deps map[string][]string, hit func(string) bool) func(string) bool {
	const (
		_ = iota // not looked at yet
		clean
		builds
		visiting
	)
	memo := map[string]int{}
	var on func(id string) bool
	on = func(id string) bool {
		switch memo[id] {
		case clean, visiting:
			return false
		case builds:
			return true
		}
		memo[id] = visiting
		res := false
		for _, d := range deps[id] {
			if hit(d) || on(d) {
				res = true
				break
			}
		}
		memo[id] = clean
		if res {
			memo[id] = builds
		}
		return res
	}
	return on
}

// unsettledAny reports whether some unit's work is not accounted for.
func unsettledAny(s *state.State, p *plan.Plan) bool {
	settled := settledFunc(s, p)
	for id := range s.Units {
		if !settled(id) {
			return true
		}
	}
	return false
}

// startedAmong reports whether one of ids was started (itr plan refuses
// to drop such a unit silently).
func startedAmong(s *state.State, ids []string) bool {
	for _, id := range ids {
		if u := s.Units[id]; u != nil && (u.Status != state.Pending || state.Val(u.IterationsUsed) > 0) {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sortIDs(ids)
	return ids
}

// sortIDs sorts unit IDs in natural order (T2 before T10).
func sortIDs(ids []string) { state.SortIDs(ids) }

// PlanChanges are what `itr plan` would record of the plan p against the
// view s: units added, units removed, and limits changed ("T2
// max_iterations 5 → 8", "T3 items total 12 → 17").
func PlanChanges(s *state.State, p *plan.Plan) (added, removed, changed []string) {
	if !active(p) {
		return nil, nil, nil
	}
	for _, u := range p.Units {
		cur := s.Units[u.ID]
		if cur == nil {
			added = append(added, u.ID)
			continue
		}
		if u.MaxIterations > 0 && state.Val(cur.MaxIterations) != u.MaxIterations {
			from := "none"
			if cur.MaxIterations != nil {
				from = fmt.Sprint(*cur.MaxIterations)
			}
			changed = append(changed, fmt.Sprintf("%s max_iterations %s → %d", u.ID, from, u.MaxIterations))
		}
		if cur.Items != nil && state.Val(cur.Items.Total) != u.ItemTotal() {
			// The ledger's total follows the plan's Items.
			from, to := "none", "none"
			if cur.Items.Total != nil {
				from = fmt.Sprint(*cur.Items.Total)
			}
			if n := u.ItemTotal(); n > 0 {
				to = fmt.Sprint(n)
			}
			changed = append(changed, fmt.Sprintf("%s items total %s → %s", u.ID, from, to))
		}
	}
	if p.UniqueIDs() && len(s.Units) == len(p.Units)-len(added) {
		// Every other unit of the plan is in the view, and nothing else.
		return added, nil, changed
	}
	index := p.Index()
	for id := range s.Units {
		if index[id] == nil {
			removed = append(removed, id)
		}
	}
	sortIDs(removed)
	return added, removed, changed
}

// Accepted lists the units for which the rule book accepts action now, in
// natural ID order, as the front ends' completion offers them: none while
// the task as a whole is held from writes (archived, a git operation, a
// file that does not read, itr's files changed without a commit); else
// each unit Decide accepts the action for. The view is cloned and synced
// with the plan once.
func Accepted(s *state.State, p *plan.Plan, sit Situation, action Action) []string {
	if h := situationHold(s, p, sit); h != nil {
		switch h.Code {
		case HoldArchived, HoldOperation, HoldUnreadable, HoldUnsaved:
			return nil
		}
	}
	s = s.Clone()
	sync(s, p)
	var out []string
	for _, id := range s.IDs() {
		if _, err := decide(s, p, Intent{Action: action, Unit: id, Held: sit.Held, Missing: sit.Missing}); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// Synced is the view s as the rule book reads it: brought in step with
// the plan p (units the plan added are pending, limits are the plan's), as
// Decide and AdviseIn see it before `itr plan` records it. It is a copy
// when syncing changes anything; a view in step already (as every view
// `itr plan` or a record wrote is) is s itself, not copied: the caller
// reads the result and changes neither.
func Synced(s *state.State, p *plan.Plan) *state.State {
	if inStep(s, p) {
		return s
	}
	s = s.Clone()
	sync(s, p)
	return s
}
