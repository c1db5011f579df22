package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/itr-dev/itr/internal/clip"
	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// The property descriptions below end up in tools/list; keep them short.
// task, in every input, is the task's slug (default: the active task), as
// the server's instructions say.

// ResumeInput is the input of the resume tool.
type ResumeInput struct {
	Task  string `json:"task,omitempty"`
	Unit  string `json:"unit,omitempty" jsonschema:"context for a subagent"`
	Ready bool   `json:"ready,omitempty" jsonschema:"the units startable now"`
}

// StartInput is the input of the start tool.
type StartInput struct {
	Task string `json:"task,omitempty"`
	Unit string `json:"unit,omitempty" jsonschema:"default: current, else next ready"`
}

// CheckpointInput is the input of the checkpoint tool.
type CheckpointInput struct {
	Task      string   `json:"task,omitempty"`
	Unit      string   `json:"unit,omitempty" jsonschema:"default: current, else next ready"`
	Did       string   `json:"did" jsonschema:"what this iteration did"`
	Remaining string   `json:"remaining,omitempty" jsonschema:"what is left"`
	Blockers  string   `json:"blockers,omitempty" jsonschema:"what blocks it"`
	Done      bool     `json:"done,omitempty" jsonschema:"work done, or confirmation holds"`
	Commits   []string `json:"commits,omitempty" jsonschema:"default: since the last"`
	Items     string   `json:"items,omitempty"`
	Values    []string `json:"values,omitempty"`
	Metrics   []string `json:"metrics,omitempty"`
}

// FinishInput is the input of the finish tool.
type FinishInput struct {
	Task       string    `json:"task,omitempty"`
	Unit       string    `json:"unit,omitempty" jsonschema:"default: the current unit"`
	Evidence   string    `json:"evidence" jsonschema:"what shows it is done"`
	Passed     *bool     `json:"passed,omitempty" jsonschema:"false: the check failed"`
	Verify     *[]string `json:"verify,omitempty" jsonschema:"argv to run, no shell ([]: its Verify)"`
	VerifiedBy string    `json:"verified_by,omitempty" jsonschema:"who verified it"`
	Items      string    `json:"items,omitempty"`
}

// BlockInput is the input of the block tool, which also fails a unit
// (as: "failed", itr fail) or skips it (as: "skipped", itr skip): one tool
// for the three ways a unit is set aside keeps the definitions every
// session pays for small.
type BlockInput struct {
	Task      string `json:"task,omitempty"`
	Unit      string `json:"unit" jsonschema:"unit id"`
	Reason    string `json:"reason" jsonschema:"why"`
	As        string `json:"as,omitempty" jsonschema:"blocked (default), failed or skipped"`
	Kind      string `json:"kind,omitempty" jsonschema:"needs-human, tool-error, missing-input; blocked: external, decision"`
	ClearWhen string `json:"clear_when,omitempty" jsonschema:"when it is over"`
}

// ReopenInput is the input of the reopen tool, which also starts a unit
// under way or failed over from nothing (restart: itr restart).
type ReopenInput struct {
	Task    string `json:"task,omitempty"`
	Unit    string `json:"unit" jsonschema:"unit id"`
	Reason  string `json:"reason" jsonschema:"what was found wrong"`
	Restart bool   `json:"restart,omitempty" jsonschema:"start over from nothing"`
}

// DecideInput is the input of the decide tool.
type DecideInput struct {
	Task   string `json:"task,omitempty"`
	Title  string `json:"title" jsonschema:"the question it settles"`
	Choice string `json:"choice"`
	Why    string `json:"why"`
	Unit   string `json:"unit,omitempty"`
}

// SummarizeInput is the input of the summarize tool, which also concludes
// the task (outcome: itr deliver, itr abandon, itr abandon --failed), did
// then being what a delivery lacks or why the task stops.
type SummarizeInput struct {
	Task    string `json:"task,omitempty"`
	Did     string `json:"did" jsonschema:"what the work so far came to"`
	Outcome string `json:"outcome,omitempty"`
	Kind    string `json:"kind,omitempty"`
}

// Recorded is the output of decide and summarize: the commit, and what
// it recorded in a few words.
type Recorded struct {
	Commit string `json:"commit"`
	Text   string `json:"text"`
}

// UnitInfo is the output of the start tool: the unit to work on.
type UnitInfo struct {
	Task          string   `json:"task"`
	Unit          string   `json:"unit"`
	Title         string   `json:"title,omitempty"`
	Status        string   `json:"status"`
	Iterations    int      `json:"iterations"`
	MaxIterations int      `json:"max_iterations,omitempty"`
	Depends       []string `json:"depends,omitempty"`
	Guardrails    []string `json:"guardrails,omitempty"`
	// Handoff is what the unit receives from the units before it: the
	// files it reads and what they wrote, did and left.
	Handoff []string `json:"handoff,omitempty"`
	Next    string   `json:"next"`
	// ClaimedUntil is when the claim start took for this agent ends
	// (each checkpoint renews it); ClaimError says why none was taken.
	ClaimedUntil string `json:"claimed_until,omitempty"`
	ClaimError   string `json:"claim_error,omitempty"`
}

// Step is the output of checkpoint, finish and block: the event recorded
// and what the next call must be.
type Step struct {
	Task      string `json:"task"`
	Unit      string `json:"unit"`
	Iteration int    `json:"iteration,omitempty"`
	From      string `json:"from"`
	Status    string `json:"status"`
	Commit    string `json:"commit"`
	Next      string `json:"next"`
	// Check is the verification run the iteration records, in words,
	// with its last lines when it did not pass.
	Check string `json:"check,omitempty"`
}

// Unit statuses as the tools compare them; package state owns the names.
const (
	pending    = string(state.Pending)
	inProgress = string(state.InProgress)
	confirming = string(state.Confirming)
	verifying  = string(state.Verifying)
	done       = string(state.Done)
	blocked    = string(state.Blocked)
	timeout    = string(state.Timeout)
	failed     = string(state.Failed)
	skipped    = string(state.Skipped)
)

// noTask is what resume says where there is no itr state.
const noTask = "There is no itr task here (no git repository, or no task under the task root). Nothing to resume; a person starts one with `itr init NAME`."

// mcpNote follows the resume text of an active task, whose commands are
// the CLI's.
const mcpNote = "\nThrough MCP: `itr checkpoint` is the checkpoint tool (done=true for --signal, items for --item); finish takes a unit through confirming and verifying to done; block, fail and skip are the block tool (as: failed, skipped); reopen is the reopen tool; decide and summarize are the decide and summarize tools.\n"

type handlers struct{ open Opener }

// with opens the workspace, runs fn and closes it. A refusal of the rule
// book is worded in the tools' terms.
func (h *handlers) with(fn func(ws *workspace.Workspace) error) error {
	ws, err := h.open()
	if err != nil {
		return err
	}
	defer ws.Close()
	return Worded(fn(ws))
}

// record runs one writing tool: it selects the task, runs fn (a workspace
// operation that commits) and describes the outcome as a Step.
func (h *handlers) record(task string, fn func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error)) (*mcp.CallToolResult, *Step, error) {
	return writing(h, task, fn, step)
}

// writing runs a writing tool: it selects the task, runs fn (a workspace
// operation that commits) and describes the outcome with describe.
func writing[T any](h *handlers, task string, fn func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error), describe func(*workspace.Workspace, *workspace.Outcome) *T) (*mcp.CallToolResult, *T, error) {
	var r *T
	err := h.with(func(ws *workspace.Workspace) error {
		slug, err := ws.Select(task)
		if err != nil {
			return err
		}
		out, err := fn(ws, slug)
		if err != nil {
			return err
		}
		r = describe(ws, out)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, r, nil
}

// resume is workspace.Prime: the Markdown as text, the rest as data. No
// itr state is a plain answer, not an error.
func (h *handlers) resume(_ context.Context, _ *mcp.CallToolRequest, in ResumeInput) (*mcp.CallToolResult, *ResumeOutput, error) {
	if in.Ready {
		return h.ready(in)
	}
	if in.Unit != "" {
		var b *workspace.UnitBrief
		err := h.with(func(ws *workspace.Workspace) error {
			var err error
			b, err = ws.Brief(in.Task, in.Unit)
			return err
		})
		if err != nil {
			return nil, nil, err
		}
		return textResult(b.Markdown), &ResumeOutput{Task: b.Slug, Unit: b.Unit, Status: b.Status, Markdown: b.Markdown}, nil
	}
	var p *workspace.PrimeContext
	err := h.with(func(ws *workspace.Workspace) error {
		var err error
		p, err = ws.Prime(in.Task)
		return err
	})
	if err != nil && workspace.IsNoState(err) && in.Task == "" {
		p, err = &workspace.PrimeContext{Markdown: noTask}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	text := p.Markdown
	if p.Slug != "" && p.Archive == "" {
		text += mcpNote
		if calls := callsOf(p.Actions); len(calls) > 0 {
			words := make([]string, len(calls))
			for i, c := range calls {
				words[i] = c.String()
			}
			text += "Accepted now, as calls: " + strings.Join(words, "; ") + ".\n"
		}
	}
	return textResult(text), resumeOutput(p), nil
}

// ResumeOutput is resume's structured output: the facts an agent acts on.
// The Markdown (also the text content) holds the rest, so the schema every
// session pays for stays small; `itr prime --json` has every field.
type ResumeOutput struct {
	Task       string   `json:"task,omitempty"`
	Phase      string   `json:"phase,omitempty"`
	Unit       string   `json:"unit,omitempty"`
	Status     string   `json:"status,omitempty"`
	NextAction string   `json:"next_action,omitempty"`
	Next       string   `json:"next,omitempty"`
	Blocked    []string `json:"blocked,omitempty"`
	Done       []string `json:"done,omitempty"`
	Tasks      []string `json:"tasks,omitempty"`
	Archive    string   `json:"archive,omitempty"`
	// Ready answers resume with ready: each unit that can be worked on now
	// with its brief (its context for a subagent, as resume with unit
	// gives it); the text says why the others cannot start.
	Ready    map[string]string `json:"ready,omitempty"`
	Markdown string            `json:"markdown"`
	// Calls are the moves the rule book accepts now, as tool calls, the
	// most urgent first; none while a hold (next_action says what clears
	// it) refuses every write.
	Calls []string `json:"calls,omitempty"`

	// Failed are the failed units that need a person; Skipped those left
	// out. Neither takes work.
	Failed  []string `json:"failed,omitempty"`
	Skipped []string `json:"skipped,omitempty"`
}

func resumeOutput(p *workspace.PrimeContext) *ResumeOutput {
	out := &ResumeOutput{Task: p.Slug, Phase: p.Phase, NextAction: p.NextAction, Next: p.Next,
		Done: p.DoNotRepeat, Archive: p.Archive, Markdown: p.Markdown}
	for _, c := range callsOf(p.Actions) {
		out.Calls = append(out.Calls, c.String())
	}
	// The unit to work on, by the rule book; else the current one.
	if c := p.Work; c != nil {
		out.Unit, out.Status = c.ID, c.Status
	} else if c := p.Current; c != nil {
		out.Unit, out.Status = c.ID, c.Status
	}
	for _, u := range p.Blocked {
		out.Blocked = append(out.Blocked, u.ID)
	}
	for _, u := range p.Failed {
		out.Failed = append(out.Failed, u.ID)
	}
	for _, u := range p.Skipped {
		out.Skipped = append(out.Skipped, u.ID)
	}
	for _, t := range p.Tasks {
		if t.State == "active" {
			out.Tasks = append(out.Tasks, t.Slug)
		}
	}
	return out
}

// ready is resume with ready, workspace.NextAll: the units an
// orchestrator can hand out now, each with its brief; the text lists them
// and says why the others cannot start.
func (h *handlers) ready(in ResumeInput) (*mcp.CallToolResult, *ResumeOutput, error) {
	var out *ResumeOutput
	err := h.with(func(ws *workspace.Workspace) error {
		slug, err := ws.Select(in.Task)
		if err != nil {
			return err
		}
		info, err := ws.NextAll(slug)
		if err != nil {
			return err
		}
		out = &ResumeOutput{Task: slug, Ready: map[string]string{}}
		var b strings.Builder
		for _, u := range info.Units {
			out.Ready[u.Unit] = u.Brief.Markdown
			fmt.Fprintf(&b, "%s (%s) %s\n", u.Unit, u.Status, u.Title)
		}
		if len(info.Units) == 0 {
			b.WriteString("No unit can be worked on now.\n")
		}
		for _, r := range info.Reasons {
			fmt.Fprintf(&b, "Not now: %s\n", r)
		}
		out.Markdown = b.String()
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return textResult(out.Markdown), out, nil
}

// start asks the rule book whether a unit can be worked on now (skipping
// units other agents hold), claims it for this agent and describes it; it
// records nothing in the log.
func (h *handlers) start(_ context.Context, _ *mcp.CallToolRequest, in StartInput) (*mcp.CallToolResult, *UnitInfo, error) {
	var info *UnitInfo
	err := h.with(func(ws *workspace.Workspace) error {
		slug, err := ws.Select(in.Task)
		if err != nil {
			return err
		}
		u, claim, claimErr, err := ws.StartClaimed(slug, in.Unit)
		if err != nil {
			return err
		}
		b, err := ws.Brief(slug, u.ID) // the guardrails' names and the handoff, from one read
		if err != nil {
			return err
		}
		info = &UnitInfo{Task: slug, Unit: u.ID, Title: u.Title, Status: u.Status, Iterations: u.Iterations,
			MaxIterations: u.Max, Depends: u.Depends, Guardrails: b.Guardrails, Handoff: b.Handoff.Lines(200), Next: nextCall(u.Status, u.ID)}
		if claim != nil {
			info.ClaimedUntil = claim.Claim.Until
		}
		if claimErr != nil {
			info.ClaimError = claimErr.Error()
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, info, nil
}

// checkpoint is workspace.Checkpoint.
func (h *handlers) checkpoint(_ context.Context, _ *mcp.CallToolRequest, in CheckpointInput) (*mcp.CallToolResult, *Step, error) {
	return h.record(in.Task, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
		return ws.Checkpoint(workspace.CheckpointRequest{Slug: slug, Unit: in.Unit, Did: in.Did,
			Remaining: in.Remaining, Blockers: in.Blockers, Signal: in.Done, Commits: in.Commits, Items: itemsOf(in.Items),
			Values: in.Values, Metrics: in.Metrics})
	})
}

// finish is workspace.Finish: one step along the closing path with the
// evidence as the iteration's Did; the rule book maps the unit's status and
// passed to a signal or a verification.
func (h *handlers) finish(_ context.Context, _ *mcp.CallToolRequest, in FinishInput) (*mcp.CallToolResult, *Step, error) {
	failed := in.Passed != nil && !*in.Passed
	return h.record(in.Task, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
		return ws.Finish(workspace.FinishRequest{Slug: slug, Unit: in.Unit, Evidence: in.Evidence, Failed: failed,
			VerifiedBy: in.VerifiedBy, Check: check(in.Verify), Items: itemsOf(in.Items)})
	})
}

// itemsOf is the items parameter ("1-12, 13=skipped") as the requests
// take it: none when empty.
func itemsOf(items string) []string {
	if strings.TrimSpace(items) == "" {
		return nil
	}
	return []string{items}
}

// check is the run a verify parameter asks for: none when absent, the
// unit's Verify line when empty, else the argv given. No output is shown
// as it runs: stdout carries the protocol.
func check(verify *[]string) workspace.CheckRequest {
	if verify == nil {
		return workspace.CheckRequest{}
	}
	return workspace.CheckRequest{Verify: true, Argv: *verify}
}

// block is workspace.BlockTyped.
func (h *handlers) block(_ context.Context, _ *mcp.CallToolRequest, in BlockInput) (*mcp.CallToolResult, *Step, error) {
	switch in.As {
	case "", blocked:
		return h.record(in.Task, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
			return ws.BlockTyped(slug, in.Unit, in.Reason, in.Kind, in.ClearWhen)
		})
	case failed, skipped:
		if in.ClearWhen != "" {
			return nil, nil, fmt.Errorf("clear_when is for a block (as: blocked); a %s unit stays so until it is reopened: leave clear_when out", in.As)
		}
		if in.As == skipped {
			if in.Kind != "" {
				return nil, nil, fmt.Errorf("kind is for a block or a failure; a skipped unit has none: leave kind out")
			}
			return h.record(in.Task, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				return ws.Skip(slug, in.Unit, in.Reason)
			})
		}
		return h.record(in.Task, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
			return ws.Fail(slug, in.Unit, in.Reason, in.Kind)
		})
	}
	return nil, nil, fmt.Errorf("as %s is not known: give blocked (the default), failed or skipped", clip.Quote(in.As))
}

// Reopened is the output of the reopen tool: the unit, now in_progress
// (timeout when it had used all its iterations), the commit, and the next
// call, which names the started units that depend on it.
type Reopened struct {
	Unit   string `json:"unit"`
	Status string `json:"status"`
	Commit string `json:"commit"`
	Next   string `json:"next"`
}

// reopen is workspace.Reopen: the started units that depend on the unit
// are named in next, never changed.
func (h *handlers) reopen(_ context.Context, _ *mcp.CallToolRequest, in ReopenInput) (*mcp.CallToolResult, *Reopened, error) {
	var out *Reopened
	err := h.with(func(ws *workspace.Workspace) error {
		slug, err := ws.Select(in.Task)
		if err != nil {
			return err
		}
		if in.Restart {
			rep, err := ws.Restart(workspace.RestartRequest{Slug: slug, Unit: in.Unit, Reason: in.Reason})
			if err != nil {
				return err
			}
			st := step(ws, rep.Outcome)
			out = &Reopened{Unit: st.Unit, Status: st.Status, Commit: st.Commit, Next: st.Next}
			return nil
		}
		rep, err := ws.Reopen(slug, in.Unit, in.Reason)
		if err != nil {
			return err
		}
		st := step(ws, rep.Outcome)
		out = &Reopened{Unit: st.Unit, Status: st.Status, Commit: st.Commit, Next: st.Next}
		if len(rep.Dependants) > 0 {
			out.Next += fmt.Sprintf("; started units that depend on %s, left as they are: %s; check that their work still holds", st.Unit, reconcile.JoinDeps(rep.Dependants))
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, out, nil
}

// step describes a recorded event and the call that must come next.
func step(ws *workspace.Workspace, out *workspace.Outcome) *Step {
	st := &Step{Task: out.Slug, Commit: out.Commit}
	if e := out.Entry; e != nil {
		st.Unit, st.Iteration = e.Unit, e.Iteration
	}
	if out.Before != nil && out.Before.Units[st.Unit] != nil {
		st.From = string(out.Before.Units[st.Unit].Status)
	}
	if out.After != nil && out.After.Units[st.Unit] != nil {
		st.Status = string(out.After.Units[st.Unit].Status)
	}
	st.Next = nextCall(st.Status, st.Unit)
	// What may happen now, by the rule book: a hold (the budget spent, the
	// task paused) is the news; a finished unit hands over to the next.
	if nx, err := ws.Next(out.Slug); err == nil {
		switch {
		case nx.Hold.Whole():
			st.Next = holdText(nx.Hold)
		case st.Status == done && nx.Unit != "":
			st.Next = fmt.Sprintf("%s is done; the next unit is %s (%s): call start", st.Unit, nx.Unit, nx.Title)
		case st.Status == done || nx.Unit == "" && st.Status != blocked && st.Status != failed && st.Status != skipped:
			st.Next = fmt.Sprintf("%s is %s; no unit is ready: %s", st.Unit, st.Status, strings.Join(nx.Reasons, "; "))
		}
	}
	if e := out.Entry; e != nil {
		checks := reconcile.ChecksOf(*e)
		if len(checks) > 0 {
			// Named checks: each in a line, the deciding run's tail below.
			st.Check = namedChecks(checks)
		}
		if reconcile.ChecksHold(checks) {
			st.Next = fmt.Sprintf("a check of %s broke (an error of the check, not a failure of the work; see check), so %s stays %s: fix the check and call finish again, or block %s with kind tool-error", st.Unit, st.Unit, st.Status, st.Unit)
		} else if r := reconcile.RunOf(*e); r != nil {
			if st.Check == "" {
				st.Check = reconcile.RunLine(*r)
			}
			if !r.Passed() {
				if r.Tail != "" {
					st.Check += "; its last lines:\n" + r.Tail
				}
				st.Next = fmt.Sprintf("the check did not pass (see check): fix the cause, then %s", st.Next)
			}
		}
	}
	for _, w := range out.Warnings {
		st.Next += "\nWarning: " + w
	}
	return st
}

// nextCall is the call a unit in status needs next, in the tools' words.
func nextCall(status, id string) string {
	switch status {
	case pending:
		return fmt.Sprintf("work on %s, then call checkpoint with what the iteration did; that first checkpoint makes it in_progress", id)
	case inProgress:
		return fmt.Sprintf("continue %s; call checkpoint after each iteration, and finish with the evidence when its work is done", id)
	case confirming:
		return fmt.Sprintf("confirm in the next iteration: re-check %s's work, then call finish again (passed=false if it does not hold)", id)
	case verifying:
		return fmt.Sprintf("verify %s: call finish with verify (runs its check; it must pass) or verified_by (the person or external check), or passed=false if it fails", id)
	case done:
		return fmt.Sprintf("%s is done: call start for the next unit", id)
	case blocked:
		return fmt.Sprintf("%s is blocked: a person resolves it and runs `itr unblock %s`", id, id)
	case timeout:
		return fmt.Sprintf("%s used all its iterations: raise its Max iterations in the plan and run `itr plan`", id)
	case string(state.Failed):
		return fmt.Sprintf("%s failed and takes no work: a person reopens it (reopen), skips it (skip), or adds a unit with \"Replaces: %s\" to the plan; call start for another unit", id, id)
	case string(state.Skipped):
		return fmt.Sprintf("%s is skipped; its dependants may proceed: call start", id)
	}
	return "call resume"
}

// textResult is a result whose content is text; the SDK adds the
// structured output.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// Worded words an error of the rule book in the tools' terms: parameters
// by their names (did, evidence, passed), the calls to make next by tool.
// A FieldError already names its field as the parameter; other errors
// pass as they are.
func Worded(err error) error {
	var r *reconcile.Refusal
	if err == nil || !errors.As(err, &r) {
		return err
	}
	r = r.Clipped()
	u := r.Unit
	var msg string
	switch r.Code {
	case reconcile.NoUnits:
		msg = fmt.Sprintf("unit %s is not in the task: it has no units yet; write the plan and run `itr plan`", u)
	case reconcile.UnknownUnit:
		msg = fmt.Sprintf("unit %s is not in the task (units: %s); add it to the plan and run `itr plan`", u, strings.Join(r.Units, ", "))
	case reconcile.NoneReady:
		var why []string
		for _, st := range r.Stuck {
			why = append(why, stuck(st))
		}
		if len(why) == 0 {
			why = append(why, "every unit is done")
		}
		msg = "no unit is ready: " + strings.Join(why, "; ")
	case reconcile.UnitDone:
		msg = fmt.Sprintf("unit %s is done: do not repeat it; call start without a unit for the next one (if it was found wrong, call reopen with the reason)", u)
	case reconcile.UnitBlocked:
		msg = fmt.Sprintf("unit %s is blocked (%s): a person unblocks it with `itr unblock %s`", u, blockWords(r), u)
	case reconcile.UnitFailed:
		msg = fmt.Sprintf("unit %s failed (%s) and takes no work: a person reopens it (reopen), skips it (skip), or adds a unit with \"Replaces: %s\" to the plan", u, kindReason(r.ReasonKind, r.Reason), u)
	case reconcile.UnitSkipped:
		msg = fmt.Sprintf("unit %s was skipped (%s) and takes no work; call reopen to work on it after all", u, r.Reason)
	case reconcile.UnitTimedOut:
		msg = fmt.Sprintf("unit %s used all %d iterations: raise its Max iterations in the plan and run `itr plan`", u, r.Max)
	case reconcile.WaitsFor:
		msg = fmt.Sprintf("unit %s cannot start: it depends on %s; finish those first", u, reconcile.JoinDeps(r.Waiting))
	case reconcile.NotStarted:
		msg = fmt.Sprintf("unit %s is %s: start it with a checkpoint first (call checkpoint with what its first iteration did)", u, r.Status)
	case reconcile.FailedEarly:
		msg = fmt.Sprintf("unit %s is %s: passed=false applies only in confirming or verifying; record more work with checkpoint", u, r.Status)
	case reconcile.NeedsVerdict:
		msg = fmt.Sprintf("unit %s is verifying: call finish with the evidence (passed=false when verification found problems)", u)
	case reconcile.OutputBad:
		msg = fmt.Sprintf("unit %s cannot be finished while its outputs fail the check (nothing was recorded); fix them, then call finish again. %s", u, reconcile.OutputProblems(r.Outputs))
	case reconcile.NoEvidence:
		msg = fmt.Sprintf("unit %s cannot be verified on a claim (nothing was recorded): call finish with verify (a check that must pass; [] runs the unit's Verify line) or verified_by (the person or external check that verified it)", u)
	case reconcile.UnknownItem:
		msg = fmt.Sprintf("item %s is not an item of %s (its items in the plan: %s); nothing was recorded: pass only the unit's items in items", r.Item, u, r.ItemsText)
	case reconcile.NotDone:
		msg = fmt.Sprintf("unit %s is %s, not done: only a done, failed or skipped unit can be reopened", u, r.Status)
		if r.Status == state.Confirming || r.Status == state.Verifying {
			msg = fmt.Sprintf("unit %s is %s, not done: it is still open, so there is nothing to reopen; call finish with passed=false to send it back to in_progress", u, r.Status)
		}
	default:
		msg = r.Worded(param)
	}
	return errors.New(msg)
}

// param names a field of a request as the tools' parameter.
func param(field string) string {
	switch field {
	case "signal":
		return "done=true"
	case "verified":
		return "finish"
	}
	return field
}

// stuck says in a few words why a unit cannot move.
func stuck(r *reconcile.Refusal) string {
	switch r.Code {
	case reconcile.UnitBlocked:
		return fmt.Sprintf("%s is blocked: %s", r.Unit, blockWords(r))
	case reconcile.UnitFailed:
		return fmt.Sprintf("%s failed (%s): needs a person", r.Unit, kindReason(r.ReasonKind, r.Reason))
	case reconcile.UnitTimedOut:
		return fmt.Sprintf("%s used all %d iterations", r.Unit, r.Max)
	case reconcile.WaitsFor:
		return fmt.Sprintf("%s waits for %s", r.Unit, reconcile.JoinDeps(r.Waiting))
	}
	return r.Error()
}

// decide is workspace.Decide.
func (h *handlers) decide(_ context.Context, _ *mcp.CallToolRequest, in DecideInput) (*mcp.CallToolResult, *Recorded, error) {
	return h.recorded(in.Task, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
		return ws.Decide(workspace.DecideRequest{Slug: slug, Title: in.Title, Choice: in.Choice, Why: in.Why, Unit: in.Unit})
	}, func(out *workspace.Outcome) string {
		return fmt.Sprintf("decision %q recorded in decisions.md; resume lists it as settled", out.Decision)
	})
}

// summarize is workspace.Summarize.
func (h *handlers) summarize(_ context.Context, _ *mcp.CallToolRequest, in SummarizeInput) (*mcp.CallToolResult, *Recorded, error) {
	if in.Outcome != "" {
		return h.conclude(in)
	}
	if in.Kind != "" {
		return nil, nil, fmt.Errorf("kind %s is what a failed task needs, and goes with outcome failed; a summary has none: leave kind out, or add outcome failed", clip.Quote(in.Kind))
	}
	return h.recorded(in.Task, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
		return ws.Summarize(workspace.SummarizeRequest{Slug: slug, Did: in.Did})
	}, func(out *workspace.Outcome) string {
		covers := ""
		if out.Entry != nil {
			covers, _ = out.Entry.Field("Covers")
		}
		return fmt.Sprintf("summary recorded in progress.md (it covers %s); readers and resume start from it", covers)
	})
}

// conclude is summarize with an outcome: workspace.Conclude, did being
// what a delivery lacks ("" for a task whose every unit is settled) or
// why an abandoned or failed task stops.
func (h *handlers) conclude(in SummarizeInput) (*mcp.CallToolResult, *Recorded, error) {
	req := workspace.ConcludeRequest{Kind: in.Kind}
	switch in.Outcome {
	case "delivered":
		req.Result, req.Limitations = state.ResultComplete, in.Did
	case "abandoned":
		req.Result, req.Reason = state.ResultAbandoned, in.Did
	case "failed":
		req.Result, req.Reason = state.ResultFailed, in.Did
	default:
		return nil, nil, fmt.Errorf("outcome %s is not one of delivered, abandoned, failed: give one of them, or none to write a summary", clip.Quote(in.Outcome))
	}
	return h.recorded(in.Task, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
		req.Slug = slug
		return ws.Conclude(req)
	}, func(out *workspace.Outcome) string {
		if o := out.After.Outcome; o != nil {
			return "the task is concluded: " + o.Text() + "; itr archive keeps it, resume (itr resume) takes it back to work"
		}
		return "the task is concluded"
	})
}

// recorded runs a writing tool whose outcome is a commit and a sentence.
func (h *handlers) recorded(task string, fn func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error), say func(*workspace.Outcome) string) (*mcp.CallToolResult, *Recorded, error) {
	return writing(h, task, fn, func(_ *workspace.Workspace, out *workspace.Outcome) *Recorded {
		return &Recorded{Commit: out.Commit, Text: say(out)}
	})
}

// namedChecks words the named checks of an entry, a line each: "words:
// passed: exit 0 after 12ms (actual 812, target >= 800)", or "footer: passed
// on this tree before, not run again".
func namedChecks(checks []reconcile.CheckRun) string {
	lines := make([]string, len(checks))
	for i, c := range checks {
		if c.Skipped {
			lines[i] = c.Name + ": passed on this tree before, not run again"
			continue
		}
		lines[i] = c.Name + ": " + reconcile.CheckHead(c)
		if c.Result.Target != "" {
			lines[i] += fmt.Sprintf(" (actual %s, target %s)", orNone(c.Result.Actual), c.Result.Target)
		}
	}
	return strings.Join(lines, "\n")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
