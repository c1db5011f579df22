package hooks

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/state"
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
// stops: a unit is under way, work commits follow its last checkpoint,
// and the rule book's advice (next, read by the caller with everything
// status reads) accepts a checkpoint of it now. When a hold refuses every
// checkpoint (the task paused, its budget spent, a log not committed) the
// work is named with the hold and what clears it instead. It returns ""
// when there is nothing to record or no single active task.
func UnrecordedWork(st *store.Store, next func(slug string) (Advice, error)) (string, error) {
	slug, err := st.Select("")
	if err != nil {
		return "", err
	}
	t, err := st.LoadLight(slug)
	if err != nil || t.State == nil {
		return "", err
	}
	adv, err := next(slug)
	if err != nil {
		return "", err
	}
	c, held := adv.Unit, adv.Hold != ""
	if c == "" {
		c = state.Val(t.State.Current)
	}
	u := t.State.Units[c]
	if u == nil || !u.Status.Started() {
		return "", nil
	}
	commits, err := st.WorkCommits(t, nil)
	if err != nil || len(commits) == 0 {
		return "", err
	}
	if held {
		return fmt.Sprintf("%d work commit(s) since the last checkpoint of %s (%s) are not recorded in task %s, and no checkpoint is accepted now: %s. "+
			"Say so to the person before stopping.", len(commits), c, u.Status, slug, adv.Hold), nil
	}
	if adv.Command == "" {
		return "", nil
	}
	return fmt.Sprintf("%d work commit(s) since the last checkpoint of %s (%s) are not recorded in task %s. "+
		"Record them before stopping: %s.",
		len(commits), c, u.Status, slug, adv.Command), nil
}

// Advice is what UnrecordedWork needs of the rule book's advice: the unit
// a checkpoint is accepted for and its command line, or the hold in words
// (with what clears it) when none is.
type Advice struct {
	Unit, Command, Hold string
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

// CompactedFile marks, in the git folder of the working tree, that an
// agent compacted (compressed) its session: the pre-compact hook writes it
// with the session's id, and the next prompt's hook of that session takes
// it and gives the resume context back. It serves the agents whose
// SessionStart does not fire after a compaction (Gemini CLI).
const CompactedFile = "itr-compacted"

// MarkCompacted records that session is being compacted.
func MarkCompacted(st *store.Store, session string) error {
	path := st.Repo.WorktreeItrPath(CompactedFile)
	if err := os.WriteFile(path, []byte(logValue(session)+"\n"), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// CompactionPending reports whether a compaction of session waits for its
// context: the mark is there and names session, or either has no id (an
// agent that sends none). A mark another session left stays for it.
func CompactionPending(st *store.Store, session string) bool {
	data, err := os.ReadFile(st.Repo.WorktreeItrPath(CompactedFile))
	if err != nil {
		return false
	}
	marked := strings.TrimSpace(string(data))
	session = logValue(session)
	return marked == "" || session == "" || marked == session
}

// TakeCompaction removes the mark of a pending compaction of session and
// reports whether this call took it: of hooks racing for one mark, one
// wins, so the context comes back exactly once.
func TakeCompaction(st *store.Store, session string) bool {
	if !CompactionPending(st, session) {
		return false
	}
	return os.Remove(st.Repo.WorktreeItrPath(CompactedFile)) == nil
}
