package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/runs"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// namedRan is one named check of a request: its record for the entry, the
// run it made (nil when it was not run again) and its whole output.
type namedRan struct {
	check  reconcile.CheckRun
	run    *state.Run
	output []byte
}

// planChecks are the named checks the plan gives the unit (see
// plan.Unit.RunChecks), nil for none.
func planChecks(t *store.Task, unit string) []plan.NamedCheck {
	if t.Plan == nil {
		return nil
	}
	if u := t.Plan.Index()[unit]; u != nil {
		return u.RunChecks()
	}
	return nil
}

// runNamed runs the unit's named checks in plan order, each but those
// that passed on the same tree and inputs (unless req.Rerun): exit 0 is
// passed (when the number the output ends with meets the check's target),
// exit 1 or a missed target failed, anything else an error of the check.
// Every command is split first, so a line that does not read refuses
// before anything runs. An interrupted run stops the rest.
func (w *Workspace) runNamed(t *store.Task, unit string, checks []plan.NamedCheck, req CheckRequest) (*ranCheck, error) {
	argvs := make([][]string, len(checks))
	for i, c := range checks {
		argv, err := runs.SplitCommand(c.Command)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: check %s of %s (%q): %w; fix the line", w.planFile(t), c.Line, c.Name, unit, c.Command, err)
		}
		argvs[i] = argv
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = w.Config.Timeout()
	}
	tree := w.checkTree(t)
	var prev map[string]*state.CheckResult
	if u := t.State.Units[unit]; u != nil {
		prev = u.Checks
	}
	ran := &ranCheck{unit: unit, done: func() {}}
	if m, ok := w.RunMarker(t.Slug, unit); ok && !m.Alive() {
		ran.prev = &m
	}
	for i, c := range checks {
		cmd := runs.QuoteCommand(argvs[i])
		inputs := w.checkInputs(t, unit, argvs[i])
		if p := prev[c.Name]; !req.Rerun && samePass(p, cmd, c.Target(), tree, inputs) {
			ran.named = append(ran.named, namedRan{check: reconcile.CheckRun{Name: c.Name, Skipped: true,
				Result: state.CheckResult{Command: cmd, Outcome: state.CheckPassed, Commit: p.Commit, Iteration: p.Iteration}}})
			continue
		}
		n, err := w.runOne(t, unit, c, argvs[i], timeout, req)
		if err != nil {
			return nil, err
		}
		n.check.Result.Tree, n.check.Result.Inputs = tree, inputs
		ran.named = append(ran.named, n)
		if n.check.Why == "interrupted" {
			break
		}
	}
	ran.run = decidingRun(ran.named)
	return ran, nil
}

// samePass reports whether p is a pass of the same command and target on
// the same tree and inputs: the check need not run again.
func samePass(p *state.CheckResult, cmd, target, tree, inputs string) bool {
	return p != nil && p.Outcome == state.CheckPassed && tree != "" && p.Tree == tree && p.Inputs == inputs && p.Command == cmd && p.Target == target
}

// runOne runs one named check, its marker naming it while it runs.
func (w *Workspace) runOne(t *store.Task, unit string, c plan.NamedCheck, argv []string, timeout time.Duration, req CheckRequest) (namedRan, error) {
	started := w.Now()
	mark := store.RunMarker{Slug: t.Slug, Unit: unit, Command: runs.QuoteCommand(argv), Started: started.Format(time.RFC3339),
		Commit: store.Short(t.Head.Hash), PID: os.Getpid(), Host: store.Hostname()}
	done, err := w.MarkRun(mark)
	if err != nil {
		return namedRan{}, err
	}
	defer done()
	checking.Store(true)
	res := runs.Run(context.Background(), runs.Spec{Argv: argv, Dir: w.Repo.Root(), Timeout: timeout}, req.Tee)
	checking.Store(false)
	outcome, why, actual := classify(res, c)
	r := state.CheckResult{Command: mark.Command, Outcome: outcome, Target: c.Target(), Actual: actual,
		DurationMS: res.Duration.Milliseconds(), Started: mark.Started, Commit: mark.Commit}
	run := &state.Run{Command: mark.Command, Outcome: outcome, DurationMS: r.DurationMS, Started: mark.Started, Commit: mark.Commit, Tail: res.Tail}
	if res.ExitCode >= 0 && (res.Outcome == runs.Passed || res.Outcome == runs.Failed) {
		r.ExitCode, run.ExitCode = state.Ptr(res.ExitCode), state.Ptr(res.ExitCode)
	}
	if run.Tail == "" {
		run.Tail = res.Err
	}
	return namedRan{check: reconcile.CheckRun{Name: c.Name, Result: r, Why: why}, run: run, output: res.Output}, nil
}

// classify words how a named check ended: passed, failed (exit 1, or a
// target the output's number missed) or error (exit 2 and above, a
// signal, a timeout, an interruption, a command that did not start, a
// target with no number to compare); why says more of an error without
// an exit status, or of a missed target; actual is the output's number
// when the check has a target.
func classify(res runs.Result, c plan.NamedCheck) (outcome, why, actual string) {
	switch res.Outcome {
	case runs.TimedOut:
		return state.CheckError, "timeout", ""
	case runs.Interrupted:
		return state.CheckError, "interrupted", ""
	case runs.Error:
		return state.CheckError, "not started", ""
	}
	switch {
	case res.ExitCode < 0:
		return state.CheckError, "killed by signal " + orText(res.Signal, "unknown"), ""
	case res.ExitCode == 1:
		return state.CheckFailed, "", ""
	case res.ExitCode >= 2:
		return state.CheckError, "", ""
	}
	if c.Op == "" {
		return state.CheckPassed, "", ""
	}
	actual = LastNumber(res.Output)
	switch {
	case actual == "":
		return state.CheckError, "", ""
	case !c.Met(actual):
		return state.CheckFailed, "", actual
	}
	return state.CheckPassed, "", actual
}

func orText(s, word string) string {
	if s == "" {
		return word
	}
	return s
}

// LastNumber is the first number on the last line of out that holds one
// ("812 memo.md" of wc -w), in canonical form; "" when no line does.
func LastNumber(out []byte) string {
	lines := strings.Split(string(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		for _, f := range strings.Fields(lines[i]) {
			if n, err := state.ParseNumber(strings.Trim(f, ",;:()[]%")); err == nil {
				return n
			}
		}
	}
	return ""
}

// decidingRun is the run that decides the request, as its entry's Run
// fields say: the first check that failed, else the first that broke,
// else the last that ran; nil when none ran (each passed before on this
// tree).
func decidingRun(named []namedRan) *state.Run {
	var last *state.Run
	for _, want := range []string{state.CheckFailed, state.CheckError} {
		for _, n := range named {
			if n.run != nil && n.check.Result.Outcome == want {
				return n.run
			}
		}
	}
	for _, n := range named {
		if n.run != nil {
			last = n.run
		}
	}
	return last
}

// checkTree is the tree a check sees: HEAD's tree without the task folder
// (gitstate.Repository.TreeWithout), "" when the working tree holds
// uncommitted work outside the task folder (a check that ran on it is
// always run again) or the tree cannot be read.
func (w *Workspace) checkTree(t *store.Task) string {
	if t.Head.Hash == "" {
		return ""
	}
	if dirty, err := w.Repo.Uncommitted(t.Dir); err != nil || len(dirty) > 0 {
		return ""
	}
	id, err := w.Repo.TreeWithout(t.Head.Hash, t.Dir)
	if err != nil {
		return ""
	}
	return id
}

// checkInputs is a digest of what a check reads that the tree leaves out:
// the unit's outputs and inputs and the files its command names, as the
// working tree has them (the task folder's among them), 16 hex digits.
func (w *Workspace) checkInputs(t *store.Task, unit string, argv []string) string {
	var names []string
	if t.Plan != nil {
		if u := t.Plan.Index()[unit]; u != nil {
			names = append(names, u.OutputFiles()...)
		}
		for _, in := range t.Plan.InputFiles(unit) {
			names = append(names, in.Name)
		}
	}
	for _, a := range argv {
		if a != "" && !strings.HasPrefix(a, "-") {
			names = append(names, a)
		}
	}
	paths := map[string]bool{}
	for _, n := range names {
		if f := w.FileOf(t.Slug, n); !f.Missing && !f.Dir {
			paths[f.Path] = true
		}
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	h := sha256.New()
	for _, p := range sorted {
		data, err := w.ReadWorktree(p)
		if err != nil {
			fmt.Fprintf(h, "%s\x00unreadable\x00", p)
			continue
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// planFile is the plan file of a task from the repository top.
func (w *Workspace) planFile(t *store.Task) string {
	name := t.PlanName
	if name == "" {
		name = reconcile.PlanName(t.State.Mode)
	}
	return w.Rel(t.Slug, name)
}

// checkRuns are the records of the named checks a request ran.
func (r *ranCheck) checkRuns() []reconcile.CheckRun {
	if r == nil || len(r.named) == 0 {
		return nil
	}
	out := make([]reconcile.CheckRun, len(r.named))
	for i, n := range r.named {
		out[i] = n.check
	}
	return out
}

// namedFields adds the named checks of ran to the entry of iteration n of
// unit id: each check's output kept in runs/ID-N-NAME.log, the run that
// decided as the entry's Run fields, then a **Check NAME:** field each.
func (w *Workspace) namedFields(slug, id string, n int, ran *ranCheck) ([]progresslog.Field, []gitstate.FileChange) {
	var files []gitstate.FileChange
	checks := make([]reconcile.CheckRun, len(ran.named))
	var deciding *state.Run
	for i, x := range ran.named {
		checks[i] = x.check
		if x.run == nil {
			continue
		}
		checks[i].Result.Iteration = n
		if len(strings.TrimSpace(string(x.output))) > 0 {
			name := fmt.Sprintf("%s/%s-%d-%s.log", RunsFolder, id, n, x.check.Name)
			files = append(files, gitstate.FileChange{Path: w.Rel(slug, name), Data: x.output})
			checks[i].Result.Log = name
		}
		if x.run == ran.run {
			r := *x.run
			r.Log = checks[i].Result.Log
			deciding = &r
		}
	}
	var fields []progresslog.Field
	if deciding != nil {
		fields = append(fields, reconcile.RunFields(*deciding)...)
	}
	return append(fields, reconcile.CheckFields(checks)...), files
}
