package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

func newInitCmd(g *globals) *cobra.Command {
	var req workspace.InitRequest
	cmd := &cobra.Command{
		Use:   "init NAME",
		Short: "Start a task: create its folder from the templates and commit it",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Name = strings.Join(args, " ")
			if cmd.Flags().Changed("slug") && req.Slug == "" {
				return fmt.Errorf("--slug is empty; give a folder name such as user-auth, or leave --slug out to make one from NAME")
			}
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				out, err := ws.Init(req)
				if err != nil {
					return err
				}
				return g.emit(outcomeJSON(out), func(w io.Writer) {
					fmt.Fprintf(w, "Started task %s (%s mode) in %s\n", out.Slug, out.After.Mode, ws.TaskDir(out.Slug))
					if earlier, ok := out.Entry.Field(workspace.FieldEarlierTask); ok {
						tag, _, _ := strings.Cut(earlier, ",")
						fmt.Fprintf(w, "Earlier task of this slug: %s; it stays in its archive (once this task is archived, `itr restore %s --from %s` brings it back)\n",
							terminalSafe(earlier), out.Slug, terminalSafe(tag))
					}
					fmt.Fprintf(w, "Committed %s\n", short(out.Commit))
					fmt.Fprintf(w, "Next: write brief.md and %s, then run `itr plan`.\n", planFileOf(string(out.After.Mode)))
				})
			})
		},
	}
	cmd.Flags().StringVar(&req.Slug, "slug", "", "the task's folder name (default: made from NAME)")
	cmd.Flags().StringVar(&req.Mode, "mode", "", "development or knowledge (default development, or .itr.yaml's mode)")
	cmd.Flags().StringVar(&req.Domain, "domain", "", "feature, bug, refactor, research, writing, analysis or planning")
	cmd.Flags().StringVar(&req.GuardrailsFrom, "guardrails-from", "", "start guardrails.md with the lessons of the active or archived task `SLUG`")
	return cmd
}

func planFileOf(mode string) string {
	if mode == "knowledge" {
		return "plan.md"
	}
	return "tasks.md"
}

func short(hash string) string {
	if len(hash) > 7 {
		return hash[:7]
	}
	return hash
}

// outcomeView is the JSON of a recorded event.
type outcomeView struct {
	Task      string   `json:"task"`
	Commit    string   `json:"commit"`
	Unit      string   `json:"unit,omitempty"`
	Iteration int      `json:"iteration,omitempty"`
	From      string   `json:"from,omitempty"`
	Status    string   `json:"status,omitempty"`
	Phase     string   `json:"phase"`
	Files     []string `json:"files"`
	// Repaired lists the commits made without itr whose removal of entries
	// was undone first, and RepairCommit the reconcile commit that did it.
	Repaired     []workspace.UndoReport `json:"repaired,omitempty"`
	RepairCommit string                 `json:"repair_commit,omitempty"`
	// Refolded lists how state.json differed from the fold of its log
	// (after a merge); the record built on the fold.
	Refolded []reconcile.Discrepancy `json:"refolded,omitempty"`
	// Warnings are what the record went ahead despite (work files no
	// commit holds when the work was declared done).
	Warnings []string `json:"warnings,omitempty"`
	// Run is the verification run the iteration records; VerifiedBy who
	// verified the unit without one.
	Run        *state.Run `json:"run,omitempty"`
	VerifiedBy string     `json:"verified_by,omitempty"`
	// Checks are the named checks the iteration ran or did not run again.
	Checks []checkView `json:"checks,omitempty"`
	// Paused is the task's pause after the event, when it is paused.
	Paused *state.Pause `json:"paused,omitempty"`
	// Agent, Model and Session are who the entry records as its maker
	// (--agent, --model, ITR_SESSION ...); WorkFiles the files the
	// iteration's work commits changed (the first ten) and WorkFilesMore
	// how many more.
	Agent         string   `json:"agent,omitempty"`
	Model         string   `json:"model,omitempty"`
	Session       string   `json:"session,omitempty"`
	WorkFiles     []string `json:"work_files,omitempty"`
	WorkFilesMore int      `json:"work_files_more,omitempty"`
	// Outputs are the outputs the entry pinned (the one that made its
	// unit done, or itr checkpoint --accept-outputs): path, bytes, blob.
	Outputs []state.OutputPin `json:"outputs,omitempty"`
	// Outcome is how the task ended, after the event, when it has ended.
	Outcome *state.Outcome `json:"outcome,omitempty"`
	// Decision is the title of the decision recorded (itr decide).
	Decision string `json:"decision,omitempty"`
	// Released is the unit whose claim was given up with its failure or
	// skip.
	Released string `json:"released,omitempty"`
	// Reason, ReasonKind and ClearWhen are the unit's after the event:
	// why it is blocked, failed or skipped, what it needs, and when a
	// block clears.
	Reason     string `json:"reason,omitempty"`
	ReasonKind string `json:"reason_kind,omitempty"`
	ClearWhen  string `json:"clear_when,omitempty"`
}

// printRepaired says what was put back before the event was recorded.
func printRepaired(w io.Writer, out *workspace.Outcome) {
	if n := len(out.Refolded); n > 0 {
		fmt.Fprintf(w, "Note: state.json was not the fold of progress.md beside it (%d difference%s, first: %s); this record builds on the fold and commits it\n",
			n, map[bool]string{true: "", false: "s"}[n == 1], terminalSafe(out.Refolded[0].String()))
	}
	if out.Repaired == nil {
		return
	}
	if n := len(out.Repaired.Kept); n > 0 {
		fmt.Fprintf(w, "Note: adopted a task folder written without itr first: kept %d fact%s of its committed state.json (committed %s)\n",
			n, map[bool]string{true: "", false: "s"}[n == 1], short(out.Repaired.Commit))
	}
	for _, u := range out.Repaired.Undone {
		fmt.Fprintf(w, "Note: %s; put back from history (committed %s)\n", terminalSafe(u.Text), short(out.Repaired.Commit))
	}
}

func outcomeJSON(out *workspace.Outcome) outcomeView {
	v := outcomeView{Task: out.Slug, Commit: out.Commit, Phase: string(out.After.Phase), Files: out.Files}
	if out.Repaired != nil {
		v.Repaired, v.RepairCommit = out.Repaired.Undone, out.Repaired.Commit
	}
	v.Refolded = out.Refolded
	v.Paused = out.After.Paused
	v.Outcome = out.After.Outcome
	v.Warnings = out.Warnings
	v.Decision = out.Decision
	v.Released = out.Released
	if e := out.Entry; e != nil {
		who := progresslog.WhoOf(*e)
		v.Agent, v.Model, v.Session = who.Agent, who.Model, who.Session
		if f, ok := e.Field(progresslog.FieldFiles); ok {
			v.WorkFiles, v.WorkFilesMore = progresslog.ParseFiles(f)
		}
		if f, ok := e.Field(progresslog.FieldOutputs); ok {
			v.Outputs, _ = progresslog.ParsePins(f)
		}
	}
	if e := out.Entry; e != nil && e.Unit != "" {
		v.Unit, v.Iteration = e.Unit, e.Iteration
		if out.Before != nil && out.Before.Units[e.Unit] != nil {
			v.From = string(out.Before.Units[e.Unit].Status)
		}
		if u := out.After.Units[e.Unit]; u != nil {
			v.Status = string(u.Status)
			v.Reason, v.ReasonKind, v.ClearWhen = state.Val(u.Reason), state.Val(u.ReasonKind), state.Val(u.ClearWhen)
		}
		v.Run, v.VerifiedBy = reconcile.RunOf(*e), reconcile.VerifiedByOf(*e)
		for _, c := range reconcile.ChecksOf(*e) {
			v.Checks = append(v.Checks, checkViewOf(c))
		}
	}
	return v
}

// checkView is one named check of an iteration in --json: how it ended,
// or that it passed on this tree before and was not run again (skipped,
// with the commit and iteration of that pass).
type checkView struct {
	Name     string `json:"name"`
	Command  string `json:"command"`
	Outcome  string `json:"outcome"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Why      string `json:"why,omitempty"`
	Target   string `json:"target,omitempty"`
	Actual   string `json:"actual,omitempty"`
	Skipped  bool   `json:"skipped,omitempty"`
	Commit   string `json:"commit,omitempty"`
	Log      string `json:"log,omitempty"`
}

func checkViewOf(c reconcile.CheckRun) checkView {
	r := c.Result
	return checkView{Name: c.Name, Command: r.Command, Outcome: r.Outcome, ExitCode: r.ExitCode, Why: c.Why, Target: r.Target, Actual: r.Actual, Skipped: c.Skipped, Commit: r.Commit, Log: r.Log}
}
