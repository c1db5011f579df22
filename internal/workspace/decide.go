package workspace

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/clip"
	"github.com/itr-dev/itr/internal/workspace/merge"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// DecideRequest records a settled choice in decisions.md.
type DecideRequest struct {
	Slug string
	// Title is the question the decision settles; a later decision with
	// the same title (progresslog.TitleKey) supersedes the earlier one.
	Title, Choice, Why string
	// Unit is the unit it was decided in; "" is the current unit, if any.
	Unit string
}

// Decide appends a decision to decisions.md as one commit (Itr-Event:
// decision); progress.md and the state do not change. Earlier decisions
// never change: deciding a title again appends the new choice, which is
// the one in force.
func (w *Workspace) Decide(req DecideRequest) (*Outcome, error) {
	for _, f := range []struct{ field, v, fix string }{
		{"title", req.Title, "name the question the decision settles, e.g. \"Storage engine\""},
		{"choice", req.Choice, "say what was chosen"},
		{"why", req.Why, "say why, so later sessions do not argue it again"},
	} {
		if strings.TrimSpace(f.v) == "" {
			return nil, record.Required(f.field, f.fix)
		}
	}
	if err := record.PlainText(w.Config.FieldLimit(), "title", req.Title, "choice", req.Choice, "why", req.Why, "unit", req.Unit); err != nil {
		return nil, err
	}
	if strings.ContainsAny(req.Title, "\r\n") {
		return nil, &FieldError{Field: "title", Problem: "holds a line break", Fix: "give the title on one line; the details go in why"}
	}
	if err := noControls("title", req.Title, "choice", req.Choice, "why", req.Why, "unit", req.Unit); err != nil {
		return nil, err
	}
	return record.Record(w.Store, req.Slug, func(t *store.Task) (*record.Change, error) {
		unit := strings.TrimSpace(req.Unit)
		if unit != "" {
			if t.State.Units[unit] == nil {
				fix := "leave it out for a decision about the whole task"
				if ids := t.State.IDs(); len(ids) > 0 {
					fix = "name one of " + strings.Join(store.FirstN(ids, 20), ", ") + ", or " + fix
				}
				return nil, &FieldError{Field: "unit", Problem: clip.Quote(unit) + " is not a unit of the task", Fix: fix}
			}
		} else {
			unit = state.Val(t.State.Current)
		}
		d := &progresslog.Decision{Title: strings.TrimSpace(req.Title), Choice: strings.TrimSpace(req.Choice),
			Why: strings.TrimSpace(req.Why), Unit: unit, Decided: w.Stamp()}
		c := &record.Change{Decision: d, Event: store.EventDecision, Subject: "decide: " + d.Title}
		// A task made by an older itr may lack the merge line of
		// decisions.md: the first decision brings it, so branches merge
		// their decisions through the driver.
		if attrs, changed, err := merge.Attributes(w.Store); err != nil {
			return nil, err
		} else if changed {
			c.Files = append(c.Files, gitstate.FileChange{Path: w.Root + "/.gitattributes", Data: attrs})
		}
		return c, nil
	})
}

// SummarizeRequest appends a Summary entry to progress.md.
type SummarizeRequest struct {
	Slug string
	// Did is what the work so far came to: everything a reader who starts
	// at this entry needs of the entries before it.
	Did string
}

// Summarize appends a Summary entry ("## Task - Summary - ts") to
// progress.md as one commit: Did in the caller's words and Covers, the
// entries before it that it stands for (all of them: a summary repeats
// what an earlier one said), so a reader may start at the last Summary
// entry. Nothing earlier changes; the state does not either. A log whose
// last entry is already a Summary is refused: there is nothing new to
// summarize.
func (w *Workspace) Summarize(req SummarizeRequest) (*Outcome, error) {
	if strings.TrimSpace(req.Did) == "" {
		return nil, record.Required("did", "say what the work so far came to: what is done, what was decided, what is left")
	}
	if err := record.PlainText(w.Config.FieldLimit(), "did", req.Did); err != nil {
		return nil, err
	}
	if err := noControls("did", req.Did); err != nil {
		return nil, err
	}
	return record.Record(w.Store, req.Slug, func(t *store.Task) (*record.Change, error) {
		entries := t.Log().Entries
		n := len(entries)
		if n == 0 {
			return nil, fmt.Errorf("%s has no entries to summarize", w.Rel(t.Slug, store.ProgressFile))
		}
		last := entries[n-1]
		if last.Kind == progresslog.KindSummary {
			return nil, fmt.Errorf("the last entry of %s (line %d) is already a Summary: nothing was recorded since, so there is nothing new to summarize", w.Rel(t.Slug, store.ProgressFile), last.Line)
		}
		covers := fmt.Sprintf("entries 1–%d, through %s", n, store.OneLine(last.Title(), 120))
		e := &progresslog.Entry{Kind: progresslog.KindSummary, Stamp: w.Stamp(), Fields: []progresslog.Field{
			{Name: "Did", Value: strings.TrimSpace(req.Did)}, {Name: "Covers", Value: covers}}}
		return &record.Change{Entry: e, Event: store.EventSummary, Subject: "summary: " + req.Did}, nil
	})
}

// noControls refuses text fields holding a control character other than
// tab and line breaks (an escape sequence would drive the terminal of
// whoever reads the file) or a bidirectional override (it would show other
// text than is stored). fields are pairs of domain name and value; the
// first offender is named.
func noControls(fields ...string) error {
	for i := 0; i+1 < len(fields); i += 2 {
		for j, r := range fields[i+1] {
			bad := (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
				(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
			if !bad {
				continue
			}
			shown := fmt.Sprintf(`\x%02x`, r)
			if r > 0xff {
				shown = fmt.Sprintf(`\u%04x`, r)
			}
			return &FieldError{Field: fields[i], Problem: fmt.Sprintf("holds the control character %s (at byte %d)", shown, j),
				Fix: "remove it: the text is read by people and agents, and escape sequences would drive their terminals"}
		}
	}
	return nil
}
