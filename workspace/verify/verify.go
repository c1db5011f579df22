// Package verify proves a task's history without changing anything: each
// committed version of progress.md and guardrails.md extends the one
// before (along first parents and through merged branches), state.json is
// the fold of the log, every entry came with a commit of its own, and the
// archive refs resolve. It also finds undos: commits made without itr that
// took committed entries out (FindUndos), which reconcile and the next
// write put back.
package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/workspace/store"
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
	// appended): named, not counted as findings.
	Repaired []Finding `json:"repaired,omitempty"`
}

// Task checks a task without changing anything: each committed version
// of progress.md and guardrails.md extends the one before it; state.json is
// the fold of the log; the plan is valid; every entry of the log came with
// a commit of its own.
func Task(st *store.Store, slug string) (*Report, error) {
	if slug == "" && st.Task == "" {
		// No task active, only archives: check the archive refs.
		if slugs, err := st.Slugs(); err == nil && len(slugs) == 0 {
			if refs, err := st.ArchiveRefs(); err == nil && len(refs) > 0 {
				found, err := ArchiveFindings(st)
				if err != nil {
					return nil, err
				}
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
	progressRel, stateRel, guardRel := st.Rel(slug, store.ProgressFile), st.Rel(slug, store.StateFile), st.Rel(slug, store.GuardrailsFile)

	// The task's history on the first-parent line, oldest first: every
	// commit since the task's Created commit, so commits made with plain
	// git (a revert, a hand edit) are checked too.
	var commits []gitstate.Commit
	err = st.Repo.History("HEAD", func(c gitstate.Commit) bool {
		commits = append(commits, c)
		v, _ := c.Trailer(store.TrailerTask)
		ev, _ := c.Trailer(store.TrailerEvent)
		return !(v == slug && ev == store.EventCreated)
	})
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(commits)-1; i < j; i, j = i+1, j-1 {
		commits[i], commits[j] = commits[j], commits[i]
	}

	// Append-only, commit by commit, and one entry per itr commit.
	var prevLog, prevGuard []byte
	var prevLogHash, prevGuardHash string
	prevEntries := 0
	prevIsPrefix := false // prevLog is a prefix of HEAD's log, checked by digest
	prefixes := &prefixDigests{data: t.ProgressRaw}
	removed := false // the task folder was removed (archived) since prevLog
	// Each break of the append-only history stays open, with the version
	// before it, until a later version starts with that version again: the
	// commit that put the log back repaired it, and the finding moves to
	// rep.Repaired.
	type openBreak struct {
		file   string
		before []byte
		f      *Finding
	}
	var open []openBreak
	broke := func(file string, before []byte, f Finding) {
		open = append(open, openBreak{file, before, &f})
	}
	repairs := func(file string, now []byte, c gitstate.Commit) {
		kept := open[:0]
		for _, b := range open {
			if b.file == file && bytes.HasPrefix(now, b.before) {
				b.f.Problem += fmt.Sprintf("; put back by commit %s (%q)", store.Short(c.Hash), c.Subject)
				b.f.Fix = ""
				rep.Repaired = append(rep.Repaired, *b.f)
				continue
			}
			kept = append(kept, b)
		}
		open = kept
	}
	mainLine := make(map[string]bool, len(commits))
	for _, c := range commits {
		mainLine[c.Hash] = true
	}
	for _, c := range commits {
		if len(c.Parents) >= 2 {
			found, err := verifyMerge(st, slug, c, mainLine)
			if err != nil {
				return nil, err
			}
			rep.Findings = append(rep.Findings, found...)
		}
		v, _ := c.Trailer(store.TrailerTask)
		mine := v == slug && len(c.Parents) < 2
		if mine {
			rep.Commits++
		}
		hashes, err := st.Repo.FolderHashes(c.Hash, st.TaskDir(slug))
		if err != nil {
			return nil, err
		}
		logHash, guardHash := hashes[store.ProgressFile], hashes[store.GuardrailsFile]
		if logHash == "" && prevLog != nil {
			// The task was archived (its folder removed) here.
			removed = true
			continue
		}
		ev, _ := c.Trailer(store.TrailerEvent)
		// A restore brings back an archived log (perhaps an older one
		// than this line last had) plus one Restored entry: a new base.
		restore := mine && ev == store.EventRestored && (removed || prevLog == nil)
		removed = false
		n := prevEntries
		if logHash != prevLogHash {
			// Fast path: the commit's Itr-Log trailer gives the length and
			// SHA-256 of the log it committed; when that is a prefix of
			// HEAD's log (hashed once, incrementally), the version is
			// known without reading its blob, and an append of a prefix
			// needs no comparison. The cost stays linear in the log.
			var logAt []byte
			isPrefix := false
			if mine && !restore {
				if l, d, ok := logTrailer(c); ok && l <= len(t.ProgressRaw) && l >= len(prevLog) && prefixes.digest(l) == d {
					logAt, isPrefix = t.ProgressRaw[:l], true
				}
			}
			if !isPrefix {
				if logAt, err = st.Blob(logHash); err != nil {
					return nil, err
				}
			}
			repairs(progressRel, logAt, c)
			if isPrefix && prevIsPrefix {
				n = prevEntries + countHeadings(logAt[len(prevLog):])
				prevLog, prevIsPrefix = logAt, true
				goto guard
			}
			prevIsPrefix = isPrefix
			if prevLog != nil && !restore {
				if v := progresslog.IsAppendOnly(prevLog, logAt); v != nil {
					f := Finding{File: progressRel, Commit: c.Hash, Problem: fmt.Sprintf("commit %s (%q) broke the append-only history: %s", store.Short(c.Hash), c.Subject, v.Error()),
						Fix: fmt.Sprintf("entries are never rewritten: revert it (`git revert %s`) or restore the log with `git checkout %s^ -- %s` and commit", store.Short(c.Hash), store.Short(c.Hash), progressRel), Diff: v.Diff}
					if gone := TakenOut(prevLog, logAt); len(gone) > 0 && !revertsItr(c, slug) {
						f.Problem = fmt.Sprintf("commit %s (%q) took out %d committed entr%s: %s", store.Short(c.Hash), c.Subject, len(gone), store.Plural(len(gone), "y", "ies"), strings.Join(store.FirstN(gone, 3), "; "))
						f.Fix = "run `itr reconcile`: it puts them back from git's history (so does the next checkpoint); reverting the commit would also undo its other changes"
					}
					broke(progressRel, prevLog, f)
				}
			}
			if prevLog != nil && len(logAt) >= len(prevLog) && string(logAt[:len(prevLog)]) == string(prevLog) {
				// An append: count only the new entries, so the check stays
				// linear in the log's size rather than its square.
				n = prevEntries + countHeadings(logAt[len(prevLog):])
			} else {
				n = len(progresslog.Parse(logAt).Entries)
			}
			prevLog = logAt
		}
	guard:
		if guardHash != prevGuardHash {
			guardAt, err := st.Blob(guardHash)
			if err != nil {
				return nil, err
			}
			repairs(guardRel, guardAt, c)
			if prevGuard != nil && !restore {
				if v := progresslog.IsGuardrailsAppendOnly(prevGuard, guardAt); v != nil {
					broke(guardRel, prevGuard, Finding{File: guardRel, Commit: c.Hash, Problem: fmt.Sprintf("commit %s (%q) rewrote earlier guardrails: %s", store.Short(c.Hash), c.Subject, v.Error()),
						Fix: fmt.Sprintf("restore them with `git checkout %s^ -- %s`, append instead, and commit", store.Short(c.Hash), guardRel), Diff: v.Diff})
				}
			}
			prevGuard = guardAt
		}
		if mine {
			ev, _ := c.Trailer(store.TrailerEvent)
			want := prevEntries + 1
			if ev == store.EventGuardrail {
				want = prevEntries
			}
			if ev == store.EventReconciled && n > want {
				want = n // a reconcile commits the entries it adopted with its own
			}
			if restore {
				want = n
			}
			if n != want {
				add(Finding{File: progressRel, Commit: c.Hash,
					Problem: fmt.Sprintf("the %s commit %s took the log from %d to %d entries; each itr commit adds exactly one entry", ev, store.Short(c.Hash), prevEntries, n),
					Fix:     "entries written without itr have no commit of their own: run `itr reconcile` to adopt them"})
			}
		}
		prevLogHash, prevGuardHash, prevEntries = logHash, guardHash, n
	}
	for _, b := range open {
		add(*b.f)
	}

	// state.json is the fold.
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
		if !bytes.Equal(derived.Encode(), t.StateRaw) && len(reconcile.Diff(t.State, derived, t.Plan)) == 0 {
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
		add(Finding{File: progressRel, Commit: t.Head.Hash, Problem: "holds git conflict markers", Fix: "run `itr reconcile`"})
	}
	found, err := ArchiveFindings(st)
	if err != nil {
		return nil, err
	}
	rep.Findings = append(rep.Findings, found...)
	return rep, nil
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
	oldEntries := progresslog.Parse(old).Entries
	have := make(map[string]bool, len(oldEntries))
	for _, e := range oldEntries {
		have[e.Key()] = true
	}
	kept := map[string]bool{}
	for _, e := range progresslog.Parse(new).Entries {
		k := e.Key()
		if !have[k] {
			return nil
		}
		kept[k] = true
	}
	var gone []string
	for _, e := range oldEntries {
		if !kept[e.Key()] {
			gone = append(gone, e.Title())
		}
	}
	return gone
}

// verifyMerge checks what a merge commit brought in: the merged branch's
// own commits, from where it left this line, must each extend the log as
// the one before left it (a hand edit on a branch is found even though the
// merge's first-parent line never saw it), and every entry of the merged
// log must be in one of the parents' logs (a merge resolution invents no
// entry).
func verifyMerge(st *store.Store, slug string, m gitstate.Commit, mainLine map[string]bool) ([]Finding, error) {
	progressRel := st.Rel(slug, store.ProgressFile)
	var side []gitstate.Commit // newest first
	base := ""
	err := st.Repo.History(m.Parents[1], func(c gitstate.Commit) bool {
		if mainLine[c.Hash] {
			base = c.Hash
			return false
		}
		side = append(side, c)
		return len(side) < 100000
	})
	if err != nil {
		return nil, err
	}
	var out []Finding
	// Only the commits that changed the log are read (by blob hash).
	hashAt := func(rev string) (string, error) {
		h, err := st.Repo.FileHashAt(rev, progressRel)
		if errors.Is(err, gitstate.ErrNotFound) {
			return "", nil
		}
		return h, err
	}
	var prev []byte
	prevHash := ""
	if base != "" {
		if prevHash, err = hashAt(base); err != nil {
			return nil, err
		}
		if prev, err = st.Blob(prevHash); err != nil {
			return nil, err
		}
	}
	for i := len(side) - 1; i >= 0; i-- {
		c := side[i]
		h, err := hashAt(c.Hash)
		if err != nil {
			return nil, err
		}
		if h == prevHash {
			continue
		}
		cur, err := st.Blob(h)
		if err != nil {
			return nil, err
		}
		prevHash = h
		if cur == nil || prev == nil {
			prev = cur
			continue
		}
		if v := progresslog.IsAppendOnly(prev, cur); v != nil {
			out = append(out, Finding{File: progressRel, Commit: c.Hash,
				Problem: fmt.Sprintf("commit %s (%q), merged by %s, broke the append-only history on its branch: %s", store.Short(c.Hash), c.Subject, store.Short(m.Hash), v.Error()),
				Fix:     fmt.Sprintf("entries are never rewritten: restore the log with `git checkout %s -- %s`, append a correcting entry, and commit", store.Short(m.Parents[0]), progressRel), Diff: v.Diff})
		}
		prev = cur
	}
	// Every entry of the merge is in a parent's log.
	merged, err := st.ReadAt(m.Hash, progressRel)
	if err != nil || merged == nil {
		return out, err
	}
	known := map[string]bool{}
	for _, p := range m.Parents {
		data, err := st.ReadAt(p, progressRel)
		if err != nil {
			return nil, err
		}
		for _, e := range progresslog.Parse(data).Entries {
			known[e.Key()] = true
		}
	}
	var invented []string
	for _, e := range progresslog.Parse(merged).Entries {
		// A Reconciled entry may record how a merge was resolved.
		if e.Kind != progresslog.KindReconciled && !known[e.Key()] {
			invented = append(invented, e.Title())
		}
	}
	if len(invented) > 0 {
		out = append(out, Finding{File: progressRel, Commit: m.Hash,
			Problem: fmt.Sprintf("merge commit %s (%q) holds %d entr%s in neither parent's log: %s", store.Short(m.Hash), m.Subject, len(invented), store.Plural(len(invented), "y", "ies"), strings.Join(store.FirstN(invented, 3), "; ")),
			Fix:     "entries come from checkpoints, not from merge resolutions: run `itr reconcile` after taking the log of one side (`git checkout <side> -- " + progressRel + "`)"})
	}
	return out, nil
}
