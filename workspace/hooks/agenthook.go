package hooks

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode"

	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/workspace/store"
)

// AgentLogFile is where the agents' logging hooks write, in the git folder
// of the working tree: never committed, never in the way.
const AgentLogFile = "itr-agent.log"

// LogAgentEvent appends one line to the agent log: the time, the event,
// the fields given (sorted by name) and, when one task is active, its slug
// and current unit. It is what a PreCompact hook records.
func LogAgentEvent(st *store.Store, event string, fields map[string]string) error {
	line := []string{st.Now().Format("2006-01-02T15:04:05Z"), logWord(event)}
	if slug, err := st.Select(""); err == nil {
		line = append(line, "task="+slug)
		if t, err := st.Load(slug); err == nil && t.State != nil {
			if c := state.Val(t.State.Current); c != "" && t.State.Units[c] != nil {
				u := t.State.Units[c]
				line = append(line, fmt.Sprintf("unit=%s status=%s iterations=%d", c, u.Status, state.Val(u.IterationsUsed)))
			}
		}
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := logValue(fields[k]); v != "" {
			line = append(line, logWord(k)+"="+v)
		}
	}
	path := st.Repo.WorktreeItrPath(AgentLogFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if _, err := f.WriteString(strings.Join(line, " ") + "\n"); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// UnrecordedWork returns why an agent should record a checkpoint before it
// stops: a unit is under way and work commits follow its last checkpoint.
// It returns "" when there is nothing to record or no single active task.
func UnrecordedWork(st *store.Store) (string, error) {
	slug, err := st.Select("")
	if err != nil {
		return "", err
	}
	t, err := st.Load(slug)
	if err != nil || t.State == nil {
		return "", err
	}
	// A unit is under way when the rule book's next move is more work on
	// the current unit, its confirmation or its verification.
	adv := reconcile.Advise(t.State, t.Plan, reconcile.ActivityOf(t.Log().Entries))
	switch adv.Move {
	case reconcile.MoveContinue, reconcile.MoveConfirm, reconcile.MoveVerify:
	default:
		return "", nil
	}
	c := adv.MoveUnit
	u := t.State.Units[c]
	commits, err := st.WorkCommits(t, nil)
	if err != nil || len(commits) == 0 {
		return "", err
	}
	return fmt.Sprintf("%d work commit(s) since the last checkpoint of %s (%s) are not recorded in task %s. "+
		"Record them before stopping: itr checkpoint %s --did \"what this iteration did\" (add --signal when the unit's work is done).",
		len(commits), c, u.Status, slug, c), nil
}

// logWord makes text one word of the agent log: spaces, "=" and control
// characters become "_", so each line parses back as "time event k=v ...".
func logWord(text string) string {
	w := strings.Map(func(r rune) rune {
		if r == '=' || unicode.IsSpace(r) || unicode.IsControl(r) {
			return '_'
		}
		return r
	}, text)
	if w == "" {
		return "_"
	}
	return w
}

// logValue makes text a value of the agent log: control characters
// (escape sequences included) become spaces, and runs of spaces one.
func logValue(text string) string {
	return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, text)), " ")
}
