package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// RunMarker is what a verification run in progress leaves in the git
// directory of its worktree until it is recorded: the next command tells
// a run under way from one that itr could not finish (itr was killed).
type RunMarker struct {
	Slug    string `json:"slug"`
	Unit    string `json:"unit"`
	Command string `json:"command"`
	Started string `json:"started"`
	Commit  string `json:"commit"`
	PID     int    `json:"pid"`
	Host    string `json:"host"`
	// Argv is the command given on the command line (--verify -- ARGV),
	// so an interrupted run can be made again as it was; none when the
	// unit's Verify line ran.
	Argv []string `json:"argv,omitempty"`
}

// markerPrefix starts the names of the markers, "itr-check-<slug>--<unit>.json".
const markerPrefix = "itr-check-"

func (s *Store) markerPath(slug, unit string) string {
	return s.Repo.WorktreeItrPath(markerPrefix + slug + "--" + unit + ".json")
}

// MarkRun leaves the marker of a run; the returned func removes it. A
// run of the unit that is still going refuses a second one.
func (s *Store) MarkRun(m RunMarker) (func(), error) {
	if old, ok := s.RunMarker(m.Slug, m.Unit); ok && old.Alive() {
		return nil, fmt.Errorf("a check of %s is already running (%s, started %s by itr process %d); wait for it, or stop that process", old.Unit, old.Command, old.Started, old.PID)
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	p := s.markerPath(m.Slug, m.Unit)
	if err := os.WriteFile(p, append(data, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("record the run in %s: %w", p, err)
	}
	return func() { s.ForgetRun(m.Slug, m.Unit) }, nil
}

// ForgetRun removes the marker of a unit's run.
func (s *Store) ForgetRun(slug, unit string) { _ = os.Remove(s.markerPath(slug, unit)) }

// RunMarker returns the marker of a unit's run, if there is one.
func (s *Store) RunMarker(slug, unit string) (RunMarker, bool) {
	return readMarker(s.markerPath(slug, unit))
}

func readMarker(p string) (RunMarker, bool) {
	var m RunMarker
	data, err := os.ReadFile(p)
	if err != nil || json.Unmarshal(data, &m) != nil || m.Unit == "" {
		return RunMarker{}, false
	}
	return m, true
}

// RunMarkers returns the markers of the task's runs, in unit order.
func (s *Store) RunMarkers(slug string) []RunMarker {
	names, _ := filepath.Glob(s.Repo.WorktreeItrPath(markerPrefix + slug + "--*.json"))
	sort.Strings(names)
	var out []RunMarker
	for _, n := range names {
		if m, ok := readMarker(n); ok && m.Slug == slug {
			out = append(out, m)
		}
	}
	return out
}

// Alive reports whether the itr that made the run is still running it:
// on this host, a process with its pid exists.
func (m RunMarker) Alive() bool {
	if m.Host != Hostname() || m.PID <= 0 {
		return false
	}
	return processExists(m.PID)
}

// String words the marker for people and agents.
func (m RunMarker) String() string {
	if !m.Alive() {
		return fmt.Sprintf("the check of %s (%s, started %s at %s) was interrupted before itr could record it (itr was stopped); the unit's next checkpoint records it",
			m.Unit, m.Command, m.Started, m.Commit)
	}
	return fmt.Sprintf("the check of %s (%s) is running since %s (itr process %d)", m.Unit, m.Command, m.Started, m.PID)
}

// Hostname is this machine's name, "" when it has none.
func Hostname() string {
	h, _ := os.Hostname()
	return h
}
