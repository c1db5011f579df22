package reconcile

import (
	"fmt"
	"strings"
	"time"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// EventFrom turns one progress.md entry into an event. commits name the
// work commits the entry lists by hash alone. An entry it cannot read fully
// (a bad time, phase or mode) still gives the event with that part left
// out, together with an error saying what was wrong.
func EventFrom(e progresslog.Entry, commits []Commit) (Event, error) {
	ev := Event{Kind: e.Kind, Unit: e.Unit, Iteration: e.Iteration, Line: e.Line}
	var problems []string
	if e.Kind != progresslog.KindOther {
		if t, ok := e.Time(); ok {
			ev.Time = t.UTC().Format(time.RFC3339)
		} else {
			problems = append(problems, fmt.Sprintf("%q is not a time such as 2026-01-14T10:30:00Z", e.Stamp))
		}
	}
	field := func(name string) string {
		v, _ := e.Field(name)
		return strings.TrimSpace(v)
	}
	switch e.Kind {
	case progresslog.KindIteration:
		problems = append(problems, iterationOf(&ev, e, commits)...)
	case progresslog.KindBlocked, progresslog.KindReopened, progresslog.KindPaused, progresslog.KindRestarted:
		ev.Reason = field("Reason")
		if e.Kind == progresslog.KindBlocked {
			ev.ClearWhen = field(FieldClearWhen)
			if msg := readKind(&ev, field(FieldKind), "block kind", state.BlockKinds); msg != "" {
				problems = append(problems, msg)
			}
		}
	case progresslog.KindPinned:
		ev.Reason = field("Reason")
		problems = append(problems, pinsOf(&ev, e)...)
	case progresslog.KindFailed, progresslog.KindSkipped:
		ev.Reason = field("Reason")
		if e.Kind == progresslog.KindFailed {
			if msg := readKind(&ev, field(FieldKind), "failure kind", state.FailKinds); msg != "" {
				problems = append(problems, msg)
			}
		}
	case progresslog.KindConcluded:
		problems = append(problems, outcomeEvent(&ev, field)...)
	case progresslog.KindApproved:
		ev.By, ev.Note = field(FieldBy), field(FieldNote)
	case progresslog.KindRechecked:
		ev.Reason = field(FieldDid)
	case progresslog.KindArchived:
		archivedEvent(&ev, field)
	case progresslog.KindPlanned:
		ev.Dropped = droppedOf(e)
		if len(ev.Dropped) > 0 {
			ev.Reason = field("Reason")
		}
	case progresslog.KindAdopted:
		units, err := parseAdopted(field("Units"))
		if err != nil {
			problems = append(problems, err.Error())
		}
		ev.Adopted, ev.Current = units, field("Current")
		if ph := field("Phase"); ph != "" {
			if p, err := state.ParsePhase(ph); err == nil {
				ev.Phase = p
			}
		}
		for _, c := range strings.Split(field("Commits"), "\n") {
			if c = strings.TrimSpace(c); c != "" {
				ev.Commits = append(ev.Commits, c)
			}
		}
	case progresslog.KindPhase:
		p, err := state.ParsePhase(e.Phase)
		if err != nil {
			ev.Kind = progresslog.KindOther
			problems = append(problems, "phase "+err.Error())
		}
		ev.Phase = p
	case progresslog.KindCreated:
		ev.Name = field("Name")
		ev.Domain = field("Domain")
		if m := field("Mode"); m != "" {
			mode, err := state.ParseMode(m)
			if err != nil {
				problems = append(problems, "mode "+err.Error())
			}
			ev.Mode = mode
		}
	}
	if len(problems) > 0 {
		return ev, fmt.Errorf("entry %q: %s", e.Title(), strings.Join(problems, "; "))
	}
	return ev, nil
}

// iterationOf reads the fields of an iteration entry into ev; it returns
// what did not read.
func iterationOf(ev *Event, e progresslog.Entry, commits []Commit) []string {
	var problems []string
	field := func(name string) string {
		v, _ := e.Field(name)
		return strings.TrimSpace(v)
	}
	ev.Signal = field("Signal")
	ev.Verification = verification(field("Verification"))
	ev.Commits = workCommits(field("Commit"), commits)
	ev.Run, ev.VerifiedBy = RunOf(e), VerifiedByOf(e)
	ev.Checks = ChecksOf(e)
	if pct, ok := ParseProgress(field(FieldProgress)); ok {
		ev.Progress, ev.ProgressDetail = FormatProgress(pct), field(FieldProgressDetail)
	}
	if ev.Run == nil {
		ev.Run = InterruptedRunOf(e)
	}
	if v, ok := e.Field(progresslog.FieldItems); ok {
		marks, err := progresslog.ParseItems(v)
		if err != nil {
			problems = append(problems, "**Items:** "+err.Error()+" (the items were not recorded)")
		}
		ev.Items = marks
	}
	if v, ok := e.Field(progresslog.FieldValues); ok {
		values, err := progresslog.ParseValues(v)
		if err != nil {
			problems = append(problems, "**Values:** "+err.Error()+" (the values were not recorded)")
		}
		ev.Values = values
	}
	problems = append(problems, pinsOf(ev, e)...)
	if v, ok := e.Field(progresslog.FieldMetrics); ok {
		metrics, err := progresslog.ParseMetrics(v)
		if err != nil {
			problems = append(problems, "**Metrics:** "+err.Error()+" (the metrics were not recorded)")
		}
		ev.Metrics = metrics
	}
	return problems
}

// verification reads a **Verification:** value: "passed" (also yes, true,
// pass, ok), "failed" for anything else that is given, "" when absent.
func verification(v string) string {
	if v == "" {
		return ""
	}
	word := strings.ToLower(strings.Fields(v)[0])
	word = strings.TrimRight(word, ".,:;")
	switch word {
	case "passed", "pass", "yes", "true", "ok":
		return "passed"
	}
	return "failed"
}

// workCommits reads a **Commit:** value: one commit a line as
// "abc1234: subject" (or "abc1234 subject"), or several bare hashes on one
// line separated by commas or spaces. Lines that do not start with a hash
// ("None", "-", a placeholder) name no commit. Each commit is given as
// "abc1234: subject", the subject looked up in commits when the log has
// none, the hash shortened to 7 digits as the seed writes it.
func workCommits(value string, commits []Commit) []string {
	var out []string
	for _, line := range strings.Split(value, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if bare := bareHashes(line); bare != nil {
			for _, h := range bare {
				out = append(out, describeCommit(h, "", commits))
			}
			continue
		}
		h := leadingHash(line)
		if h == "" {
			continue
		}
		subject := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line[len(h):]), ":"))
		subject = strings.TrimSuffix(strings.TrimPrefix(subject, "("), ")")
		out = append(out, describeCommit(h, subject, commits))
	}
	return out
}

func describeCommit(hash, subject string, commits []Commit) string {
	hash = strings.ToLower(hash)
	if subject == "" {
		for _, c := range commits {
			if strings.HasPrefix(strings.ToLower(c.Hash), hash) {
				subject = c.Subject
				break
			}
		}
	}
	short := hash
	if len(short) > 7 {
		short = short[:7]
	}
	if subject == "" {
		return short
	}
	return short + ": " + subject
}

// bareHashes returns the hashes of a line made of hashes only, or nil.
func bareHashes(line string) []string {
	fields := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	if len(fields) == 0 {
		return nil
	}
	for _, f := range fields {
		if !isHash(f) {
			return nil
		}
	}
	return fields
}

func leadingHash(line string) string {
	end := strings.IndexAny(line, ": \t(")
	if end < 0 {
		end = len(line)
	}
	if h := line[:end]; isHash(h) {
		return h
	}
	return ""
}

// commitHash is the short hash a "abc1234: subject" line starts with.
func commitHash(c string) string {
	if h := leadingHash(c); h != "" {
		if len(h) > 7 {
			h = h[:7]
		}
		return strings.ToLower(h)
	}
	return c
}

func isHash(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return true
}

// droppedOf reads the **Dropped:** field of a Planned entry: the started
// units removed from the plan on purpose, "T2, T5".
func droppedOf(e progresslog.Entry) []string {
	v, _ := e.Field("Dropped")
	var ids []string
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
		if state.ValidID(f) {
			ids = append(ids, f)
		}
	}
	return ids
}
