// Package verify proves a task's history without changing anything: each
// committed version of progress.md, guardrails.md and decisions.md extends the one
// before (along first parents and through merged branches), state.json is
// the fold of the log, every entry came with a commit of its own, and the
// archive refs resolve. It also finds undos: commits made without itr that
// took committed entries out (FindUndos), which reconcile and the next
// write put back.
//
// Every finding's fix is a command that repairs it as the history is (a
// scenario of testdata/script follows each one as printed). A break of the
// append-only history stays open until a later commit puts back the
// version before it (then appends): that commit is a repair, not a new
// break, and the break is listed as repaired. What history keeps for good
// (a rewrite on a merged branch, a merge that wrote entries, an itr commit
// that did not add one entry) is resolved by a correction entry appended
// later, "## Correction of <commit>".
//
// A verify that found nothing remembers how far it walked (cache.go):
// the next one checks only the commits made since, and does not fold the
// log again for the same bytes. What it reports is always what the whole
// walk reports (ITR_VERIFY_NO_CACHE=1 walks it whole); a rewrite of history
// or of a log is walked whole.
package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"strconv"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/index"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// Finding is one problem itr verify found.
type Finding struct {
	File    string `json:"file"`
	Commit  string `json:"commit,omitempty"`
	Problem string `json:"problem"`
	Fix     string `json:"fix"`
	Diff    string `json:"diff,omitempty"`
}

// Report is the result of itr verify.
type Report struct {
	Slug     string    `json:"task"`
	Commits  int       `json:"commits_checked"`
	Findings []Finding `json:"findings"`
	// Repaired lists breaks of the append-only history that a later
	// commit undid (it put the log back as it was before the break, then
	// appended), and commits that history keeps that a correction entry
	// records: named, not counted as findings.
	Repaired []Finding `json:"repaired,omitempty"`
	// Warnings are what needs a look but proves nothing wrong with the
	// history: a plan's counter whose file disagrees with the items
	// recorded done (the work on disk, not the log), a done unit's output
	// over what an agent reads whole. They do not count as findings.
	Warnings []Finding `json:"warnings,omitempty"`
	// Shallow is set when the repository is a shallow clone whose history
	// was cut after the task began: what was checked, from where.
	Shallow *Shallow `json:"shallow,omitempty"`
}

// Shallow says where a shallow clone cut a task's history: the boundary
// commit (taken as given: its logs are the base, nothing of it is checked)
// and the commits of the line after it, which were checked.
type Shallow struct {
	Boundary string `json:"boundary"`
	Commits  int    `json:"commits"`
}

// Note is the sentence itr verify prints about the cut.
func (s *Shallow) Note() string {
	return fmt.Sprintf("shallow clone: checked %d commit%s from the shallow boundary at %s (its logs taken as given) to HEAD; the history before it is not in this clone: `git fetch --unshallow` fetches it, and verify then checks it all",
		s.Commits, store.Plural(s.Commits, "", "s"), store.Short(s.Boundary))
}

// Request is what Run checks (Slug, empty for the active task) and whom it
// tells how far the walk got: Progress, when set, is called after each
// commit of the task's line is checked, with the commits checked and the
// commits this walk checks (those since a remembered walk, or all).
type Request struct {
	Slug     string
	Progress func(done, total int)
}

// Task is Run without progress.
func Task(st *store.Store, slug string) (*Report, error) { return Run(st, Request{Slug: slug}) }

// Run checks a task without changing anything: each committed version
// of progress.md, guardrails.md and decisions.md extends the one before it; state.json is
// the fold of the log; the plan is valid; every entry of the log came with
// a commit of its own.
func Run(st *store.Store, req Request) (*Report, error) {
	slug := req.Slug
	if slug == "" && st.Task == "" {
		// No task active, only archives: check the archive refs.
		if slugs, err := st.Slugs(); err == nil && len(slugs) == 0 {
			if refs, err := st.ArchiveRefs(); err == nil && len(refs) > 0 {
				found, err := ArchiveFindings(st)
				if err != nil {
					return nil, err
				}
				more, err := IndexFindings(st)
				if err != nil {
					return nil, err
				}
				found = append(found, more...)
				return &Report{Slug: store.ArchivePattern, Findings: append([]Finding{}, found...)}, nil
			}
		}
	}
	slug, err := st.Select(slug)
	if err != nil {
		return nil, err
	}
	t, err := st.Load(slug)
	if err != nil {
		return nil, err
	}
	rep := &Report{Slug: slug, Findings: []Finding{}}
	add := func(f Finding) { rep.Findings = append(rep.Findings, f) }
	progressRel, stateRel := st.Rel(slug, store.ProgressFile), st.Rel(slug, store.StateFile)

	// Append-only, commit by commit, and one entry per itr commit.
	v := &verifier{st: st, t: t, slug: slug, rep: rep, progressFn: req.Progress, prefixes: &prefixDigests{data: t.ProgressRaw},
		progress: &track{rel: progressRel, head: t.ProgressRaw, headHash: t.HeadFiles[store.ProgressFile]},
		guard:    &track{rel: st.Rel(slug, store.GuardrailsFile), guard: true, kind: lessonsLog, head: t.GuardrailsRaw, headHash: t.HeadFiles[store.GuardrailsFile]},
		decide:   &track{rel: st.Rel(slug, store.DecisionsFile), guard: true, kind: decisionsLog, head: t.DecisionsRaw, headHash: t.HeadFiles[store.DecisionsFile]}}
	if err := v.history(); err != nil {
		return nil, err
	}
	v.findings()

	// state.json is the fold (unless the same bytes were found to be
	// before: cache.go).
	key, keyed := foldKey(st, t)
	if keyed && foldClean(st, slug, key) {
		foldSkips.Add(1)
		if err := v.rest(st, t); err != nil {
			return nil, err
		}
		return rep, nil
	}
	before := len(rep.Findings)
	if t.PlanErr != nil {
		add(Finding{File: st.Rel(slug, t.PlanName), Problem: t.PlanErr.Error(), Fix: "fix the plan, then run `itr plan`"})
	}
	if t.StateErr != nil {
		add(Finding{File: stateRel, Commit: t.Head.Hash, Problem: t.StateErr.Error(), Fix: "run `itr reconcile`"})
	} else {
		derived, problems := reconcile.Fold(reconcile.Input{Slug: slug, Base: t.State, Plan: t.Plan, Entries: t.Log().Entries})
		for _, d := range reconcile.Diff(t.State, derived, t.Plan) {
			add(Finding{File: stateRel, Commit: t.Head.Hash, Problem: "differs from the log: " + d.String(), Fix: "run `itr reconcile`"})
		}
		if t.State.Outdated() {
			was := "has no schema_version"
			if t.State.SchemaVersion > 0 {
				was = fmt.Sprintf("has schema_version %d", t.State.SchemaVersion)
			}
			add(Finding{File: stateRel, Commit: t.Head.Hash, Problem: fmt.Sprintf("%s (written by an older itr; the current is %d)", was, state.CurrentSchema),
				Fix: "run `itr reconcile` to migrate it (one Reconciled entry)"})
		} else if !bytes.Equal(derived.Encode(), t.StateRaw) && len(reconcile.Diff(t.State, derived, t.Plan)) == 0 {
			add(Finding{File: stateRel, Commit: t.Head.Hash, Problem: "not in itr's canonical form", Fix: "run `itr reconcile`",
				Diff: progresslog.LineDiff(string(t.StateRaw), string(derived.Encode()))})
		}
		for _, p := range problems {
			if p.Note {
				continue
			}
			add(Finding{File: progressRel, Commit: t.Head.Hash, Problem: p.Msg, Fix: fmt.Sprintf("see line %d; entries are never edited: append a correcting entry", p.Line)})
		}
	}
	for _, p := range t.Log().Problems {
		add(Finding{File: fmt.Sprintf("%s:%d", progressRel, p.Line), Problem: p.Msg, Fix: "entries are never edited: append a correcting entry"})
	}
	if t.Log().Conflicted {
		add(Finding{File: progressRel, Commit: t.Head.Hash, Problem: "holds git conflict markers", Fix: conflictFix(progressRel)})
	}
	if keyed && len(rep.Findings) == before {
		rememberFold(st, slug, key)
	}
	if err := v.rest(st, t); err != nil {
		return nil, err
	}
	return rep, nil
}

// rest adds the checks that follow the fold's: the outputs of done units,
// as committed, and the archive refs.
func (v *verifier) rest(st *store.Store, t *store.Task) error {
	issues, warnings, err := OutputsAndWarnings(st, t)
	if err != nil {
		return err
	}
	v.rep.Findings = append(v.rep.Findings, OutputFindings(issues)...)
	v.rep.Warnings = append(v.rep.Warnings, OutputFindings(warnings)...)
	stale, err := StaleInputs(st, t, true)
	if err != nil {
		return err
	}
	v.rep.Warnings = append(v.rep.Warnings, StaleFindings(stale)...)
	pins, err := Pins(st, t)
	if err != nil {
		return err
	}
	pinned, warned := PinFindings(pins)
	v.rep.Findings = append(v.rep.Findings, pinned...)
	v.rep.Warnings = append(v.rep.Warnings, warned...)
	found, err := ArchiveFindings(st)
	if err != nil {
		return err
	}
	v.rep.Findings = append(v.rep.Findings, found...)
	if t.State != nil {
		checks, unread := Counters(st, t, t.State)
		for _, c := range checks {
			if !c.Agrees {
				v.rep.Warnings = append(v.rep.Warnings, Finding{File: c.Path, Problem: "counter " + c.String(), Fix: c.Fix})
			}
		}
		for _, u := range unread {
			v.rep.Warnings = append(v.rep.Warnings, Finding{File: st.Rel(t.Slug, t.PlanName), Problem: u, Fix: "make the counter's file readable"})
		}
	}
	found, err = IndexFindings(st)
	if err != nil {
		return err
	}
	v.rep.Findings = append(v.rep.Findings, found...)
	return nil
}

// IndexFindings reports an INDEX.md that is not in step with the tasks,
// when .itr.yaml asks itr to keep one (after a merge joined two sides'
// rows, a row of a task both changed may lag until its next commit).
func IndexFindings(st *store.Store) ([]Finding, error) {
	if !st.Config.Index {
		return nil, nil
	}
	if head, err := st.Repo.Head(); err != nil || head.Unborn {
		return nil, err
	}
	stale, err := index.Stale(st)
	if err != nil || stale == "" {
		return nil, err
	}
	return []Finding{{File: index.Path(st), Problem: "not in step with the tasks: " + stale,
		Fix: "run `itr list --write-index` (it rebuilds and commits it)"}}, nil
}

// prefixDigests hashes a log once, front to back, answering the SHA-256 of
// any prefix; asking for a shorter prefix than the last starts over.
type prefixDigests struct {
	data []byte
	h    hash.Hash
	pos  int
}

func (p *prefixDigests) digest(n int) string {
	if p.h == nil || n < p.pos {
		p.h, p.pos = sha256.New(), 0
	}
	p.h.Write(p.data[p.pos:n])
	p.pos = n
	return hex.EncodeToString(p.h.Sum(nil))
}

// logTrailer reads the Itr-Log trailer: "<length> <sha256 hex>" of
// progress.md as the commit left it.
func logTrailer(c gitstate.Commit) (int, string, bool) {
	v, ok := c.Trailer(store.TrailerLog)
	if !ok {
		return 0, "", false
	}
	n, d, ok := strings.Cut(v, " ")
	l, err := strconv.Atoi(n)
	if !ok || err != nil || l < 0 || len(d) != 64 {
		return 0, "", false
	}
	return l, d, true
}

// countHeadings counts the entry headings ("## " at a line start) in an
// appended tail of the log, as Parse would count entries.
func countHeadings(tail []byte) int {
	n := 0
	for i := 0; i < len(tail); i++ {
		if (i == 0 || tail[i-1] == '\n') && len(tail)-i >= 3 && tail[i] == '#' && tail[i+1] == '#' && tail[i+2] == ' ' {
			n++
		}
	}
	return n
}

// TakenOut returns the titles of the entries of old that new lacks, when
// new only lacks entries (every entry it has is one of old's, unchanged);
// otherwise nil (a rewrite, reported as such).
func TakenOut(old, new []byte) []string {
	return takenOut(items(progressLog, old), items(progressLog, new))
}
