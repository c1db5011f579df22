package view

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/state"
)

// The sections of prime's Markdown, one function each, in the order render
// puts them. A section with nothing to say is "", and render leaves it out.

// headSection is the title, the repository, the phase and progress, the
// pace, the phase check and the pause.
func (p *PrimeContext) headSection() string {
	var b strings.Builder
	if p.Archive != "" {
		fmt.Fprintf(&b, "# itr: task `%s` is archived — %s\n\n", p.Slug, quote(p.Task, 100))
		fmt.Fprintf(&b, "Read from %s; its folder is not in the working tree (branch %s at %s).\n", p.Archive, orDash(p.Branch), orDash(p.Head))
	} else {
		b.WriteString(p.resumingTitle())
	}
	fmt.Fprintf(&b, "Phase %s; %s.\n", p.Phase, p.Progress)
	if p.Pace != nil && p.Archive == "" {
		fmt.Fprintf(&b, "Pace: %s.\n", p.Pace)
	}
	if p.PhaseHint != "" {
		fmt.Fprintf(&b, "Phase check: %s.\n", p.PhaseHint)
	}
	b.WriteString(p.pausedLine())
	b.WriteString(p.outcomeLine())
	return b.String()
}

// outcomeLine says how the task ended, when it has: for an active task,
// that it takes no more work and what comes next.
func (p *PrimeContext) outcomeLine() string {
	o := p.Outcome
	if o == nil {
		return ""
	}
	since := ""
	if o.At != "" {
		since = " (since " + o.At + ")"
	}
	if p.Archive != "" {
		return fmt.Sprintf("Outcome: %s%s.\n", outcomeWords(o), since)
	}
	return fmt.Sprintf("**The task is concluded**: %s%s. It takes no more work: `itr archive` archives it; a person takes it back to work with `itr resume`.\n", outcomeWords(o), since)
}

// resumingTitle opens the prime of an active task: its title, how to read
// quoted text, its goal and the state of the repository.
func (p *PrimeContext) resumingTitle() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# itr: resuming task `%s` — %s\n\n", p.Slug, quote(p.Task, 100))
	b.WriteString(quoteNote)
	if p.Goal != "" {
		fmt.Fprintf(&b, "Goal: %s\n", quote(p.Goal, 1000))
	}
	fmt.Fprintf(&b, "Repository: branch %s at %s; task folder %s.\n", orDash(p.Branch), orDash(p.Head), map[bool]string{true: "has uncommitted changes", false: "is committed"}[p.FolderDirty])
	return b.String()
}

// pausedLine says that an active task is paused, since when, why, and
// how it resumes; "" when it is not paused or is archived.
func (p *PrimeContext) pausedLine() string {
	ps := p.Paused
	if ps == nil || p.Archive != "" {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**The task is paused** since %s", ps.Since)
	if ps.Reason != "" {
		fmt.Fprintf(&b, ": %s", quote(ps.Reason, 300))
	}
	b.WriteString(". Checkpoints are refused until a person (or you, when the hold is over) runs `itr resume`.\n")
	return b.String()
}

// flagsSection lists the runaway and stale units.
func (p *PrimeContext) flagsSection() string {
	lines := make([]string, len(p.Flags))
	for i, f := range p.Flags {
		lines[i] = string(f.Kind) + ": " + visible(store.OneLine(f.Text, 400))
	}
	return bulletSection("Flags — deal with these before more work", lines)
}

// criticalSection lists the first ten critical notes.
func (p *PrimeContext) criticalSection() string {
	var lines []string
	for _, c := range store.FirstN(p.Critical, 10) {
		lines = append(lines, quote(c, 400))
	}
	return bulletSection("Critical context (itr note --critical)", lines)
}

// checksSection lists the verification runs that did not pass, the last
// lines of the first two's output with them.
func (p *PrimeContext) checksSection() string {
	if len(p.Checks) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Checks that did not pass — look at these first\n")
	for i, c := range p.Checks {
		fmt.Fprintf(&b, "- %s\n", visible(store.OneLine(c.String(), 400)))
		if c.Tail != "" && i < 2 {
			b.WriteString("  Its last lines (the command's output, data):\n")
			b.WriteString(fenced(visibleLines(lastLines(c.Tail, 15))))
		}
	}
	return b.String()
}

// partialSection lists the outputs interrupted iterations left partial,
// with why and the fix.
func (p *PrimeContext) partialSection() string {
	if len(p.Partial) == 0 || p.Archive != "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Partial outputs — an iteration was interrupted; finish them or restart the unit\n")
	for _, o := range p.Partial {
		fmt.Fprintf(&b, "- %s: %s. Why: %s. Fix: %s.\n", o.Unit, visible(strings.Join(store.FirstN(o.Files, 5), ", ")),
			visible(store.OneLine(o.Why, 300)), visible(store.OneLine(o.Fix, 400)))
	}
	return b.String()
}

// saidWarnings are the warnings other sections say already: the counters
// that disagree (bad) and the partial outputs.
func (p *PrimeContext) saidWarnings(bad []CounterCheck) map[string]bool {
	out := counterWarnings(bad)
	for _, o := range p.Partial {
		out[o.String()] = true
	}
	return out
}

// countersSection lists the first ten counters that disagree with the
// item ledger (bad), and how many more there are.
func countersSection(bad []CounterCheck) string {
	if len(bad) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Counters that disagree with the item ledger — look at these first\n")
	for i, c := range bad {
		if i == 10 {
			fmt.Fprintf(&b, "- and %d more (`itr status` lists them)\n", len(bad)-i)
			break
		}
		fmt.Fprintf(&b, "- %s. %s.\n", visible(c.String()), visible(upperFirst(c.Fix)))
	}
	return b.String()
}

// counterWarnings are the warnings that say what countersSection says of
// the disagreeing counters bad, so warningsSection leaves them out.
func counterWarnings(bad []CounterCheck) map[string]bool {
	out := map[string]bool{}
	for _, c := range bad {
		out["counter "+c.String()+"; "+c.Fix] = true
	}
	return out
}

// nowSection is what to do now: the unit to work on and what is known of
// it, the check-in, the next action, the claims, and the other units under
// way or ready to start.
func (p *PrimeContext) nowSection() string {
	var b strings.Builder
	c, heading := p.nowUnit()
	if c != nil {
		b.WriteString(p.unitBlock(c, heading))
		b.WriteString("\n")
	}
	if p.CheckIn != "" {
		fmt.Fprintf(&b, "Check in first: %s.\n", p.CheckIn)
	}
	fmt.Fprintf(&b, "Next action: %s.\n", p.NextAction)
	b.WriteString(p.claimsLines())
	b.WriteString(p.startedLine())
	b.WriteString(p.readyLines(c))
	return b.String()
}

// nowUnit is the unit the now block is about, and its heading: the current
// unit, unless another is to be worked on and the current one is not
// blocked or timed out; then the unit to resume or start. It is nil when
// there is neither.
func (p *PrimeContext) nowUnit() (*UnitStatus, string) {
	c := p.Current
	if c != nil && (p.Work == nil || c.ID == p.Work.ID || c.Status == string(state.Blocked) || c.Status == string(state.Timeout)) {
		return c, "Current unit"
	}
	// No current unit open to work: the one to resume or start.
	c = p.Work
	if c != nil && c.Status == string(state.Pending) {
		return c, "Next unit"
	}
	return c, "Unit to resume"
}

// unitBlock is unit c under heading with what is known of it: its own
// progress, items and counters, its newest iteration, what is not
// committed yet, what the plan says of it and what it receives.
func (p *PrimeContext) unitBlock(c *UnitStatus, heading string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s: %s %s — %s, iteration %s\n", heading, c.ID, quote(c.Title, 80), c.Status, iterText(*c))
	if c.Progress != "" {
		fmt.Fprintf(&b, "- Its own progress: %s", c.Progress)
		if c.ProgressDetail != "" {
			fmt.Fprintf(&b, " (%s)", quote(c.ProgressDetail, 200))
		}
		b.WriteString("\n")
	}
	if c.Items != nil {
		fmt.Fprintf(&b, "- Items: %s. Record them with `itr checkpoint %s --item ID[=%s]`", c.Items.Text(), c.ID, c.Items.StatesHint())
		if c.Items.Where != "" {
			fmt.Fprintf(&b, " (states declared at %s)", c.Items.Where)
		}
		b.WriteString(".\n")
		if kv := c.Items.KeyValues(5, 120); kv != "" {
			fmt.Fprintf(&b, "- Key values (%s): %s. Record values with `--value ID:NAME=TEXT`.\n", c.Items.KeyValue, kv)
		}
	}
	if len(c.Metrics) > 0 {
		fmt.Fprintf(&b, "- Metrics: %s. Record them with `--metric NAME=N`.\n", visible(MetricsText(c.Metrics)))
	}
	for _, k := range p.Counters {
		if k.Unit == c.ID && k.Agrees {
			fmt.Fprintf(&b, "- Counter %s (agrees with the ledger).\n", visible(k.Text))
		}
	}
	b.WriteString(whoLines(c))
	b.WriteString(p.iterationLines(c))
	b.WriteString(p.uncommittedLines(c))
	b.WriteString(p.planLines(c))
	b.WriteString(p.handoffLines(c))
	return b.String()
}

// whoLines are when unit c's attempt started (and how often it was
// restarted), who recorded its newest iteration, and the plan's model
// where it differs from the one that iteration ran on.
func whoLines(c *UnitStatus) string {
	var b strings.Builder
	if c.StartedAt != "" || c.Restarts > 0 {
		b.WriteString("- Started: " + orDash(c.StartedAt))
		if c.Restarts > 0 {
			fmt.Fprintf(&b, " (restarted %d time%s; its iterations before count too)", c.Restarts, store.Plural(c.Restarts, "", "s"))
		}
		b.WriteString("\n")
	}
	if c.Agent != "" {
		fmt.Fprintf(&b, "- Last iteration by: %s", quote(c.Agent, 100))
		if c.Model != "" {
			fmt.Fprintf(&b, " on model %s", quote(c.Model, 100))
		}
		b.WriteString("\n")
	}
	if c.PlanModel != "" {
		fmt.Fprintf(&b, "- Model: the plan says %s; its last iteration ran on %s\n", quote(c.PlanModel, 100), quote(c.Model, 100))
	}
	return b.String()
}

// iterationLines are unit c's reopening and what its newest iteration
// did, left and was blocked by.
func (p *PrimeContext) iterationLines(c *UnitStatus) string {
	var b strings.Builder
	l := p.Last
	if p.WorkLast != nil && p.WorkLast.Unit == c.ID {
		l = p.WorkLast
	}
	if r := p.WorkReopened; r != nil && r.Unit == c.ID {
		fmt.Fprintf(&b, "- Reopened: %s (%s; its verification no longer holds)\n", quote(r.Reason, 300), visible(r.Time))
	}
	if l != nil && l.Unit == c.ID {
		fmt.Fprintf(&b, "- Last did: %s\n", quote(l.Did, 300))
		fmt.Fprintf(&b, "- Remaining: %s\n", quote(l.Remaining, 300))
		fmt.Fprintf(&b, "- Blockers: %s\n", quote(l.Blockers, 300))
	}
	return b.String()
}

// uncommittedLines are unit c's entries appended to the log but not
// committed yet.
func (p *PrimeContext) uncommittedLines(c *UnitStatus) string {
	var b strings.Builder
	for _, f := range p.sum.sit.unsaved {
		for _, e := range f.Appended {
			if e.Unit == c.ID {
				did, _ := e.Field("Did")
				rem, _ := e.Field("Remaining")
				fmt.Fprintf(&b, "- Not committed yet (a session stopped before its commit; `itr reconcile` records it): %s did %s; Remaining %s\n", entryName(e), quote(did, 300), quote(rem, 300))
			}
		}
	}
	return b.String()
}

// planLines are what the plan says of unit c when it is the unit to work
// on: its fields, the rules its outputs must pass and its check.
func (p *PrimeContext) planLines(c *UnitStatus) string {
	pu := p.WorkPlan
	if pu == nil || p.Work == nil || c.ID != p.Work.ID {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "- From %s:%d:\n", pu.File, pu.Line)
	for _, f := range []struct{ name, value string }{
		{"Details", pu.Details}, {"Criteria", pu.Criteria}, {"Files", pu.Files},
		{"Model", pu.Model}, {"Output", pu.Output}, {"Completion signal", pu.Signal},
	} {
		if f.value != "" {
			fmt.Fprintf(&b, "  - %s: %s\n", f.name, quote(strings.ReplaceAll(f.value, "\n", " "), 300))
		}
	}
	if pu.OutputRules != "" {
		// itr's own words, not the plan's: unquoted.
		fmt.Fprintf(&b, "  - The outputs must be %s before --signal or --verified (itr checks them).\n", pu.OutputRules)
	}
	if pu.Check != "" {
		fmt.Fprintf(&b, "  - Check: %s; `itr checkpoint %s --verify` runs it (add --signal or --verified: it counts only if it passes).\n", quote(pu.Check, 300), c.ID)
	}
	return b.String()
}

// handoffLines are what unit c receives from the units before it.
func (p *PrimeContext) handoffLines(c *UnitStatus) string {
	h := p.Handoff
	if h == nil || h.Unit != c.ID {
		return ""
	}
	var b strings.Builder
	for _, l := range h.Lines(200) {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	return b.String()
}

// claimsLines say which agent this session acts as, the units it holds,
// those other agents hold and those whose lease ended; "" without claims
// or when the task is archived.
func (p *PrimeContext) claimsLines() string {
	cl := p.sum.Claims
	if len(cl) == 0 || p.Archive != "" {
		return ""
	}
	mine, others, ended := p.claimGroups(cl)
	var b strings.Builder
	fmt.Fprintf(&b, "You act as agent %s.", quote(p.sum.Agent, 80))
	if len(mine) > 0 {
		fmt.Fprintf(&b, " You hold: %s (each checkpoint renews it; `itr release UNIT` when done).", strings.Join(store.FirstN(mine, 10), "; "))
	}
	b.WriteString("\n")
	if len(others) > 0 {
		fmt.Fprintf(&b, "Held by other agents (leave these to them): %s.\n", strings.Join(store.FirstN(others, 10), "; "))
	}
	if len(ended) > 0 {
		fmt.Fprintf(&b, "Claims whose lease ended (take one with `itr claim UNIT --steal`): %s.\n", strings.Join(store.FirstN(ended, 10), "; "))
	}
	return b.String()
}

// claimGroups words the claims cl in three groups: those this session's
// agent holds, those other agents hold or finished, and those whose lease
// ended.
func (p *PrimeContext) claimGroups(cl []store.Claim) (mine, others, ended []string) {
	at := p.sum.now
	for _, c := range cl {
		switch {
		case c.Agent == p.sum.Agent && c.Finished == "":
			mine = append(mine, fmt.Sprintf("%s until %s", c.Unit, c.Until))
		case c.Until != "" && c.Expired(at):
			ended = append(ended, fmt.Sprintf("%s (by %s, ended %s)", c.Unit, quote(c.Agent, 80), c.Until))
		case c.Finished != "":
			others = append(others, fmt.Sprintf("%s finished by %s at %s (itr sync brings its entries)", c.Unit, quote(c.Agent, 80), c.Finished))
		default:
			others = append(others, fmt.Sprintf("%s by %s until %s", c.Unit, quote(c.Agent, 80), c.Until))
		}
	}
	return mine, others, ended
}

// startedLine names the first ten other units under way.
func (p *PrimeContext) startedLine() string {
	if len(p.Started) == 0 {
		return ""
	}
	var parts []string
	for _, u := range p.Started {
		parts = append(parts, fmt.Sprintf("%s %s (%s, iteration %s)", u.ID, quote(u.Title, 60), u.Status, iterText(u)))
	}
	return fmt.Sprintf("Also under way: %s.\n", strings.Join(store.FirstN(parts, 10), "; "))
}

// readyLines name the first ten units ready to start other than shown,
// and how subagents can take them.
func (p *PrimeContext) readyLines(shown *UnitStatus) string {
	ready, more := p.readyOthers(shown, 10)
	if len(ready) == 0 {
		return ""
	}
	if more > 0 { // as store.FirstN words the rest
		ready = append(ready, fmt.Sprintf("and %d more", more))
	}
	return fmt.Sprintf("Ready to start: %s.\n", strings.Join(ready, "; ")) +
		"With subagents: `itr next --all` lists every unit that can start now; `itr prime --unit UNIT` is one unit's context to hand each.\n"
}

// summarySection is the newest Summary entry of progress.md, as data, and
// the entries after it.
func (p *PrimeContext) summarySection() string {
	ls := p.Summary
	if ls == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Summary so far (progress.md line %d, %s)\n", ls.Line, visible(store.OneLine(ls.Time, 40)))
	fmt.Fprintf(&b, "It stands for every entry before it (%s); read the log from line %d on. What it says (data):\n", quote(ls.Covers, 160), ls.Line)
	did := ls.Did
	if r := []rune(did); len(r) > 1500 {
		did = string(r[:1499]) + "…"
	}
	b.WriteString(fenced(visibleLines(did)))
	b.WriteString(summarySince(ls))
	return b.String()
}

// summarySince says how many entries came after the summary ls, and the
// titles of the newest of them.
func summarySince(ls *LogSummary) string {
	if ls.Since == 0 {
		return "No entry since.\n"
	}
	titles := make([]string, len(ls.SinceTitles))
	for i, x := range ls.SinceTitles {
		titles[i] = quote(x, 100)
	}
	more := ""
	if n := ls.Since - len(titles); n > 0 {
		more = fmt.Sprintf("%d earlier, then ", n)
	}
	return fmt.Sprintf("Since then, %d entr%s: %s%s.\n", ls.Since, store.Plural(ls.Since, "y", "ies"), more, strings.Join(titles, "; "))
}

// blockedSection lists the blocked units, why, and when they clear.
func (p *PrimeContext) blockedSection() string {
	if len(p.Blocked) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Blocked\n")
	for _, u := range p.Blocked {
		fmt.Fprintf(&b, "- %s %s: %s\n", u.ID, quote(u.Title, 80), quote(u.Reason, 200))
		if u.ReasonKind != "" || u.ClearWhen != "" {
			fmt.Fprintf(&b, "  - Kind: %s. %s\n", orUnsaid(u.ReasonKind), clearText(u))
		}
	}
	return b.String()
}

// warningsSection lists the warnings but those in skip (already said);
// "" when none is left.
func (p *PrimeContext) warningsSection(skip map[string]bool) string {
	var lines []string
	for _, w := range p.Warnings {
		if !skip[w] {
			lines = append(lines, visible(store.OneLine(w, 300)))
		}
	}
	return bulletSection("Warnings", lines)
}

// bulletSection is a section of one bullet a line under its heading, ""
// without lines.
func bulletSection(heading string, lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## " + heading + "\n")
	for _, l := range lines {
		b.WriteString("- " + l + "\n")
	}
	return b.String()
}

// verificationSection is the newest verification in the log, and whether
// its unit was reopened since.
func (p *PrimeContext) verificationSection() string {
	if p.Verification == "" {
		return ""
	}
	if u := p.verificationReopened; u != "" {
		return fmt.Sprintf("Last verification: %s; %s was reopened since.\n", quote(p.Verification, 200), u)
	}
	return fmt.Sprintf("Last verification: %s.\n", quote(p.Verification, 200))
}

// commandsSection is the command lines accepted now, itr's own in
// backquotes.
func (p *PrimeContext) commandsSection() string {
	cmds := make([]string, len(p.Commands))
	for i, c := range p.Commands {
		cmds[i] = c
		if strings.HasPrefix(c, "itr ") {
			cmds[i] = "`" + c + "`"
		}
	}
	return "Commands: " + strings.Join(cmds, "; ") + ".\n"
}

// doNotRepeatSection names the done units.
func (p *PrimeContext) doNotRepeatSection() string {
	if len(p.DoNotRepeat) == 0 {
		return ""
	}
	out := "Done, do not repeat: " + strings.Join(p.DoNotRepeat, ", ") + ".\n"
	if len(p.DoneOutputs) > 0 {
		parts := make([]string, len(p.DoneOutputs))
		for i, o := range p.DoneOutputs {
			parts[i] = o.String()
		}
		out += "Done outputs: " + strings.Join(parts, "; ") + ".\n"
	}
	return out
}

// decisionsSection lists the settled decisions, and how many older ones
// it leaves out.
func (p *PrimeContext) decisionsSection() string {
	if len(p.Decisions) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Settled decisions (decisions.md) — do not argue these again; `itr decide` with the same title replaces one\n")
	if p.DecisionsMore > 0 {
		fmt.Fprintf(&b, "- (%d older ones in decisions.md)\n", p.DecisionsMore)
	}
	for _, d := range p.Decisions {
		fmt.Fprintf(&b, "- %s → %s\n", quote(d.Title, 100), quote(d.Choice, 200))
	}
	return b.String()
}

// remainingSection lists the units not yet done, at most remainingMax.
func (p *PrimeContext) remainingSection() string {
	if len(p.Remaining) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Remaining units\n")
	// More than fit in a prime are never worded: the cut keeps a few
	// dozen anyway.
	for i, u := range p.Remaining {
		if i == remainingMax {
			fmt.Fprintf(&b, "- and %d more (`itr status` lists them)\n", len(p.Remaining)-i)
			break
		}
		fmt.Fprintf(&b, "- %s %s (%s)\n", u.ID, quote(u.Title, 80), u.Status)
	}
	return b.String()
}

// cutToSize joins the sections in order while they fit primeTarget, cuts
// the first that does not to whole lines, says how many were cut (and,
// for a cut section that files holds the text of, which files to read),
// and never passes primeMax.
func cutToSize(sections []string, files map[string]string) string {
	var out strings.Builder
	for i, s := range sections {
		if out.Len()+len(s)+1 > primeTarget {
			rest := len(sections) - i
			tail := fmt.Sprintf("\n(%d more section%s cut to keep this short; `itr status` shows everything%s.)\n", rest, store.Plural(rest, "", "s"), readYourself(sections[i:], files))
			if cut := primeTarget - out.Len() - len(tail) - 1; cut > 200 {
				out.WriteString("\n" + truncateLines(s, cut))
			}
			out.WriteString(tail)
			break
		}
		if i > 0 {
			out.WriteByte('\n')
		}
		out.WriteString(s)
	}
	md := out.String()
	if len(md) > primeMax {
		md = md[:primeMax-40] + "\n…(cut at 10,000 characters)\n"
	}
	return md
}

// nonEmpty are the sections that have something to say, in order.
func nonEmpty(sections []string) []string {
	var out []string
	for _, s := range sections {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
