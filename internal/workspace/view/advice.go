package view

import (
	"fmt"
	"path"
	"strings"

	"github.com/itr-dev/itr/evidence"
	"github.com/itr-dev/itr/internal/workspace/runs"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// This file is the CLI's words for the rule book's advice
// (reconcile.AdviseIn): each offer as the command line that runs it, each
// hold as a sentence with what clears it. status, next, prime, the
// agents' hooks and completion render these; MCP words the same advice as
// tool calls (mcpserver).

// Action is one move the rule book accepts now, as the CLI runs it. Its
// JSON field names are part of itr's interface (docs/guide/advice.md, "itr status --json").
type Action struct {
	// Op is the command (checkpoint, block, unblock, reopen, skip, resume,
	// reconcile, plan, archive, restore) and Unit the unit it is about.
	Op   string `json:"op"`
	Unit string `json:"unit,omitempty"`
	// For is the move it makes: start, continue, confirm, verify, rerun,
	// repair, unblock, resolve, resume, reconcile, replan, archive,
	// restore, settle-items (the items to settle before the unit may move
	// toward done).
	For string `json:"for"`
	// Person says a person's judgement comes first (resume when the hold
	// is over, unblock once the block is resolved, reopen once the cause
	// of a failure is fixed).
	Person bool `json:"person,omitempty"`
	// Command is the command line; "..." stands for text to write.
	Command string `json:"command"`
	// Offer is the rule book's offer it words.
	Offer reconcile.Offer `json:"-"`
}

// Hold says why no work can be recorded now and what clears it. Its JSON
// field names are part of itr's interface.
type Hold struct {
	// Code is the rule that holds the work: archived, operation (a git
	// operation in progress), unreadable, unsaved (itr's files changed
	// without a commit), concluded (the task has an outcome), paused,
	// budget-spent, none-ready, no-units.
	Code string `json:"code"`
	// Reason says what holds it, ClearedBy who clears it (person or
	// agent) and Clear how.
	Reason    string `json:"reason"`
	ClearedBy string `json:"cleared_by"`
	Clear     string `json:"clear"`
	// Command is the itr command that clears it, "" when an edit or git
	// does; at the budget, the one that wraps the task up (itr deliver),
	// beside the edit that raises it.
	Command string `json:"command,omitempty"`
}

// situation gathers what the advisor needs beyond the view and the plan;
// each part is read where a record's own check reads it, so advice and
// refusal agree.
type situation struct {
	reconcile.Situation
	// appended are the entries of progress.md no commit holds yet.
	unsaved []store.UnsavedFile
	// partials are the outputs interrupted iterations left partial.
	partials []PartialOutput
}

// situationOf reads the workspace's side of the advice for task t (read
// from HEAD, archive "" for an active task).
func situationOf(st *store.Store, t *store.Task, archive string, facts *logFacts, held reconcile.Held, missing reconcile.Missing,
	stale bool, undone int, broken []verify.OutputIssue, pins []verify.PinIssue) (situation, []string) {
	sit := situation{Situation: reconcile.Situation{Activity: reconcile.Activity(facts.Activity), Held: held, Missing: missing}}
	var warnings []string
	if archive != "" {
		sit.Archived = true
		// A folder of the task's name holding more than the deliverables
		// the archive left is in the way of a restore.
		if only, err := st.OnlyDeliverables(t.Dir); err == nil && !only {
			sit.InTheWay = t.Dir
		}
		return sit, nil
	}
	sit.Operation = st.Repo.Operation()
	if t.StateErr != nil {
		sit.Unreadable = &reconcile.Unreadable{File: st.Rel(t.Slug, store.StateFile), Problem: t.StateErr.Error()}
	} else if t.PlanErr != nil {
		sit.Unreadable = &reconcile.Unreadable{File: st.Rel(t.Slug, t.PlanName), Problem: t.PlanErr.Error(), Plan: true}
	}
	files, err := st.Unsaved(t)
	if err != nil && sit.Unreadable == nil {
		// A file itr cannot read as it stands (a symbolic link): status
		// warns of it; a record is refused until it is fixed by hand.
		sit.Unreadable = &reconcile.Unreadable{Problem: err.Error(), Plan: true}
	}
	sit.unsaved = files
	for _, f := range files {
		u := reconcile.Unsaved{File: f.Rel, Name: f.Name, Deleted: f.Deleted}
		for _, e := range f.Appended {
			a := reconcile.AppendedEntry{Unit: e.Unit, Iteration: e.Iteration, Title: e.Title()}
			a.Did, _ = e.Field("Did")
			a.Remaining, _ = e.Field("Remaining")
			u.Appended = append(u.Appended, a)
		}
		sit.Unsaved = append(sit.Unsaved, u)
	}
	if edits, err := st.FolderEdits(t); err != nil {
		warnings = append(warnings, err.Error())
	} else {
		sit.Edited = edits
	}
	sit.Undone, sit.Stale, sit.Adopt = undone, stale, facts.AdoptionNote != ""
	for _, o := range broken {
		if sit.Broken == nil {
			sit.Broken = map[string][]evidence.Problem{}
		}
		sit.Broken[o.Unit] = append(sit.Broken[o.Unit], o.Problem)
	}
	sit.Unpinned = unpinnedOf(pins)
	if t.State != nil && t.Plan != nil {
		for _, pu := range t.Plan.Units {
			spec, ok := reconcile.OutputSpecOf(t.Plan, pu)
			if !ok {
				continue // no outputs: the unit is not looked up
			}
			if u := t.State.Units[pu.ID]; u != nil && u.Status == state.Done {
				continue
			}
			files, err := st.OutputFiles(t.Slug, spec.Files)
			if err != nil {
				warnings = append(warnings, err.Error())
				continue
			}
			if probs := evidence.Failures(evidence.Check(spec, files)); len(probs) > 0 {
				if sit.Unready == nil {
					sit.Unready = map[string][]evidence.Problem{}
				}
				sit.Unready[pu.ID] = probs
			}
		}
	}
	if t.State != nil && t.Plan != nil {
		sit.Counts = verify.Counts(st, t)
	}
	for _, m := range st.RunMarkers(t.Slug) {
		if !m.Alive() {
			sit.Interrupted = append(sit.Interrupted, reconcile.Interrupted{Unit: m.Unit, Command: m.Command, Argv: m.Argv})
		}
	}
	parts, warns := partialsOf(st, t, facts, sit.unsaved)
	sit.partials, sit.Partial = parts, partialMap(parts)
	return sit, append(warnings, warns...)
}

// actionsOf words the advice's offers as command lines.
func actionsOf(adv reconcile.Advice, slug string) []Action {
	out := []Action{}
	for _, o := range adv.Offers {
		out = append(out, Action{Op: string(o.Op), Unit: o.Unit, For: string(o.For), Person: o.Person, Command: Command(o, slug), Offer: o})
	}
	return out
}

// Command is the command line that runs an offer; "..." stands for the
// text the caller writes.
func Command(o reconcile.Offer, slug string) string {
	u := o.Unit
	switch o.Op {
	case reconcile.OpCheckpoint:
		if o.Intent.Action == reconcile.Repin {
			return fmt.Sprintf("itr checkpoint %s --accept-outputs --did \"...\"", u)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "itr checkpoint %s --did \"...\"", u)
		if o.For == reconcile.MoveStart || o.For == reconcile.MoveContinue {
			b.WriteString(" --remaining \"...\"")
		}
		for _, m := range o.Intent.Items {
			b.WriteString(" --item " + m.String())
		}
		if o.Intent.Signal {
			b.WriteString(" --signal")
		}
		if o.Intent.Verified && o.Intent.VerifiedBy != "" {
			b.WriteString(" --verified-by \"...\"")
		} else if o.Intent.Verified {
			b.WriteString(" --verified")
		}
		if o.Verify {
			b.WriteString(" --verify")
			if len(o.Argv) > 0 {
				b.WriteString(" -- " + runs.QuoteCommand(o.Argv))
			}
		}
		return b.String()
	case reconcile.OpBlock:
		if k := o.Intent.ReasonKind; k != "" {
			return fmt.Sprintf("itr block %s --kind %s --reason \"...\"", u, k)
		}
		return fmt.Sprintf("itr block %s --reason \"...\"", u)
	case reconcile.OpUnblock:
		return "itr unblock " + u
	case reconcile.OpReopen:
		return fmt.Sprintf("itr reopen %s --reason \"...\"", u)
	case reconcile.OpSkip:
		return fmt.Sprintf("itr skip %s --reason \"...\"", u)
	case reconcile.OpRestart:
		return fmt.Sprintf("itr restart %s --reason \"...\"", u)
	case reconcile.OpResume:
		return "itr resume"
	case reconcile.OpReconcile:
		return "itr reconcile"
	case reconcile.OpPlan:
		return "itr plan"
	case reconcile.OpArchive:
		return "itr archive"
	case reconcile.OpRestore:
		return "itr restore " + slug
	case reconcile.OpDeliver:
		return "itr deliver --limitations \"...\""
	case reconcile.OpApprove:
		return "itr approve --by \"...\""
	case reconcile.OpRecheck:
		return fmt.Sprintf("itr recheck %s --did \"...\"", u)
	case reconcile.OpPhase:
		return "itr phase " + string(o.Phase)
	}
	return "itr " + string(o.Op)
}

// holdOf words the advice's hold for a person or an agent reading the CLI.
func holdOf(adv reconcile.Advice, sit situation, s *state.State, p *plan.Plan, slug string) *Hold {
	h := adv.Hold
	if h == nil {
		return nil
	}
	out := &Hold{Code: string(h.Code), ClearedBy: "agent"}
	if h.Person {
		out.ClearedBy = "person"
	}
	for _, o := range adv.Offers {
		if o.Op == h.Clear && h.Clear != "" {
			out.Command = Command(o, slug)
		}
	}
	planFile := reconcile.PlanName(s.Mode)
	if p != nil && p.File != "" {
		planFile = p.File
	}
	switch h.Code {
	case reconcile.HoldArchived:
		out.Reason = "the task is archived: nothing can be recorded in it"
		out.Clear = fmt.Sprintf("bring it back with `itr restore %s` to continue it", slug)
		if d := sit.InTheWay; d != "" {
			out.Reason += fmt.Sprintf(", and %s in the working tree holds files that are not its archived deliverables (not a task at HEAD)", d)
			out.Clear = fmt.Sprintf("move %s away (or delete what a checkout put there), then `itr restore %s` brings the task back", d, slug)
		}
	case reconcile.HoldOperation:
		out.Reason = fmt.Sprintf("a git %s is in progress: itr records nothing until it is concluded", sit.Operation)
		out.Clear = fmt.Sprintf("resolve itr's files with `itr reconcile` if they conflict, then conclude the %s with git (`git %s --continue`, or `--abort`)", sit.Operation, sit.Operation)
	case reconcile.HoldUnreadable:
		u := sit.Unreadable
		out.Reason = fmt.Sprintf("%s does not read: %s", u.File, u.Problem)
		if strings.HasPrefix(u.Problem, u.File) {
			out.Reason = u.Problem // it names the file already
		}
		if u.File == "" {
			out.Reason, out.Clear = u.Problem, "fix it by hand as the error says"
		} else if u.Plan {
			out.Clear = fmt.Sprintf("fix %s where the error says", u.File)
		} else {
			out.Clear = "`itr reconcile` rebuilds it from the log"
		}
	case reconcile.HoldUnsaved:
		out.Reason, out.Clear = unsavedText(sit)
	case reconcile.TaskPaused:
		out.Reason = "the task is paused since " + s.Paused.Since
		if s.Paused.Reason != "" {
			out.Reason += " (" + quote(s.Paused.Reason, 300) + ")"
		}
		out.Reason += ": checkpoints are refused"
		out.Clear = "a person (or you, when the hold is over) runs `itr resume`"
	case reconcile.BudgetSpent:
		r := *h.Refusal
		r.PlanFile = planFile
		at := planFile
		if r.Line > 0 {
			at = fmt.Sprintf("%s:%d", planFile, r.Line)
		}
		out.Reason = fmt.Sprintf("the task used all %d of its iterations (\"**Max total iterations:** %d\" at %s): checkpoints are refused", r.Max, r.Max, at)
		out.Clear = reconcile.BudgetWaysOut(&r, func(f string) string { return "--" + f })
	case reconcile.Concluded:
		o := s.Outcome
		out.Reason = "the task is concluded: " + outcomeWords(o)
		if o.At != "" {
			out.Reason += " (since " + o.At + ")"
		}
		out.Reason += "; it takes no more work"
		out.Clear = "archive it with `itr archive` (the outcome goes with it), or a person takes it back to work with `itr resume`"
	case reconcile.NeedsApproval:
		r := h.Refusal
		at := planFile
		if r.Line > 0 {
			at = fmt.Sprintf("%s:%d", planFile, r.Line)
		}
		out.Reason = fmt.Sprintf("the plan asks for approval before any unit work (\"**Approval:** required\" at %s) and nobody has approved it yet: checkpoints are refused", at)
		out.Clear = fmt.Sprintf("a person reads %s and approves it with `itr approve --by <you>` (--note for what they said); until then the plan may still change", path.Base(planFile))
	case reconcile.NoUnits:
		out.Reason = "the task has no units yet"
		out.Clear = fmt.Sprintf("write the units in %s, then `itr plan`", planFile)
	case reconcile.NoneReady:
		out.Reason = "no unit can take work: " + strings.Join(store.FirstN(stuckWords(s, p, adv.Stuck), 5), "; ")
		out.Clear = noneReadyClear(adv, planFile)
	default:
		if h.Refusal != nil {
			out.Reason = h.Refusal.Error()
		}
	}
	return out
}

// unsavedText says which of itr's files changed without a commit and how
// that clears.
func unsavedText(sit situation) (reason, clear string) {
	for _, f := range sit.unsaved {
		switch {
		case f.Name == store.DecisionsFile && !f.Deleted:
			return f.Rel + " has changes no commit holds", fmt.Sprintf("commit them with `git commit -m 'decisions' -- %s` (itr checks they only append), or discard them with `git checkout -- %s`", f.Rel, f.Rel)
		}
	}
	f := sit.unsaved[0]
	switch {
	case f.Deleted:
		return f.Rel + " was deleted from the working tree", fmt.Sprintf("`itr reconcile` restores it (or `git checkout -- %s`)", f.Rel)
	case len(f.Appended) > 0:
		n := len(f.Appended)
		e := f.Appended[n-1]
		did, _ := e.Field("Did")
		rem, _ := e.Field("Remaining")
		reason = fmt.Sprintf("%s holds %d entr%s no commit holds (a session stopped between its append and its commit); the newest, %s, says Did %s, Remaining %s",
			f.Rel, n, store.Plural(n, "y", "ies"), entryName(e), quote(did, 200), quote(rem, 200))
		return reason, fmt.Sprintf("`itr reconcile` records %s as committed history; then go on from %s", store.Plural(n, "it", "them"), store.Plural(n, "it", "the newest"))
	}
	return f.Rel + " has changes no commit holds", fmt.Sprintf("`itr reconcile` adopts entries appended by hand and rebuilds state.json (or `git checkout -- %s` discards them)", f.Rel)
}

// stuckWords says, unit by unit, why no unit can take work.
func stuckWords(s *state.State, p *plan.Plan, stuck []*reconcile.Refusal) []string {
	var out []string
	for _, r := range stuck {
		switch r.Code {
		case reconcile.UnitBlocked:
			out = append(out, fmt.Sprintf("%s is blocked: %s", r.Unit, blockWords(UnitStatus{Reason: r.Reason, ReasonKind: r.ReasonKind, ClearWhen: r.ClearWhen})))
		case reconcile.UnitFailed:
			if by := live(s, reconcile.Replacements(p, r.Unit)); len(by) > 0 {
				out = append(out, fmt.Sprintf("%s failed (%s); %s", r.Unit, kindReason(r.ReasonKind, r.Reason), replacedText(by)))
				break
			}
			out = append(out, fmt.Sprintf("%s failed (%s): %s", r.Unit, kindReason(r.ReasonKind, r.Reason), reconcile.FailedFix(r.Unit, s.Mode, func(f string) string { return "--" + f })))
		case reconcile.UnitTimedOut:
			out = append(out, fmt.Sprintf("%s used all %d iterations (raise Max iterations, then `itr plan`)", r.Unit, r.Max))
		case reconcile.WaitsFor:
			out = append(out, fmt.Sprintf("%s waits for %s", r.Unit, reconcile.JoinDeps(r.Waiting)))
		case reconcile.HeldElsewhere:
			out = append(out, fmt.Sprintf("%s is held by %s", r.Unit, r.Reason))
		case reconcile.InputsMissing:
			out = append(out, fmt.Sprintf("%s cannot start: its inputs are missing (%s)", r.Unit, strings.Join(store.FirstN(r.Missing, 5), ", ")))
		case reconcile.StandsBy:
			out = append(out, fmt.Sprintf("%s stands by for %s: it replaces %s and starts only if that fails or is skipped", r.Unit, reconcile.JoinDeps(r.Waiting), store.Plural(len(r.Waiting), "it", "them")))
		}
	}
	return out
}

// noneReadyClear says who clears a task where no unit takes work.
func noneReadyClear(adv reconcile.Advice, planFile string) string {
	var parts []string
	for _, r := range adv.Stuck {
		switch r.Code {
		case reconcile.UnitTimedOut:
			parts = append(parts, fmt.Sprintf("a person raises the Max iterations of %s in %s (then `itr plan` records it)", r.Unit, path.Base(planFile)))
		case reconcile.UnitBlocked:
			parts = append(parts, fmt.Sprintf("whoever resolves the block of %s runs `itr unblock %s`", r.Unit, r.Unit))
		case reconcile.UnitFailed:
			parts = append(parts, fmt.Sprintf("a person reopens, skips or replaces %s", r.Unit))
		case reconcile.HeldElsewhere:
			parts = append(parts, fmt.Sprintf("the agent holding %s finishes or releases it", r.Unit))
		case reconcile.InputsMissing:
			parts = append(parts, fmt.Sprintf("the inputs of %s are written", r.Unit))
		}
		if len(parts) == 3 {
			break
		}
	}
	if len(parts) == 0 {
		return "the units it waits for finish (`itr next --all` shows them)"
	}
	return strings.Join(parts, "; ")
}

// hintOf says in a few words what an action is for, as prime lists it:
// the first hint whose test the offer passes.
func hintOf(a Action) string {
	for _, h := range hints {
		if h.is(a.Offer) {
			return " (" + h.text + ")"
		}
	}
	return ""
}

// hints are the words of hintOf, most particular first.
var hints = []struct {
	is   func(reconcile.Offer) bool
	text string
}{
	{func(o reconcile.Offer) bool { return o.For == reconcile.MoveRerun }, "runs the interrupted check again"},
	{func(o reconcile.Offer) bool {
		return o.For == reconcile.MoveRepair && o.Intent.Action == reconcile.Repin
	}, "accepts the change to its outputs on purpose"},
	{func(o reconcile.Offer) bool { return o.For == reconcile.MoveRepair }, "its output broke after done"},
	{func(o reconcile.Offer) bool {
		return o.Op == reconcile.OpCheckpoint && o.Intent.Signal && o.For == reconcile.MoveConfirm
	}, "the work holds"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpCheckpoint && o.For == reconcile.MoveConfirm }, "it needs more work"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpCheckpoint && o.Intent.Signal }, "its work is done"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpCheckpoint && o.Intent.Verified }, "verification passed"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpCheckpoint && o.For == reconcile.MoveVerify },
		"verification found problems: back to in_progress"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpUnblock }, "once its block is resolved"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpResume },
		"a person's call: when the hold is over, or to take the task back to work"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpDeliver },
		"a person's call: records what exists as done with limitations"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpReopen && o.For == reconcile.MoveResolve },
		"once a person fixed the cause"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpRestart && o.For == reconcile.MoveResolve },
		"starts it fresh instead: its iterations stay spent"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpRestart },
		"starts it over from nothing instead of finishing its partial outputs; its iterations stay spent"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpReconcile }, "puts itr's files in step with the log"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpPlan }, "records the plan's changes"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpApprove }, "a person's call: once they have read the plan"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpRecheck },
		"its inputs changed since it was done: once it still holds against them"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpReopen && o.For == reconcile.MoveRecheck },
		"its inputs changed since it was done: when it no longer holds"},
	{func(o reconcile.Offer) bool { return o.Op == reconcile.OpPhase }, "every unit is settled: review the work as a whole"},
}

// entryName names a log entry in a few words: "T1 iteration 4", else its
// heading without the time.
func entryName(e progresslog.Entry) string {
	if e.Kind == progresslog.KindIteration {
		return fmt.Sprintf("%s iteration %d", e.Unit, e.Iteration)
	}
	t := e.Title()
	if i := strings.LastIndex(t, " - "); i > 0 {
		t = t[:i]
	}
	return quote(t, 80)
}

// Whole reports whether the hold is on the task as a whole (paused, budget
// spent, unsaved files, a git operation, archived, unreadable), not on its
// units one by one (none ready, no units): then it is the news, worded
// before any unit. A nil hold holds nothing.
func (h *Hold) Whole() bool {
	return h != nil && h.Code != string(reconcile.NoneReady) && h.Code != string(reconcile.NoUnits)
}

// Accepted lists the units of a task for which the rule book accepts the
// action now (shell completion offers them), each as status shows it.
func Accepted(st *store.Store, slug string, action reconcile.Action) ([]UnitStatus, error) {
	sum, t, err := status(st, slug)
	if err != nil {
		return nil, err
	}
	if t.State == nil {
		return nil, t.StateErr
	}
	var out []UnitStatus
	for _, id := range reconcile.Accepted(t.State, t.Plan, sum.sit.Situation, action) {
		out = append(out, ix(sum, id))
	}
	return out, nil
}

// nextAction words the rule book's next move as a fact a session can act
// on.
func nextAction(slug string, s *state.State, adv reconcile.Advice, sum *Summary) string {
	var u UnitStatus
	for _, x := range sum.Units {
		if x.ID == adv.MoveUnit {
			u = x
		}
	}
	if h := sum.Hold; h.Whole() {
		text := h.Reason + "; " + h.Clear
		if adv.Hold.Code == reconcile.TaskPaused {
			// What comes after the hold: the work as it stands.
			under := underMove(s, adv)
			if under.Move != "" {
				text += "; then " + moveText(slug, s, under, sum, u)
			}
		}
		return text
	}
	return moveText(slug, s, adv, sum, u)
}

// underMove is adv with the move of its unit to work on, as it stands
// under what comes first.
func underMove(s *state.State, adv reconcile.Advice) reconcile.Advice {
	adv.Hold, adv.Move, adv.MoveUnit = nil, workMoveOf(s, adv), adv.Unit
	return adv
}

// workMoveOf is the move the unit to work on takes, "" for none.
func workMoveOf(s *state.State, adv reconcile.Advice) reconcile.Move {
	if adv.Unit == "" {
		return ""
	}
	switch s.Units[adv.Unit].Status {
	case state.InProgress:
		return reconcile.MoveContinue
	case state.Confirming:
		return reconcile.MoveConfirm
	case state.Verifying:
		return reconcile.MoveVerify
	case state.Pending:
		return reconcile.MoveStart
	}
	return ""
}

// continueText words the move continue of unit u: its partial outputs
// first, then its outputs that fail their checks.
func continueText(u UnitStatus, sum *Summary) string {
	if files := sum.sit.Partial[u.ID]; len(files) > 0 {
		restart := ""
		for _, a := range sum.Actions {
			if a.Offer.Op == reconcile.OpRestart && a.Unit == u.ID {
				restart = fmt.Sprintf(", or start %s over with `itr restart %s --reason ...`", u.ID, u.ID)
			}
		}
		return fmt.Sprintf("continue %s (iteration %d): an interrupted iteration left its outputs partial (%s): finish them and checkpoint%s",
			u.ID, u.Iterations+1, strings.Join(store.FirstN(files, 3), ", "), restart)
	}
	if probs := sum.sit.Unready[u.ID]; len(probs) > 0 {
		return fmt.Sprintf("continue %s (iteration %d); its outputs fail their checks (%s): --signal is refused until they pass", u.ID, u.Iterations+1, probs[0])
	}
	return fmt.Sprintf("continue %s (iteration %d); when its work is done, checkpoint with --signal", u.ID, u.Iterations+1)
}

// moveText words the move of adv.
func moveText(slug string, s *state.State, adv reconcile.Advice, sum *Summary, u UnitStatus) string {
	if u.ID != adv.MoveUnit {
		for _, x := range sum.Units {
			if x.ID == adv.MoveUnit {
				u = x
			}
		}
	}
	current := sum.Current != nil && sum.Current.ID == adv.MoveUnit
	switch adv.Move {
	case reconcile.MoveRepair:
		on := ""
		if d := dependants(sum, adv.MoveUnit); len(d) > 0 {
			on = fmt.Sprintf(", and %s build%s on it", strings.Join(store.FirstN(d, 3), ", "), map[bool]string{true: "s", false: ""}[len(d) == 1])
		}
		if t := pinRepairText(sum, u.ID, on); t != "" && len(sum.sit.Broken[u.ID]) == 0 {
			return t
		}
		return fmt.Sprintf("repair %s first: it is done, but its output fails its check now%s; put the output back (`itr verify` says how) or reopen %s to redo it (`itr reopen %s --reason ...`)",
			u.ID, on, u.ID, u.ID)
	case reconcile.MoveRecheck:
		return recheckText(sum, adv.MoveUnit)
	case reconcile.MoveReconcile:
		return "itr's files changed without a commit, and a plain commit took entries out (or the folder was written without itr): run `itr reconcile` first to put the log and state.json in step (the next checkpoint would do it before its own entry); then " + moveText(slug, s, underMove(s, adv), sum, u)
	case reconcile.MoveRerun:
		for _, a := range sum.Actions {
			if a.Offer.For == reconcile.MoveRerun && a.Unit == u.ID {
				return fmt.Sprintf("the check of %s was cut off before itr could record it: run it again with `%s` (add --signal if its work is done)", u.ID, a.Command)
			}
		}

	case reconcile.MoveContinue, reconcile.MoveConfirm, reconcile.MoveVerify:
		if r := adv.Settle; r != nil && r.Unit == u.ID {
			return settleMoveText(slug, adv, u)
		}
		if t := brokenCheckText(s, sum, u); t != "" {
			return t
		}
	}
	return moveTextMore(slug, s, adv, sum, u, current)
}

// brokenCheckText words the way on when a named check of u broke in its
// latest iteration: the check, not the work, is at fault, so the unit
// stayed where it was; fix the check and run it again, or set the unit
// aside as a tool error. "" when none broke.
func brokenCheckText(s *state.State, sum *Summary, u UnitStatus) string {
	broke := reconcile.BrokenChecks(s.Units[u.ID])
	if len(broke) == 0 {
		return ""
	}
	rerun, block := "", ""
	for _, a := range sum.Actions {
		switch {
		case a.Unit != u.ID:
		case a.Offer.Op == reconcile.OpCheckpoint && a.Offer.Verify && rerun == "":
			rerun = a.Command
		case a.Offer.Op == reconcile.OpBlock:
			block = a.Command
		}
	}
	c := s.Units[u.ID].Checks[broke[0]]
	how := "an error"
	if c.ExitCode != nil {
		how = fmt.Sprintf("exit %d", *c.ExitCode)
	}
	text := fmt.Sprintf("check %s of %s broke (%s): an error of the check, not of the work, so %s stays %s; fix the check", strings.Join(broke, ", "), u.ID, how, u.ID, u.Status)
	if rerun != "" {
		text += fmt.Sprintf(" and run it again (`%s`)", rerun)
	}
	if block != "" {
		text += fmt.Sprintf(", or set %s aside as a tool error (`%s`)", u.ID, block)
	}
	return text
}

// moveTextMore words the moves moveText leaves.
func moveTextMore(slug string, s *state.State, adv reconcile.Advice, sum *Summary, u UnitStatus, current bool) string {
	switch adv.Move {
	case reconcile.MoveContinue:
		return continueText(u, sum)
	case reconcile.MoveConfirm:
		return fmt.Sprintf("run the N+1 confirmation of %s: re-check the work; checkpoint with --signal if it holds, without if it needs more work", u.ID)
	case reconcile.MoveVerify:
		return fmt.Sprintf("verify %s (quality and code review): checkpoint with --verified --verify to run its check (or --verified-by WHO for a check made elsewhere); without them it goes back to in_progress", u.ID)
	case reconcile.MoveRaiseLimit:
		if current {
			return fmt.Sprintf("%s used all %d iterations: raise its Max iterations in %s and run `itr plan`, or simplify it", u.ID, u.Max, reconcile.PlanName(s.Mode))
		}
		return fmt.Sprintf("%s used all %d iterations: raise its Max iterations and run `itr plan`", u.ID, u.Max)
	case reconcile.MoveUnblock:
		if current {
			return fmt.Sprintf("%s is blocked (%s): resolve it and run `itr unblock %s`", u.ID, quote(blockWords(u), 200), u.ID)
		}
		if len(adv.Held) > 0 {
			return fmt.Sprintf("nothing is open to you (the other units are held by other agents or wait): resolve the block of %s (%s) and run `itr unblock %s`", u.ID, quote(blockWords(u), 200), u.ID)
		}
		return fmt.Sprintf("every remaining unit waits: resolve the block of %s (%s) and run `itr unblock %s`", u.ID, quote(blockWords(u), 200), u.ID)
	case reconcile.MoveResolve:
		if by := live(s, u.ReplacedBy); len(by) > 0 {
			return fmt.Sprintf("%s failed (%s); %s", u.ID, quote(kindReason(u.ReasonKind, u.Reason), 200), replacedText(by))
		}
		rest := "every remaining unit waits on it"
		if len(adv.Held) > 0 {
			rest = "nothing is open to you (the other units are held by other agents or wait on it)"
		}
		return fmt.Sprintf("%s failed (%s) and %s: a person must look at it; then %s", u.ID, quote(kindReason(u.ReasonKind, u.Reason), 200), rest,
			reconcile.FailedFix(u.ID, s.Mode, func(f string) string { return "--" + f }))
	case reconcile.MoveWritePlan:
		return fmt.Sprintf("write the plan in %s (units with criteria and limits) and run `itr plan`", reconcile.PlanName(s.Mode))
	case reconcile.MoveRestore:
		return fmt.Sprintf("the task is archived; to work on it again, run `itr restore %s`", slug)
	case reconcile.MoveVerifyTask:
		what := "every unit is done"
		if adv.Done < adv.Total {
			what = "every unit is done, skipped or replaced"
		}
		return what + ": move the task to verify with `itr phase verify` and review the work as a whole there, then `itr archive`"
	case reconcile.MoveArchive:
		if s.Phase == state.Complete {
			return "the task's archive was recorded but stopped before it took the folder out of the working tree: run `itr archive` again to finish it"
		}
		if adv.Done < adv.Total {
			return "every unit is done, skipped or replaced: review the work, then `itr archive`"
		}
		return "every unit is done: review the work, then `itr archive`"
	case reconcile.MoveStart:
		return fmt.Sprintf("start %s with `itr checkpoint %s --did ...` after its first iteration", u.ID, u.ID)
	}
	return "no unit is ready: see `itr next`"
}
