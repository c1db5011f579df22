package workspace

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/runs"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// RunsFolder is the folder of a task that keeps the whole output of its
// verification runs, one file a run: runs/T1-3.log is the run of T1's
// third iteration. The entry names the file and quotes its last lines.
const RunsFolder = "runs"

// ranCheck is a verification run made for a request, before its record.
type ranCheck struct {
	unit   string     // the unit it checked
	run    *state.Run // Log and Iteration are set by the record
	output []byte     // the whole output, escapes removed, capped
	done   func()     // forgets the run's marker
	// prev is the unit's run that itr could not finish before, whose
	// marker this run's replaced: the record names it.
	prev *store.RunMarker
	// named are the unit's named checks (the plan's Check lines), when
	// it has them: run is then the one that decided, nil when none ran.
	named []namedRan
}

// CheckRequest asks for a verification run before a record.
type CheckRequest struct {
	// Verify runs a check: Argv, else the unit's Verify in the plan.
	Verify bool
	Argv   []string
	// Timeout stops the run; 0 is .itr.yaml's verify_timeout (default 10m).
	Timeout time.Duration
	// Tee gets the run's output as it is written (nil: nowhere).
	Tee io.Writer
	// Rerun runs every named check, also one that passed on the same
	// tree and inputs (which is otherwise not run again).
	Rerun bool
}

// runCheck runs the check of a request before it is recorded: the request
// is first decided as if the run will pass (so a refusal comes before a
// ten-minute run, not after), then the command runs in the work tree with
// no lock held, and the run is returned for the record. While it runs, a
// marker in the git directory names it, so that a run itr could not
// finish (itr was killed) is reported by the next command and recorded by
// the unit's next checkpoint.
func (w *Workspace) runCheck(slug string, in reconcile.Intent, req CheckRequest) (*ranCheck, error) {
	t, err := record.LoadReadable(w.Store, slug)
	if err != nil {
		return nil, err
	}
	pre := in
	pre.WillRun, pre.Activity = true, activity(t)
	pre.Counts = verify.Counts(w.Store, t)
	ev, err := reconcile.Decide(t.State, t.Plan, pre)
	if err != nil {
		return nil, undeclaredState(err)
	}
	if _, err := w.checkOutputs(t, ev); err != nil {
		return nil, err // its warnings are said when the iteration is recorded
	}
	if checks := planChecks(t, ev.Unit); len(req.Argv) == 0 && len(checks) > 0 {
		return w.runNamed(t, ev.Unit, checks, req)
	}
	argv, err := w.checkArgv(t, ev.Unit, req.Argv)
	if err != nil {
		return nil, err
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = w.Config.Timeout()
	}
	head := t.Head.Hash
	dirty, dirtyErr := w.Repo.Uncommitted(t.Dir)
	started := w.Now()
	mark := store.RunMarker{Slug: slug, Unit: ev.Unit, Command: runs.QuoteCommand(argv), Started: started.Format(time.RFC3339), Commit: store.Short(head), PID: os.Getpid(), Host: store.Hostname(), Argv: req.Argv}
	var prev *store.RunMarker
	if m, ok := w.RunMarker(slug, ev.Unit); ok && !m.Alive() {
		prev = &m
	}
	done, err := w.MarkRun(mark)
	if err != nil {
		return nil, err
	}
	checking.Store(true)
	res := runs.Run(context.Background(), runs.Spec{Argv: argv, Dir: w.Repo.Root(), Timeout: timeout}, req.Tee)
	checking.Store(false)
	r := &state.Run{
		Command:    mark.Command,
		Outcome:    string(res.Outcome),
		DurationMS: res.Duration.Milliseconds(),
		Started:    mark.Started,
		Commit:     mark.Commit,
		Tail:       res.Tail,
	}
	if dirtyErr == nil {
		r.Clean = state.Ptr(len(dirty) == 0)
	}
	if res.ExitCode >= 0 && (res.Outcome == runs.Passed || res.Outcome == runs.Failed) {
		r.ExitCode = state.Ptr(res.ExitCode)
	}
	if res.Outcome == runs.Error && r.Tail == "" {
		r.Tail = res.Err
	}
	return &ranCheck{unit: ev.Unit, run: r, output: res.Output, done: done, prev: prev}, nil
}

// checkArgv is the command of a check: the one given, else the unit's
// Verify in the plan, split as a shell splits words (no shell runs).
func (w *Workspace) checkArgv(t *store.Task, unit string, given []string) ([]string, error) {
	if len(given) > 0 {
		return given, nil
	}
	line := ""
	if t.Plan != nil {
		if u := t.Plan.Index()[unit]; u != nil {
			line = u.Check()
		}
	}
	planFile := t.PlanName
	if planFile == "" {
		planFile = reconcile.PlanName(t.State.Mode)
	}
	if line == "" {
		//nolint:revive,staticcheck // error-strings/ST1005: the message ends with a command to run (go test ./...), not punctuation
		return nil, fmt.Errorf("unit %s names no check to run: add a line \"Verify: `go test ./...`\" under it in %s, or give the command after --: itr checkpoint %s --verify -- go test ./...",
			unit, w.Rel(t.Slug, planFile), unit)
	}
	argv, err := runs.SplitCommand(line)
	if err != nil {
		return nil, fmt.Errorf("%s: the Verify of %s (%q): %w", w.Rel(t.Slug, planFile), unit, line, err)
	}
	return argv, nil
}

// interruptedRun returns the run itr could not finish for a unit, as the
// field its next entry records, and the func that forgets the marker once
// that entry is committed.
func (w *Workspace) interruptedRun(slug, unit string, ran *ranCheck) (*progresslog.Field, func()) {
	m, ok := w.RunMarker(slug, unit)
	forget := func() { w.ForgetRun(slug, unit) }
	if ran != nil {
		// The unit's marker is this run's own; an older one it replaced
		// is recorded, and this run's done forgets the file.
		m, ok, forget = state.Val(ran.prev), ran.prev != nil, func() {}
	}
	if !ok || m.Alive() {
		return nil, nil
	}
	f := reconcile.InterruptedRunField(state.Run{Command: m.Command, Outcome: state.RunInterrupted, Started: m.Started, Commit: m.Commit})
	return &f, forget
}

// runLog is the change that keeps a run's whole output in the task folder.
func (w *Workspace) runLog(slug, unit string, iteration int, output []byte) (string, *gitstate.FileChange) {
	if len(strings.TrimSpace(string(output))) == 0 {
		return "", nil
	}
	name := fmt.Sprintf("%s/%s-%d.log", RunsFolder, unit, iteration)
	return name, &gitstate.FileChange{Path: w.Rel(slug, name), Data: output}
}
