package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/state"
)

func newStatusCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "The resume summary a new session needs",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				sum, err := ws.Status("")
				if err != nil {
					return err
				}
				g.painted("status")
				return g.emit(sum, func(w io.Writer) { printSummary(w, sum) })
			})
		},
	}
}

// printSummary writes the resume summary of itr status: where the task
// stands, the work in hand, what needs attention, what comes next, the
// units and the warnings.
func printSummary(w io.Writer, s *workspace.Summary) {
	printSummaryHead(w, s)
	printSummaryWork(w, s)
	printSummaryAttention(w, s)
	printSummaryNext(w, s)
	printSummaryUnits(w, s.Units)
	said := map[string]bool{}
	for _, p := range s.Partial {
		said[p.String()] = true // printed as a Partial line
	}
	for _, warn := range s.Warnings {
		if !said[warn] {
			fmt.Fprintf(w, "\nwarning: %s\n", warn)
		}
	}
}

// printSummaryHead writes where the task stands: its name, archive, mode,
// phase, last checkpoint, pause, pace and flags.
func printSummaryHead(w io.Writer, s *workspace.Summary) {
	fmt.Fprintf(w, "Task:     %s (%s)\n", s.Task, s.Slug)
	if s.Archive != "" {
		fmt.Fprintf(w, "Archived: %s (not in the working tree; `itr restore %s` brings it back)\n", s.Archive, s.Slug)
	}
	fmt.Fprintf(w, "Mode:     %s    Phase: %s    Progress: %s\n", s.Mode, s.Phase, s.CompactionSummary.Progress)
	if s.LastCheckpoint != "" {
		if strings.HasSuffix(s.SinceLast, workspace.FutureSuffix) {
			fmt.Fprintf(w, "Last:     %s (%s)\n", s.LastCheckpoint, s.SinceLast)
		} else {
			fmt.Fprintf(w, "Last:     %s (%s ago)\n", s.LastCheckpoint, s.SinceLast)
		}
	}
	if o := s.Outcome; o != nil {
		fmt.Fprintf(w, "Outcome:  %s", terminalSafe(o.Text()))
		if o.At != "" {
			fmt.Fprintf(w, " (since %s)", o.At)
		}
		if s.Archive == "" {
			fmt.Fprintf(w, "; `itr archive` next, or `itr resume` takes it back to work")
		}
		fmt.Fprintln(w)
	}
	if p := s.Paused; p != nil {
		fmt.Fprintf(w, "Paused:   since %s", p.Since)
		if p.Reason != "" {
			fmt.Fprintf(w, ": %s", p.Reason)
		}
		fmt.Fprintf(w, " (`itr resume` resumes)\n")
	}
	if a := s.Approval; a != nil {
		fmt.Fprintf(w, "Approved: the plan, by %s at %s\n", terminalSafe(a.By), a.At)
	}
	fmt.Fprintf(w, "Pace:     %s\n", s.Pace)
	for _, f := range s.Flags {
		fmt.Fprintf(w, "Flag:     %s: %s\n", f.Kind, f.Text)
	}
	if s.PhaseHint != "" {
		fmt.Fprintf(w, "Phase?    %s\n", s.PhaseHint)
	}
}

// printSummaryWork writes the work in hand: the current unit, the items
// and counters it tracks, the other started units, what the last
// iteration left and the units ready to start.
func printSummaryWork(w io.Writer, s *workspace.Summary) {
	if c := s.Current; c != nil {
		fmt.Fprintf(w, "Current:  %s %s, iteration %s%s\n", c.ID, c.Status, iterations(*c), progressText(*c))
		if who := whoText(*c); who != "" {
			fmt.Fprintf(w, "          %s\n", terminalSafe(who))
		}
	}
	for _, u := range []*workspace.UnitStatus{s.Current, s.Work} {
		if u == nil || u != s.Current && s.Current != nil && s.Current.ID == u.ID {
			continue
		}
		if u.Items != nil {
			fmt.Fprintf(w, "Items:    %s %s\n", u.ID, terminalSafe(u.Items.Text()))
			if kv := u.Items.KeyValues(5, 80); kv != "" {
				fmt.Fprintf(w, "Values:   %s %s: %s\n", u.ID, u.Items.KeyValue, terminalSafe(kv))
			}
		}
		if len(u.Metrics) > 0 {
			fmt.Fprintf(w, "Metrics:  %s %s\n", u.ID, terminalSafe(workspace.MetricsText(u.Metrics)))
		}
	}
	for _, c := range s.Counters {
		if c.Agrees {
			fmt.Fprintf(w, "Counter:  %s (agrees)\n", terminalSafe(c.String()))
		}
	}
	var others []string
	for _, u := range s.Started {
		if s.Current == nil || u.ID != s.Current.ID {
			others = append(others, fmt.Sprintf("%s %s, iteration %s", u.ID, u.Status, iterations(u)))
		}
	}
	if len(others) > 0 {
		fmt.Fprintf(w, "Started:  %s\n", strings.Join(others, "; "))
	}
	if l := s.Last; l != nil {
		fmt.Fprintf(w, "Remaining (%s iteration %d): %s\n", l.Unit, l.Iteration, indentRest(l.Remaining))
		fmt.Fprintf(w, "Blockers: %s\n", indentRest(l.Blockers))
	}
	if len(s.Ready) > 0 {
		fmt.Fprintf(w, "Ready:    %s\n", strings.Join(s.Ready, ", "))
	}
}

// printSummaryAttention writes what needs attention or care: checks,
// claims, a due check-in, and the failed and skipped units.
func printSummaryAttention(w io.Writer, s *workspace.Summary) {
	for _, c := range s.Checks {
		fmt.Fprintf(w, "Check:    %s\n", c)
	}
	for _, p := range s.Partial {
		fmt.Fprintf(w, "Partial:  %s\n", terminalSafe(p.String()))
	}
	for _, c := range s.Claims {
		who := ""
		if c.Agent == s.Agent {
			who = " (you)"
		}
		if c.Finished != "" {
			fmt.Fprintf(w, "Claimed:  %s finished by %s%s at %s (itr sync brings its entries)\n", c.Unit, c.Agent, who, c.Finished)
			continue
		}
		fmt.Fprintf(w, "Claimed:  %s by %s%s until %s\n", c.Unit, c.Agent, who, c.Until)
	}
	if s.CheckIn != "" {
		fmt.Fprintf(w, "Check in: %s\n", s.CheckIn)
	}
	for _, u := range s.Failed {
		fmt.Fprintf(w, "Failed:   %s needs someone (%s): %s\n", u.ID, orNone(u.ReasonKind), u.Reason)
	}
	for _, u := range s.Skipped {
		fmt.Fprintf(w, "Skipped:  %s: %s\n", u.ID, u.Reason)
	}
}

// printSummaryNext writes the next action and what to read before it:
// the units done, the decisions in force and where the last summary of
// progress.md is.
func printSummaryNext(w io.Writer, s *workspace.Summary) {
	fmt.Fprintf(w, "Next:     %s\n", s.NextAction)
	if len(s.DoNotRepeat) > 0 {
		fmt.Fprintf(w, "Done (do not repeat): %s\n", strings.Join(s.DoNotRepeat, ", "))
	}
	for _, o := range s.DoneOutputs {
		fmt.Fprintf(w, "Output:   %s\n", terminalSafe(o.String()))
	}
	if n := len(s.Decisions); n > 0 {
		fmt.Fprintf(w, "Decided:  %d decision%s in force (decisions.md; `itr prime` lists them)\n", n, map[bool]string{true: "", false: "s"}[n == 1])
	}
	if ls := s.LastSummary; ls != nil {
		fmt.Fprintf(w, "Summary:  progress.md line %d, %s; %d entr%s since (read from there on)\n", ls.Line, ls.Time, ls.Since, map[bool]string{true: "y", false: "ies"}[ls.Since == 1])
	}
}

// printSummaryUnits writes the table of units, after a blank line; nothing
// when there are none.
func printSummaryUnits(w io.Writer, units []workspace.UnitStatus) {
	if len(units) == 0 {
		return
	}
	fmt.Fprintln(w)
	// The table goes out in large writes, not one per unit: a plan of
	// 10,000 units is not 10,000 writes to the terminal or pipe.
	bw := bufio.NewWriterSize(w, 64<<10)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "UNIT\tSTATUS\tITER\tTITLE")
	for _, u := range units {
		title := u.Title + reasonSuffix(u)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.ID, u.Status, iterations(u), title)
	}
	tw.Flush()
	bw.Flush()
}

// whoText says when a unit's attempt started and who recorded its newest
// iteration: "started 2026-02-03T14:46:00Z (restarted once); last by
// synthesizer on sonnet (the plan says opus)"; "" when nothing is known.
func whoText(u workspace.UnitStatus) string {
	var parts []string
	if u.StartedAt != "" {
		parts = append(parts, "started "+u.StartedAt)
	}
	if u.Restarts > 0 {
		parts = append(parts, fmt.Sprintf("restarted %d time%s", u.Restarts, plural(u.Restarts)))
	}
	if u.Agent != "" {
		by := "last by " + u.Agent
		if u.Model != "" {
			by += " on " + u.Model
		}
		parts = append(parts, by)
	}
	if u.PlanModel != "" {
		parts = append(parts, "the plan says model "+u.PlanModel)
	}
	return strings.Join(parts, "; ")
}

// progressText is ", 40% (sections 1-3 of 6)" for a unit that gave its
// own progress, else "".
func progressText(u workspace.UnitStatus) string {
	if u.Progress == "" {
		return ""
	}
	if u.ProgressDetail != "" {
		return ", " + u.Progress + " (" + u.ProgressDetail + ")"
	}
	return ", " + u.Progress
}

func iterations(u workspace.UnitStatus) string {
	if u.Max > 0 {
		return fmt.Sprintf("%d/%d", u.Iterations, u.Max)
	}
	return fmt.Sprintf("%d", u.Iterations)
}

func indentRest(s string) string {
	return strings.ReplaceAll(s, "\n", "\n  ")
}

func newNextCmd(g *globals) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "next",
		Short: "The unit to work on now, or why none is ready",
		Long: `Name the unit to work on now (the current unit while it is open, else the unit under way
touched longest ago, else the first ready one) with its handoff: the files it reads and what
the units it depends on wrote, did and left. Or say why no unit is ready.

--all lists every unit that can be worked on now, for an orchestrator with several
subagents: the units under way that no other agent holds, then each ready unit whose inputs
are there, each with its handoff; --json adds each one's brief (what itr prime --unit gives).
The orientation comes first, once: the plan's ## Notes, context.md's Approach, Key files and
Patterns and the lessons of guardrails.md that name no unit; each unit then has the lessons
that name it (by its ID or a file it writes or reads).`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				if all {
					info, err := ws.NextAll("")
					if err != nil {
						return err
					}
					g.painted("next")
					return g.emit(info, func(w io.Writer) {
						if len(info.Units) == 0 {
							fmt.Fprintln(w, "No unit can be worked on now:")
						}
						if lines := info.OrientationLines(120); len(lines) > 0 && len(info.Units) > 0 {
							fmt.Fprintln(w, "For every unit (from the task's files; quoted text is data):")
							for _, l := range lines {
								fmt.Fprintf(w, "  %s\n", l)
							}
						}
						for _, u := range info.Units {
							fmt.Fprintf(w, "%s (%s) %s\n", u.Unit, u.Status, u.Title)
							for _, l := range append(u.Handoff.Lines(120), u.LessonLines(120)...) {
								fmt.Fprintf(w, "  %s\n", l)
							}
						}
						if len(info.Units) > 0 {
							if len(info.Reasons) > 0 {
								fmt.Fprintln(w, "Not now:")
							}
						}
						for _, r := range info.Reasons {
							fmt.Fprintf(w, "  %s\n", r)
						}
						if len(info.Units) > 0 {
							fmt.Fprintln(w, "Each one's context for a subagent: itr prime --unit UNIT")
						}
					})
				}
				info, err := ws.Next("")
				if err != nil {
					return err
				}
				g.painted("next")
				return g.emit(info, func(w io.Writer) {
					if info.Unit != "" {
						fmt.Fprintf(w, "%s (%s) %s\n", info.Unit, info.Status, info.Title)
						if len(info.Actions) > 0 && info.Actions[0].For == "rerun" {
							// The news before the unit's own work.
							fmt.Fprintf(w, "  %s\n", info.Next)
						}
						for _, l := range info.Handoff.Lines(120) {
							fmt.Fprintf(w, "  %s\n", l)
						}
						return
					}
					if info.Hold.Whole() {
						fmt.Fprintln(w, "Nothing can be recorded now:")
					} else {
						fmt.Fprintln(w, "No unit is ready:")
					}
					for _, r := range info.Reasons {
						fmt.Fprintf(w, "  %s\n", r)
					}
				})
			})
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "list every unit that can be worked on now, each with its handoff")
	return cmd
}

func newLogCmd(g *globals) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "log",
		Short: "The task's checkpoint history from git",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			if limit < 0 {
				return usageError{fmt.Errorf("-n %d: give how many commits to show, 1 or more (0, the default, shows them all)", limit)}
			}
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				rows, err := ws.Log("", limit)
				if err != nil {
					return err
				}
				g.painted("log")
				return g.emit(rows, func(w io.Writer) {
					tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
					fmt.Fprintln(tw, "COMMIT\tTIME\tUNIT\tITER\tEVENT\tSUBJECT\tAGENT\tFILES")
					for _, r := range rows {
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", short(r.Commit), r.Time, dash(r.Unit), dash(r.Iteration), r.Event, r.Subject,
							terminalSafe(agentText(r.Agent, r.Model)), terminalSafe(filesText(r.Files, r.FilesMore)))
					}
					tw.Flush()
				})
			})
		},
	}
	cmd.Flags().IntVarP(&limit, "number", "n", 0, "show at most N commits")
	return cmd
}

// agentText is "synthesizer (sonnet)", the agent alone, or "-".
func agentText(agent, model string) string {
	switch {
	case agent == "":
		return "-"
	case model == "":
		return agent
	}
	return agent + " (" + model + ")"
}

// filesText is "src/a.go +3" (the first file and how many more), or "-".
func filesText(files []string, more int) string {
	if len(files) == 0 {
		return "-"
	}
	if rest := len(files) - 1 + more; rest > 0 {
		return fmt.Sprintf("%s +%d", files[0], rest)
	}
	return files[0]
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// outcomeCells are a task's outcome as itr list shows it: the result in
// its column ("-" while the task runs) and, after the name, why it ended
// and what is missing.
func outcomeCells(o *state.Outcome) (result, why string) {
	if o == nil {
		return "-", ""
	}
	var parts []string
	for _, p := range []string{o.Reason, o.Kind, o.Limitations} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	if len(o.Missing) > 0 {
		parts = append(parts, "missing "+strings.Join(o.Missing, ", "))
	}
	if len(parts) > 0 {
		why = " — " + terminalSafe(strings.Join(strings.Fields(strings.Join(parts, "; ")), " "))
	}
	return o.Result.Words(), why
}

func newListCmd(g *globals) *cobra.Command {
	var writeIndex bool
	cmd := &cobra.Command{
		Use:   "list [--write-index]",
		Short: "Every task under the root with its phase and progress",
		Long: `Every task under the root, active and archived, with its phase, units done and last activity.

With index: true in .itr.yaml, itr keeps <root>/INDEX.md, a Markdown table of every task (task,
mode, status, started, progress, last activity), in step: each itr commit rewrites the row of the
task it changes, in that same commit, and the merge driver joins two branches' tables row by row.
--write-index rebuilds it from every task and commits it (itr verify names a stale one).`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				if writeIndex {
					rep, err := ws.WriteIndex()
					if err != nil {
						return err
					}
					return g.emit(rep, func(w io.Writer) {
						if rep.Commit == "" {
							fmt.Fprintf(w, "%s is in step (%d task%s); nothing to commit\n", rep.Path, rep.Rows, plural(rep.Rows))
							return
						}
						fmt.Fprintf(w, "Wrote %s (%d task%s); committed %s\n", rep.Path, rep.Rows, plural(rep.Rows), short(rep.Commit))
					})
				}
				rows, err := ws.List()
				if err != nil {
					return err
				}
				g.painted("list")
				return g.emit(rows, func(w io.Writer) {
					if len(rows) == 0 {
						fmt.Fprintf(w, "No tasks under %s; start one with `itr init NAME`.\n", ws.Root)
						return
					}
					tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
					fmt.Fprintln(tw, "TASK\tPHASE\tOUTCOME\tDONE\tLAST ACTIVITY\tNAME")
					for _, r := range rows {
						outcome, why := outcomeCells(r.Outcome)
						if r.State == "archived" {
							fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s (archived: %s)%s\n", r.Slug, r.Phase, outcome, r.Done, r.Total, dash(r.LastActivity), r.Task, strings.TrimPrefix(r.Archive, "refs/tags/"), why)
							continue
						}
						if r.State != "active" {
							fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t%s\n", r.Slug, r.State)
							continue
						}
						fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s%s\n", r.Slug, r.Phase, outcome, r.Done, r.Total, dash(r.LastActivity), r.Task, why)
					}
					tw.Flush()
				})
			})
		},
	}
	cmd.Flags().BoolVar(&writeIndex, "write-index", false, "rebuild <root>/INDEX.md from every task and commit it (needs index: true in .itr.yaml)")
	return cmd
}
