package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/workspace"
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

func printSummary(w io.Writer, s *workspace.Summary) {
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
	if p := s.Paused; p != nil {
		fmt.Fprintf(w, "Paused:   since %s", p.Since)
		if p.Reason != "" {
			fmt.Fprintf(w, ": %s", p.Reason)
		}
		fmt.Fprintf(w, " (`itr resume` resumes)\n")
	}
	fmt.Fprintf(w, "Pace:     %s\n", s.Pace)
	for _, f := range s.Flags {
		fmt.Fprintf(w, "Flag:     %s: %s\n", f.Kind, f.Text)
	}
	if s.PhaseHint != "" {
		fmt.Fprintf(w, "Phase?    %s\n", s.PhaseHint)
	}
	if c := s.Current; c != nil {
		fmt.Fprintf(w, "Current:  %s %s, iteration %s%s\n", c.ID, c.Status, iterations(*c), progressText(*c))
	}
	for _, u := range []*workspace.UnitStatus{s.Current, s.Work} {
		if u != nil && u.Items != nil && (u == s.Current || s.Current == nil || s.Current.ID != u.ID) {
			fmt.Fprintf(w, "Items:    %s %s\n", u.ID, terminalSafe(u.Items.Text()))
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
	for _, c := range s.Checks {
		fmt.Fprintf(w, "Check:    %s\n", c)
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
	fmt.Fprintf(w, "Next:     %s\n", s.NextAction)
	if len(s.DoNotRepeat) > 0 {
		fmt.Fprintf(w, "Done (do not repeat): %s\n", strings.Join(s.DoNotRepeat, ", "))
	}
	if len(s.Units) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "UNIT\tSTATUS\tITER\tTITLE")
		for _, u := range s.Units {
			title := u.Title
			if u.Reason != "" {
				title += " — blocked: " + u.Reason
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.ID, u.Status, iterations(u), title)
		}
		tw.Flush()
	}
	for _, warn := range s.Warnings {
		fmt.Fprintf(w, "\nwarning: %s\n", warn)
	}
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
	return &cobra.Command{
		Use:   "next",
		Short: "The unit to work on now, or why none is ready",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				info, err := ws.Next("")
				if err != nil {
					return err
				}
				g.painted("next")
				return g.emit(info, func(w io.Writer) {
					if info.Unit != "" {
						fmt.Fprintf(w, "%s (%s) %s\n", info.Unit, info.Status, info.Title)
						return
					}
					fmt.Fprintln(w, "No unit is ready:")
					for _, r := range info.Reasons {
						fmt.Fprintf(w, "  %s\n", r)
					}
				})
			})
		},
	}
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
					fmt.Fprintln(tw, "COMMIT\tTIME\tUNIT\tITER\tEVENT\tSUBJECT")
					for _, r := range rows {
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", short(r.Commit), r.Time, dash(r.Unit), dash(r.Iteration), r.Event, r.Subject)
					}
					tw.Flush()
				})
			})
		},
	}
	cmd.Flags().IntVarP(&limit, "number", "n", 0, "show at most N commits")
	return cmd
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newListCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "Every task under the root with its phase and progress",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
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
					fmt.Fprintln(tw, "TASK\tPHASE\tDONE\tLAST ACTIVITY\tNAME")
					for _, r := range rows {
						if r.State == "archived" {
							fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s (archived: %s)\n", r.Slug, r.Phase, r.Done, r.Total, dash(r.LastActivity), r.Task, strings.TrimPrefix(r.Archive, "refs/tags/"))
							continue
						}
						if r.State != "active" {
							fmt.Fprintf(tw, "%s\t-\t-\t-\t%s\n", r.Slug, r.State)
							continue
						}
						fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\n", r.Slug, r.Phase, r.Done, r.Total, dash(r.LastActivity), r.Task)
					}
					tw.Flush()
				})
			})
		},
	}
}
