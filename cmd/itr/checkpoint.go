package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

func newCheckpointCmd(g *globals) *cobra.Command {
	var req workspace.CheckpointRequest
	var progress int
	var accept bool
	cmd := &cobra.Command{
		Use:   "checkpoint [UNIT] [--verify [-- COMMAND ARGS...]]",
		Short: "Record one iteration as one commit",
		Long: `Record one iteration of a unit: append an entry to progress.md, fold it into state.json,
and commit both (with the task folder's other changes) as one commit.

The lifecycle: the first checkpoint starts a pending unit; in in_progress, --signal declares
the work done (→ confirming); in confirming, --signal confirms (→ verifying) and no signal
sends it back to in_progress; in verifying, --verified closes it (→ done) and no flag sends it
back. A checkpoint that uses the last allowed iteration without declaring the work done moves
the unit to timeout.

A unit whose plan names outputs ("Output:", with "Min words:" and "Complete: sentences")
takes --signal and --verified only while each output file is there, not empty, long enough,
not cut off ("...", "…", "[continue", "[TBD]", "TODO", the plan's "Truncation markers:", an
open code fence) and, if asked, ending with a whole sentence, with the plan's "Must end with:"
footer, holding its "Sections:" and within its "Max size:"; otherwise nothing is recorded and
each problem is named. An output over about 25,000 tokens with no "Max size:" passes with a
warning.

--verified needs evidence: a passing run (--verify) or the person or external check that
verified the unit (--verified-by TEXT, which implies --verified). --verify runs the command
after -- (no shell: name one, as in -- sh -c 'a && b'), or the unit's "Verify:" line in the
plan, in the work tree, with a time limit (verify_timeout in .itr.yaml, default 10m; --timeout).
Its output shows as it runs; Ctrl-C stops the command, and the run is still recorded. The entry
records the command, how it ended, how long it took, the commit and whether the tree was clean,
and its last lines; the whole output is committed as runs/UNIT-N.log in the task folder. A run
that does not pass takes back --signal and --verified: the iteration is recorded, the unit goes
where a failed check goes, and itr exits with 3.

When verification closes a unit (→ done), the entry pins each output the plan names: its size and
git blob id as git stores it. itr verify, status and prime compare HEAD and the working tree with
the pins and name a shrink, an overwrite or a removal, with the commit that made it. A change made
on purpose is accepted by reopening the unit (itr reopen), or with --accept-outputs: the outputs of
the done unit are pinned again as they are now, in a Pinned entry whose reason is --did (the
outputs must still pass the output check).

--progress N (with --detail TEXT) keeps the unit's own progress, shown by status and prime.

--item ID[=done|skipped|failed] records items of the unit's ledger with the iteration (done when
no state is given; repeatable, or several separated by commas; N-M is a range of numbered items):
"--item 1-12 --item 13=skipped". When the plan gives the unit's items ("Items: 17" for items 1 to
17, or "Items: intro, methods, results"), other items are refused. A later entry for an item wins.
A plan may declare the states items move through ("Item states: candidate, included, level-3,
level-4" with "Settled states: level-3, level-4"; the last is settled by default): --item 7=level-3
then records them, and any other state is refused naming the declaration; skipped and failed are
always states, and settled. An item may move back to an earlier state; the entry says so.
--value 7:score=4 records a value of item 7 (--value score=4 when --item moves one item);
--metric words=812 records a number about the unit (the latest is kept; the log keeps each).
status, prime and --json show the items done of the total (by state), the next item (the first in
plan order not yet settled), the items not to repeat, the key values and the metrics; a "Counter:
NAME in PATH" of the plan is counted in the file and reported when it disagrees with the items
done. Where the plan says "Settle items before done: yes" (the default in knowledge mode), --signal
and --verified are refused while an item is not settled, a counter disagrees or a "Metric: words
>= 2500" target is not met.
A paused task (itr pause) and a task past its "Max total iterations" refuse checkpoints.`,
		Example: `  itr checkpoint T1 --did "login form" --signal --verify -- go test ./auth/...
  itr checkpoint T1 --did "tests pass" --verified --verify      # runs T1's Verify: line
  itr checkpoint T1 --did "reviewed" --verified-by "Ana (code review)"
  itr checkpoint R2 --did "reports 1-12 scanned" --item 1-12 --item 13=skipped
  itr checkpoint R1 --did "paper 7 read" --item 7=level-3 --value score=4 --value finding="Entity consolidation required"
  itr checkpoint R3 --did "section IV-B drafted" --metric words=1250
  itr checkpoint R1 --accept-outputs --did "survey cut to the 300 words the editor asked for"`,
		Args: func(cmd *cobra.Command, args []string) error {
			unitArgs := args
			if at := cmd.ArgsLenAtDash(); at >= 0 {
				unitArgs = args[:at]
				if len(args[at:]) == 0 {
					return fmt.Errorf("nothing after --: give the command to run, or leave out -- to run the unit's Verify: line")
				}
			}
			if len(unitArgs) > 1 {
				return fmt.Errorf("accepts at most 1 unit, received %d (%s); a command to run goes after --verify --", len(unitArgs), strings.Join(unitArgs, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if at := cmd.ArgsLenAtDash(); at >= 0 {
				if !req.Check.Verify {
					return usageError{fmt.Errorf("a command after -- runs only with --verify: itr checkpoint %s--verify -- %s", unitPrefix(args[:at]), strings.Join(args[at:], " "))}
				}
				req.Check.Argv = append([]string(nil), args[at:]...)
				args = args[:at]
			}
			if len(args) == 1 {
				req.Unit = args[0]
			}
			if req.Check.Rerun && !req.Check.Verify {
				return usageError{fmt.Errorf("--rerun applies to the named checks --verify runs: add --verify")}
			}
			if cmd.Flags().Changed("timeout") && !req.Check.Verify {
				return usageError{fmt.Errorf("--timeout applies to a check: add --verify")}
			}
			if cmd.Flags().Changed("timeout") && req.Check.Timeout <= 0 {
				return usageError{fmt.Errorf("--timeout %s is not a time limit: give a positive duration such as 90s or 10m", req.Check.Timeout)}
			}
			if cmd.Flags().Changed("progress") {
				req.Progress = &progress
			} else if req.ProgressDetail != "" {
				return usageError{fmt.Errorf("--detail says what a --progress means: give --progress N too")}
			}
			if cmd.Flags().Changed("verified-by") && strings.TrimSpace(req.VerifiedBy) == "" {
				return usageError{fmt.Errorf("--verified-by is empty: name the person or external check that verified the unit")}
			}
			if accept {
				return acceptOutputs(cmd, g, req)
			}
			req.Check.Tee = g.io.Err
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				slug, err := ws.Select("")
				if err != nil {
					return err
				}
				req.Slug = slug
				out, err := ws.Checkpoint(req)
				if err != nil {
					return err
				}
				v := outcomeJSON(out)
				if err := g.emit(v, func(w io.Writer) {
					arrow := v.Status
					if v.From != v.Status {
						arrow = v.From + " → " + v.Status
					}
					printRepaired(w, out)
					fmt.Fprintf(w, "%s iteration %d recorded: %s\n", v.Unit, v.Iteration, arrow)
					if v.Run != nil && len(v.Checks) == 0 {
						fmt.Fprintf(w, "Check: %s\n", terminalSafe(runLine(*v.Run, ws.Rel(slug, ""))))
					}
					for _, c := range v.Checks {
						fmt.Fprintf(w, "Check %s: %s\n", c.Name, terminalSafe(checkLine(c, v.Unit, ws.Rel(slug, ""))))
					}
					fmt.Fprintf(w, "Committed %s\n", short(out.Commit))
					for _, warn := range out.Warnings {
						fmt.Fprintf(w, "Warning: %s\n", terminalSafe(warn))
					}
				}); err != nil {
					return err
				}
				if err := checksProblem(v); err != nil {
					return err
				}
				if v.Run != nil && !v.Run.Passed() {
					return problemsError{fmt.Sprintf("the check of %s did not pass (%s); the run is recorded, and %s is %s", v.Unit, v.Run.Outcome, v.Unit, v.Status)}
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Did, "did", "", "what this iteration accomplished (required)")
	f.StringVar(&req.Remaining, "remaining", "", "what is left (default None)")
	f.StringVar(&req.Blockers, "blockers", "", "issues in the way (default None)")
	f.BoolVar(&req.Signal, "signal", false, "the work is done (in_progress) or the confirmation holds (confirming)")
	f.BoolVar(&req.Verified, "verified", false, "verification passed (verifying)")
	f.StringArrayVar(&req.Commits, "commit", nil, "a work commit to name (repeatable; default: the commits since the last checkpoint)")
	f.BoolVar(&req.Check.Verify, "verify", false, "run a check first: the command after --, else the unit's Verify: line")
	f.BoolVar(&req.Check.Rerun, "rerun", false, "with --verify, run every named check, also one that passed on this tree before")
	f.DurationVar(&req.Check.Timeout, "timeout", 0, "stop the check after this long (default: verify_timeout in .itr.yaml, else 10m)")
	f.StringVar(&req.VerifiedBy, "verified-by", "", "the person or external check that verified the unit (implies --verified)")
	f.IntVar(&progress, "progress", 0, "the unit's own progress, a whole percent from 0 to 100")
	f.StringVar(&req.ProgressDetail, "detail", "", "what --progress means (\"sections 1-3 of 6\")")
	f.StringArrayVar(&req.Items, "item", nil, "an item of the unit recorded with the iteration: ID[=STATE] (done, skipped, failed, or a state the plan declares), N-M for a range (repeatable; commas allowed)")
	f.StringArrayVar(&req.Values, "value", nil, "a value of an item: ID:NAME=TEXT, or NAME=TEXT for the one item --item moves (repeatable; an empty TEXT takes it away)")
	f.StringArrayVar(&req.Metrics, "metric", nil, "a number about the unit: NAME=N, such as words=812 (repeatable; the latest value is kept)")
	f.BoolVar(&accept, "accept-outputs", false, "accept on purpose a change to a done unit's outputs: pin them again as they are now (--did says why)")
	return cmd
}

// acceptOutputs runs itr checkpoint UNIT --accept-outputs --did WHY: the
// done unit's outputs pinned again. It takes no other flag of an
// iteration.
func acceptOutputs(cmd *cobra.Command, g *globals, req workspace.CheckpointRequest) error {
	for _, name := range []string{"signal", "verified", "verified-by", "verify", "timeout", "progress", "detail", "item", "value", "metric", "commit", "remaining", "blockers"} {
		if cmd.Flags().Changed(name) {
			return usageError{fmt.Errorf("--accept-outputs records no iteration, so --%s does not apply: run `itr checkpoint %s--accept-outputs --did \"why the change is accepted\"` alone", name, unitPrefix([]string{req.Unit}))}
		}
	}
	if req.Unit == "" {
		return usageError{fmt.Errorf("--accept-outputs needs the done unit: itr checkpoint UNIT --accept-outputs --did \"why the change is accepted\"")}
	}
	return g.withWorkspace(func(ws *workspace.Workspace) error {
		out, err := ws.Repin(workspace.RepinRequest{Unit: req.Unit, Reason: req.Did})
		if err != nil {
			return err
		}
		v := outcomeJSON(out)
		return g.emit(v, func(w io.Writer) {
			printRepaired(w, out)
			fmt.Fprintf(w, "%s outputs pinned again:\n", v.Unit)
			for _, p := range v.Outputs {
				fmt.Fprintf(w, "  %s\n", terminalSafe(p.String()))
			}
			fmt.Fprintf(w, "Committed %s\n", short(out.Commit))
			for _, warn := range out.Warnings {
				fmt.Fprintf(w, "Warning: %s\n", terminalSafe(warn))
			}
		})
	})
}

// unitPrefix is "T1 " when a unit was named, for a suggested command line.
func unitPrefix(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0] + " "
}

// checkLine words a named check: "`wc -w memo.md` passed: exit 0 after
// 12ms; actual 812 (target >= 800)", or that it passed on this tree before
// and did not run again.
func checkLine(c checkView, unit, taskDir string) string {
	if c.Skipped {
		at := ""
		if c.Commit != "" {
			at = " at " + c.Commit
		}
		return fmt.Sprintf("passed on this tree%s, not run again (--rerun runs it)", at)
	}
	s := "`" + c.Command + "` " + reconcile.CheckHead(reconcile.CheckRun{Result: state.CheckResult{Outcome: c.Outcome, ExitCode: c.ExitCode}, Why: c.Why})
	s = strings.TrimSuffix(s, " after 0s")
	if c.Target != "" {
		s += fmt.Sprintf("; actual %s (target %s)", actualOrNone(c.Actual), c.Target)
	}
	if c.Log != "" {
		s += "; whole output in " + taskDir + c.Log
	}
	return s
}

func actualOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// checksProblem is exit 3 when a named check failed (the work does not
// hold) or broke (the check itself: the unit stays where it was, and
// blocking it as a tool error is the way on when the check cannot be
// fixed now).
func checksProblem(v outcomeView) error {
	var failed, broke []string
	for _, c := range v.Checks {
		switch {
		case c.Skipped:
		case c.Outcome == state.CheckFailed:
			failed = append(failed, c.Name)
		case c.Outcome == state.CheckError:
			broke = append(broke, c.Name)
		}
	}
	switch {
	case len(failed) > 0:
		return problemsError{fmt.Sprintf("check %s of %s failed: the work does not hold; the run is recorded, and %s is %s", strings.Join(failed, ", "), v.Unit, v.Unit, v.Status)}
	case len(broke) > 0:
		return problemsError{fmt.Sprintf("check %s of %s broke (an error of the check, not a failure of the work): %s stays %s; fix the check and run it again (itr checkpoint %s --did \"...\" --verify), or block %s as a tool error (itr block %s --kind tool-error --reason \"...\")",
			strings.Join(broke, ", "), v.Unit, v.Unit, v.Status, v.Unit, v.Unit, v.Unit)}
	}
	return nil
}

// runLine words a run: "`go test ./...` failed: exit 1 after 2.41s; whole output in DIR/runs/T1-3.log".
func runLine(r state.Run, taskDir string) string {
	s := reconcile.RunLine(r)
	if r.Log != "" {
		s += "; whole output in " + taskDir + r.Log
	}
	return s
}
