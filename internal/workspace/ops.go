package workspace

import (
	"errors"
	"fmt"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/clip"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/runs"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/internal/workspace/view"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// PlanReport says what itr plan changed.
type PlanReport struct {
	Outcome *Outcome
	Added   []string
	Removed []string
	Changed []string // "T2 max_iterations 5 → 8"
	Dropped []string // started units dropped on purpose (--drop)
	// Warnings name what the plan holds that will not work as written:
	// a Verify line that needs a shell.
	Warnings []string
}

// PlanRequest applies the plan file. Drop names started units the file no
// longer has that are to be dropped on purpose, with Reason.
type PlanRequest struct {
	Slug   string
	Drop   []string
	Reason string
}

// Plan applies tasks.md or plan.md to the task: new units become pending,
// changed limits apply, removed units are reported and dropped, and the
// phase moves to plan. A unit that was started (it has iterations, or is
// blocked or done) is never removed silently: the plan is refused, naming
// it, unless it is in Drop, which records the drop and its reason in the
// Planned entry so that every later fold and verify understands it. A
// plan that changes nothing records nothing.
func (w *Workspace) Plan(req PlanRequest) (*PlanReport, error) {
	if len(req.Drop) > 0 && strings.TrimSpace(req.Reason) == "" {
		return nil, record.Required("reason", "say why the units are dropped")
	}
	if err := record.PlainText(w.Config.FieldLimit(), "reason", req.Reason); err != nil {
		return nil, err
	}
	rep := &PlanReport{}
	out, err := record.Record(w.Store, req.Slug, func(t *store.Task) (*record.Change, error) {
		if t.Plan == nil {
			if t.PlanName == "" {
				return nil, fmt.Errorf("no plan: write %s in %s first", store.PlanNameFor(t.State.Mode), t.Dir)
			}
			return nil, fmt.Errorf("%s still holds the template's placeholder units; write your units (- [ ] **T1**: title) first", w.Rel(t.Slug, t.PlanName))
		}
		rep.Added, rep.Removed, rep.Changed = reconcile.PlanChanges(t.State, t.Plan)
		rep.Warnings = checkWarnings(t.Plan)
		drop := map[string]bool{}
		for _, id := range req.Drop {
			if t.Plan.Unit(id) != nil {
				return nil, fmt.Errorf("%s still has unit %s: remove it from the file first, then run `itr plan --drop %s --reason ...`", t.Plan.File, id, id)
			}
			if t.State.Units[id] == nil {
				return nil, fmt.Errorf("--drop %s: the task has no unit %s (units: %s)", id, id, strings.Join(t.State.IDs(), ", "))
			}
			drop[id] = true
		}
		var started, dropped []string
		for _, id := range rep.Removed {
			u := t.State.Units[id]
			if u.Status == state.Pending && state.Val(u.IterationsUsed) == 0 {
				continue
			}
			if drop[id] {
				dropped = append(dropped, id)
				continue
			}
			started = append(started, fmt.Sprintf("%s (%s, %d iteration%s)", id, u.Status, state.Val(u.IterationsUsed), store.Plural(state.Val(u.IterationsUsed), "", "s")))
		}
		if len(started) > 0 {
			return nil, fmt.Errorf("%s no longer has %s, which %s started; put %s back, or drop %s on purpose: itr plan --drop %s --reason \"...\"",
				t.Plan.File, strings.Join(started, ", "), store.Plural(len(started), "was", "were"),
				store.Plural(len(started), "it", "them"), store.Plural(len(started), "it", "them"), strings.Join(idsOf(started), " --drop "))
		}
		if len(rep.Added)+len(rep.Removed)+len(rep.Changed) == 0 && t.State.Phase.Rank() >= state.Plan.Rank() {
			return nil, errUnchanged
		}
		e := &progresslog.Entry{Kind: progresslog.KindPlanned, Stamp: w.Stamp()}
		for _, f := range []struct {
			name string
			list []string
		}{{"Added", rep.Added}, {"Changed", rep.Changed}, {"Removed", rep.Removed}, {"Dropped", dropped}} {
			if len(f.list) > 0 {
				e.Fields = append(e.Fields, progresslog.Field{Name: f.name, Value: strings.Join(f.list, ", ")})
			}
		}
		if len(dropped) > 0 {
			e.Fields = append(e.Fields, progresslog.Field{Name: "Reason", Value: req.Reason})
		}
		if len(e.Fields) == 0 {
			e.Fields = append(e.Fields, progresslog.Field{Name: "Units", Value: strings.Join(t.Plan.IDs(), ", ")})
		}
		rep.Dropped = dropped
		return &record.Change{Entry: e, Event: store.EventPlanned, Subject: fmt.Sprintf("plan %d units", len(t.Plan.Units))}, nil
	})
	if errors.Is(err, errUnchanged) {
		return rep, nil
	}
	rep.Outcome = out
	return rep, err
}

// idsOf takes the unit IDs from "T2 (in_progress, 3 iterations)" texts.
func idsOf(texts []string) []string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i], _, _ = strings.Cut(t, " ")
	}
	return out
}

var errUnchanged = errors.New("unchanged")

// checkWarnings names the units whose Verify line checkpoint --verify
// would refuse (it needs a shell, or is not a command line).
func checkWarnings(p *plan.Plan) []string {
	var out []string
	for _, u := range p.Units {
		line := u.Check()
		if line == "" {
			continue
		}
		if _, err := runs.SplitCommand(line); err != nil {
			out = append(out, fmt.Sprintf("%s: its Verify line %q will not run: %v", u.ID, line, err))
		}
	}
	return out
}

// CheckpointRequest records one iteration.
type CheckpointRequest struct {
	Slug      string
	Unit      string // "" is the current unit, else the next ready one
	Did       string
	Remaining string
	Blockers  string
	Signal    bool     // the work is declared done (in_progress) or confirmed (confirming)
	Verified  bool     // verification passed (verifying)
	Commits   []string // revisions of work commits to name; none: found from git
	// VerifiedBy names the person or external check that verified the
	// unit (it implies Verified).
	VerifiedBy string
	// Check runs a verification first; a run that does not pass takes
	// back Signal and Verified.
	Check CheckRequest
	// Progress is the unit's own progress in percent (nil: not given),
	// with ProgressDetail saying what it means.
	Progress       *int
	ProgressDetail string
	// Items are the items of the unit's ledger this iteration records, as
	// given: "ID", "ID=STATE", "N-M=STATE", or several separated by commas
	// (STATE is done, skipped, failed or a state the plan declares; done
	// when left out).
	Items []string
	// Values are values of items recorded with the iteration, as given:
	// "ID:NAME=TEXT", or "NAME=TEXT" for the one item Items moves (an
	// empty TEXT takes the value away).
	Values []string
	// Metrics are the unit's metrics recorded with the iteration, as
	// given: "NAME=NUMBER" (or several separated by commas).
	Metrics []string
}

// itemMarks reads the items a request records. A bad item is a
// FieldError naming it; nothing is recorded.
func itemMarks(items []string) ([]state.ItemMark, error) {
	var out []state.ItemMark
	for _, v := range items {
		marks, err := progresslog.ParseItems(v)
		if err != nil {
			return nil, &FieldError{Field: "item", Problem: clip.Quote(v) + " does not read", Fix: err.Error()}
		}
		out = append(out, marks...)
	}
	return out, nil
}

// itemValues reads the values a request records, each naming its item:
// "NAME=TEXT" belongs to the one item marks move, and is refused when
// they move none, or more than one. A bad value is a FieldError naming
// it; nothing is recorded.
func itemValues(values []string, marks []state.ItemMark) ([]state.ItemValue, error) {
	var out []state.ItemValue
	for _, v := range values {
		iv, err := progresslog.ParseValueArg(v)
		if err != nil {
			return nil, &FieldError{Field: "value", Problem: clip.Quote(v) + " does not read", Fix: err.Error()}
		}
		if iv.Item == "" {
			if len(marks) != 1 || marks[0].Range.Len() != 1 {
				moved := "no item"
				if len(marks) > 0 {
					moved = "items " + progresslog.FormatItems(marks)
				}
				return nil, &FieldError{Field: "value", Problem: fmt.Sprintf("%s names no item, and this checkpoint moves %s", clip.Quote(v), moved),
					Fix: fmt.Sprintf("name the item the value belongs to, as ID:%s=TEXT (such as 7:%s=...)", iv.Name, iv.Name)}
			}
			iv.Item = marks[0].Range.String()
		}
		out = append(out, iv)
	}
	return out, nil
}

// undeclaredState words the rule book's refusal of an item state when the
// plan declares no states (done, skipped and failed are all there are) as
// the FieldError of an item that does not read, word for word as before
// plans could declare states; any other error is returned as it is.
func undeclaredState(err error) error {
	var r *reconcile.Refusal
	if !errors.As(err, &r) || r.Code != reconcile.UnknownItemState || r.Items == nil || r.Items.Where != "" {
		return err
	}
	tok := r.Item + "=" + r.Items.State
	return &FieldError{Field: "item", Problem: clip.Quote(tok) + " does not read",
		Fix: fmt.Sprintf("item %s: %s is not an item state; write ID=done, ID=skipped or ID=failed (done when left out)", clip.Quote(tok), clip.Quote(r.Items.State))}
}

// itemMetrics reads the metrics a request records. A bad metric is a
// FieldError naming it; nothing is recorded.
func itemMetrics(metrics []string) ([]state.Metric, error) {
	var out []state.Metric
	for _, v := range metrics {
		ms, err := progresslog.ParseMetrics(v)
		if err != nil {
			return nil, &FieldError{Field: "metric", Problem: clip.Quote(v) + " does not read", Fix: err.Error()}
		}
		out = append(out, ms...)
	}
	return out, nil
}

// itemIntent reads a request's items, values and metrics into in.
func itemIntent(in *reconcile.Intent, items, values, metrics []string) error {
	marks, err := itemMarks(items)
	if err != nil {
		return err
	}
	vs, err := itemValues(values, marks)
	if err != nil {
		return err
	}
	ms, err := itemMetrics(metrics)
	if err != nil {
		return err
	}
	in.Items, in.Values, in.Metrics = marks, vs, ms
	return nil
}

// Checkpoint appends one iteration entry, folds it into state.json and
// commits both as one commit.
func (w *Workspace) Checkpoint(req CheckpointRequest) (*Outcome, error) {
	if strings.TrimSpace(req.Did) == "" {
		return nil, record.Required("did", "say what this iteration did")
	}
	if err := record.PlainText(w.Config.FieldLimit(), "did", req.Did, "remaining", req.Remaining, "blockers", req.Blockers, "unit", req.Unit, "verified-by", req.VerifiedBy, "detail", req.ProgressDetail); err != nil {
		return nil, err
	}
	if p := req.Progress; p != nil && (*p < 0 || *p > 100) {
		return nil, &FieldError{Field: "progress", Problem: fmt.Sprintf("is %d", *p), Fix: "give the unit's own progress as a whole percent from 0 to 100"}
	}
	in := reconcile.Intent{Action: reconcile.Work, Unit: req.Unit, Signal: req.Signal,
		Verified: req.Verified || req.VerifiedBy != "", VerifiedBy: strings.TrimSpace(req.VerifiedBy)}
	if err := itemIntent(&in, req.Items, req.Values, req.Metrics); err != nil {
		return nil, err
	}
	return w.checked(req.Slug, in, req.Check, func(in reconcile.Intent, ran *ranCheck) (*Outcome, error) {
		return record.Record(w.Store, req.Slug, func(t *store.Task) (*record.Change, error) {
			return w.iteration(t, in, req, ran)
		})
	})
}

// checked runs the request's check, when it asks for one, and then the
// record with the run as evidence; the record is made whatever the run's
// outcome (a failing run is evidence too).
func (w *Workspace) checked(slug string, in reconcile.Intent, check CheckRequest, rec func(reconcile.Intent, *ranCheck) (*Outcome, error)) (*Outcome, error) {
	if !check.Verify {
		return rec(in, nil)
	}
	ran, err := w.runCheck(slug, in, check)
	if err != nil {
		return nil, err
	}
	defer ran.done()
	in.Unit, in.Run, in.Checks = ran.unit, ran.run, ran.checkRuns()
	return rec(in, ran)
}

// FinishRequest moves a unit one step along the closing path with the
// evidence as the iteration's Did: in_progress → confirming, confirming →
// verifying, verifying → done. Failed records a check that did not hold:
// the unit goes back to in_progress.
type FinishRequest struct {
	Slug     string
	Unit     string // "" is the unit the rule book names
	Evidence string
	Failed   bool
	// VerifiedBy names the person or external check that verified the
	// unit, the evidence the last step needs when no run is made.
	VerifiedBy string
	// Check runs a verification first (see CheckpointRequest.Check).
	Check CheckRequest
	// Items, Values and Metrics are recorded with the step (see
	// CheckpointRequest).
	Items, Values, Metrics []string
}

// Finish records one iteration that takes a unit a step toward done, as
// the rule book maps the unit's status and the verdict to a signal or a
// verification.
func (w *Workspace) Finish(req FinishRequest) (*Outcome, error) {
	if strings.TrimSpace(req.Evidence) == "" {
		return nil, record.Required("evidence", "say what shows the work is done (tests run, results, review)")
	}
	if err := record.PlainText(w.Config.FieldLimit(), "evidence", req.Evidence, "unit", req.Unit, "verified_by", req.VerifiedBy); err != nil {
		return nil, err
	}
	in := reconcile.Intent{Action: reconcile.Finish, Unit: req.Unit, Failed: req.Failed, VerifiedBy: strings.TrimSpace(req.VerifiedBy)}
	if err := itemIntent(&in, req.Items, req.Values, req.Metrics); err != nil {
		return nil, err
	}
	return w.checked(req.Slug, in, req.Check, func(in reconcile.Intent, ran *ranCheck) (*Outcome, error) {
		return record.Record(w.Store, req.Slug, func(t *store.Task) (*record.Change, error) {
			return w.iteration(t, in, CheckpointRequest{Slug: req.Slug, Did: req.Evidence, VerifiedBy: req.VerifiedBy}, ran)
		})
	})
}

// Start checks with the rule book that a unit can be worked on now (the
// one it names when id is "") and describes it. It records nothing.
func (w *Workspace) Start(slug, id string) (*UnitStatus, error) {
	slug, err := w.Select(slug)
	if err != nil {
		return nil, err
	}
	t, err := w.Load(slug)
	if err != nil {
		return nil, err
	}
	if t.StateErr != nil {
		return nil, t.StateErr
	}
	// What a record would refuse, starting refuses too: a git operation
	// under way, itr's files changed without a commit (unless the record
	// would reconcile first: entries a plain commit took out, a folder
	// written without itr).
	if err := record.NoOperation(w.Store); err != nil {
		return nil, err
	}
	undos, adopt, err := record.RepairsDue(w.Store, t)
	if err != nil {
		return nil, err
	}
	if len(undos) == 0 && !adopt {
		if err := w.CheckClean(t); err != nil {
			return nil, err
		}
	}
	held, err := w.heldFor(slug)
	if err != nil {
		return nil, err
	}
	ev, err := reconcile.Decide(t.State, t.Plan, reconcile.Intent{Action: reconcile.Start, Unit: id, Activity: activity(t), Held: held, Missing: w.MissingInputs(t)})
	if err != nil {
		return nil, err
	}
	us := view.UnitOf(w.Store, t, t.State, ev.Unit)
	return &us, nil
}

// iteration builds the entry of one iteration the rule book allows.
func (w *Workspace) iteration(t *store.Task, in reconcile.Intent, req CheckpointRequest, ran *ranCheck) (*record.Change, error) {
	in.Activity = activity(t)
	held, err := w.heldFor(t.Slug)
	if err != nil {
		return nil, err
	}
	in.Held = held
	in.Missing = w.MissingInputs(t)
	in.Counts = verify.Counts(w.Store, t)
	ev, err := reconcile.Decide(t.State, t.Plan, in)
	if err != nil {
		return nil, undeclaredState(err)
	}
	outputWarnings, err := w.checkOutputs(t, ev)
	if err != nil {
		return nil, err
	}
	renewal, err := w.renewClaim(t.Slug, ev.Unit)
	if err != nil {
		return nil, err
	}
	warnings, err := w.checkUncommitted(t, ev)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, outputWarnings...)
	if renewal != "" {
		warnings = append(warnings, renewal)
	}
	id, n := ev.Unit, ev.Iteration
	work, err := w.WorkCommitList(t, req.Commits)
	if err != nil {
		return nil, err
	}
	commits := make([]string, 0, len(work))
	for _, c := range work {
		commits = append(commits, c.Line)
	}
	touched, err := w.TouchedFiles(work)
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("the files the work commits changed are not listed: %v", err))
	}
	e := &progresslog.Entry{Kind: progresslog.KindIteration, Unit: id, Iteration: n, Stamp: w.Stamp()}
	add := func(name, value string) {
		e.Fields = append(e.Fields, progresslog.Field{Name: name, Value: value})
	}
	add("Did", req.Did)
	add("Remaining", store.OrNone(req.Remaining))
	add("Blockers", store.OrNone(req.Blockers))
	if req.Progress != nil {
		add(reconcile.FieldProgress, reconcile.FormatProgress(*req.Progress))
		if d := strings.TrimSpace(req.ProgressDetail); d != "" {
			add(reconcile.FieldProgressDetail, d)
		}
	}
	if len(ev.Items) > 0 {
		add(progresslog.FieldItems, progresslog.FormatItems(ev.Items))
	}
	e.Fields = append(e.Fields, reconcile.ItemFields(ev)...)
	if back := reconcile.MovedBack(t.State, t.Plan, ev); len(back) > 0 {
		add(progresslog.FieldMovedBack, strings.Join(back, "; "))
		warnings = append(warnings, fmt.Sprintf("%s: item%s moved back: %s (recorded in the entry)", id, store.Plural(len(back), "", "s"), strings.Join(back, "; ")))
	}
	if ev.Signal != "" {
		add("Signal", ev.Signal)
	}
	if ev.Verification != "" {
		add("Verification", ev.Verification)
	}
	pins, err := w.pinField(t, ev)
	if err != nil {
		return nil, err
	}
	c := &record.Change{Entry: e, Event: store.EventIteration, Subject: fmt.Sprintf("%s iteration %d: %s", id, n, req.Did), Warnings: warnings}
	if ev.VerifiedBy != "" {
		add(reconcile.FieldVerifiedBy, ev.VerifiedBy)
	}
	if ran != nil && len(ran.named) > 0 {
		fields, logs := w.namedFields(t.Slug, id, n, ran)
		e.Fields = append(e.Fields, fields...)
		c.Files = append(c.Files, logs...)
	} else if ran != nil {
		run := *ran.run
		var log *gitstate.FileChange
		run.Log, log = w.runLog(t.Slug, id, n, ran.output)
		if log != nil {
			c.Files = append(c.Files, *log)
		}
		e.Fields = append(e.Fields, reconcile.RunFields(run)...)
	}
	if f, forget := w.interruptedRun(t.Slug, id, ran); f != nil {
		e.Fields = append(e.Fields, *f)
		c.After = forget
	}
	add("Commit", store.OrNone(strings.Join(commits, "\n")))
	if len(touched) > 0 {
		add(progresslog.FieldFiles, progresslog.FormatFiles(touched, progresslog.MaxFiles))
	}
	if pins != nil {
		e.Fields = append(e.Fields, *pins)
	}
	return c, nil
}

// checkUncommitted looks, when an iteration declares work done (a signal or
// a passed verification), for work files outside the task folder that no
// commit holds: such a declaration rests on work the log cannot name (its
// Commit field says None, or names older commits). It returns a warning
// naming them, or, where .itr.yaml says uncommitted_work: refuse, an error
// that records nothing.
func (w *Workspace) checkUncommitted(t *store.Task, ev reconcile.Event) ([]string, error) {
	if !reconcile.Closing(ev) {
		return nil, nil
	}
	paths, err := w.Repo.Uncommitted(t.Dir)
	if err != nil {
		return []string{fmt.Sprintf("could not look for uncommitted work (%v)", err)}, nil
	}
	if len(paths) == 0 {
		return nil, nil
	}
	shown := strings.Join(store.FirstN(paths, 5), ", ")
	if len(paths) > 5 {
		shown += fmt.Sprintf(" and %d more", len(paths)-5)
	}
	what := "declared done"
	if ev.Verification == "passed" {
		what = "verified"
	}
	if w.Config.UncommittedWork == "refuse" {
		return nil, fmt.Errorf("%s is %s while %d work file%s no commit holds: %s; commit the work first (git add ... && git commit), then checkpoint again (.itr.yaml says uncommitted_work: refuse)",
			ev.Unit, what, len(paths), store.Plural(len(paths), "", "s"), shown)
	}
	return []string{fmt.Sprintf("%s is %s while %d work file%s no commit holds: %s; the entry cannot name that work (commit it, then name it with --commit on the next checkpoint; uncommitted_work: refuse in .itr.yaml makes this a refusal)",
		ev.Unit, what, len(paths), store.Plural(len(paths), "", "s"), shown)}, nil
}

// Block marks a unit blocked with a reason.
func (w *Workspace) Block(slug, id, reason string) (*Outcome, error) {
	if strings.TrimSpace(id) == "" {
		return nil, record.Required("unit", "name the unit to block")
	}
	if strings.TrimSpace(reason) == "" {
		return nil, record.Required("reason", "say what the unit waits for")
	}
	if err := record.PlainText(w.Config.FieldLimit(), "reason", reason, "unit", id); err != nil {
		return nil, err
	}
	return w.unitEvent(slug, id, progresslog.KindBlocked, store.EventBlocked, "block "+id+": "+reason,
		[]progresslog.Field{{Name: "Reason", Value: reason}})
}

// Unblock returns a blocked unit to pending (not started) or in_progress.
func (w *Workspace) Unblock(slug, id string) (*Outcome, error) {
	return w.unitEvent(slug, id, progresslog.KindUnblocked, store.EventUnblocked, "unblock "+id, nil)
}

func (w *Workspace) unitEvent(slug, id string, kind progresslog.Kind, event, subject string, fields []progresslog.Field) (*Outcome, error) {
	return record.Record(w.Store, slug, func(t *store.Task) (*record.Change, error) {
		in := reconcile.Intent{Action: reconcile.Unblock, Unit: id}
		if kind == progresslog.KindBlocked {
			in.Action = reconcile.Block
		}
		// The rule book decides before anything is written.
		if _, err := reconcile.Decide(t.State, t.Plan, in); err != nil {
			return nil, err
		}
		e := &progresslog.Entry{Kind: kind, Unit: id, Stamp: w.Stamp(), Fields: fields}
		return &record.Change{Entry: e, Event: event, Subject: subject}, nil
	})
}

// SetPhase moves the task to a phase.
func (w *Workspace) SetPhase(slug, phase string, force bool) (*Outcome, error) {
	p, err := state.ParsePhase(phase)
	if err != nil {
		return nil, err
	}
	if p == state.Complete {
		return nil, fmt.Errorf("phase complete is set by `itr archive`, which also checks that every unit is done")
	}
	return record.Record(w.Store, slug, func(t *store.Task) (*record.Change, error) {
		if t.State.Phase == p {
			return nil, fmt.Errorf("the task is already in phase %s", p)
		}
		if err := reconcile.CheckPhaseIn(t.State, t.Plan, p, force); err != nil {
			return nil, err
		}
		e := &progresslog.Entry{Kind: progresslog.KindPhase, Phase: string(p), Stamp: w.Stamp()}
		return &record.Change{Entry: e, Event: store.EventPhase, Subject: "phase " + string(p)}, nil
	})
}

// GuardrailRequest adds a lesson to guardrails.md.
type GuardrailRequest struct {
	Slug, Name, When, Problem, Solution, Learned string
}

// Guardrail appends a lesson to guardrails.md as one commit.
func (w *Workspace) Guardrail(req GuardrailRequest) (*Outcome, error) {
	for _, f := range []struct{ field, v, fix string }{
		{"name", req.Name, "name the lesson"},
		{"when", req.When, "say when it applies"},
		{"problem", req.Problem, "say what went wrong"},
		{"solution", req.Solution, "say what to do instead"},
	} {
		if strings.TrimSpace(f.v) == "" {
			return nil, record.Required(f.field, f.fix)
		}
	}
	if err := record.PlainText(w.Config.FieldLimit(), "name", req.Name, "when", req.When, "problem", req.Problem, "solution", req.Solution, "learned", req.Learned); err != nil {
		return nil, err
	}
	return record.Record(w.Store, req.Slug, func(t *store.Task) (*record.Change, error) {
		// Learned is written only when someone gave it: the unit under way
		// when a lesson is recorded is not where it was learned.
		learned := req.Learned
		g := &progresslog.Guardrail{Name: req.Name, When: req.When, Problem: req.Problem, Solution: req.Solution, Learned: learned}
		return &record.Change{Guardrail: g, Event: store.EventGuardrail, Subject: "guardrail: " + req.Name}, nil
	})
}

// activity gives the rule book the order of the units' last entries, read
// from the committed log only when it asks.
func activity(t *store.Task) func() reconcile.Activity {
	return func() reconcile.Activity { return reconcile.ActivityOf(t.Log().Entries) }
}
