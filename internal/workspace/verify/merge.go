package verify

import (
	"errors"
	"fmt"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
)

// merge checks what a merge commit brought in: the merged branch's own
// commits, from where it left the commits already checked, must each
// extend the log as the one before left it (a hand edit on a branch is
// found even though the merge's first-parent line never saw it), and every
// entry of the merged log must be in one of the parents' logs (a merge
// resolution invents no entry). A branch merged again is walked from where
// the last merge left it, so each of its commits is checked once. A commit
// that removed the log does not end the comparison: the next version is
// compared with the last one before the removal.
//
// Both stay in the history whatever comes later: a later commit records
// them with a correction entry ("## Correction of <commit>").
func (v *verifier) merge(m gitstate.Commit) error {
	st, progressRel := v.st, v.progress.rel
	var side []gitstate.Commit // newest first
	base := ""
	err := st.Repo.History(m.Parents[1], func(c gitstate.Commit) bool {
		if v.walked[c.Hash] {
			base = c.Hash
			return false
		}
		side = append(side, c)
		return len(side) < 100000
	})
	if err != nil {
		return err
	}
	for _, c := range side {
		v.walked[c.Hash] = true
	}
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
			return err
		}
		if prev, err = st.Blob(prevHash); err != nil {
			return err
		}
	}
	for i := len(side) - 1; i >= 0; i-- {
		c := side[i]
		h, err := hashAt(c.Hash)
		if err != nil {
			return err
		}
		if h == prevHash || h == "" {
			continue // unchanged, or removed: prev stays the version to extend
		}
		cur, err := st.Blob(h)
		if err != nil {
			return err
		}
		if prev != nil {
			if viol := progresslog.IsAppendOnly(prev, cur); viol != nil {
				v.opened(&openBreak{file: progressRel, commit: c, ack: true, f: &Finding{File: progressRel, Commit: c.Hash,
					Problem: fmt.Sprintf("commit %s (%q), merged by %s, broke the append-only history on its branch: %s", store.Short(c.Hash), c.Subject, store.Short(m.Hash), viol.Error()),
					Fix: "entries are never rewritten, and the branch's commit stays in the history: record it: " +
						correctionFix(progressRel, c, "This commit on a merged branch rewrote entries committed before it."),
					Diff: viol.Diff}})
			}
		}
		prev, prevHash = cur, h
	}
	// Every entry of the merge is in a parent's log.
	merged, err := st.ReadAt(m.Hash, progressRel)
	if err != nil || merged == nil {
		return err
	}
	known := map[string]bool{}
	for _, p := range m.Parents {
		data, err := st.ReadAt(p, progressRel)
		if err != nil {
			return err
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
		v.opened(&openBreak{file: progressRel, commit: m, ack: true, f: &Finding{File: progressRel, Commit: m.Hash,
			Problem: fmt.Sprintf("merge commit %s (%q) holds %d entr%s in neither parent's log: %s", store.Short(m.Hash), m.Subject, len(invented), store.Plural(len(invented), "y", "ies"), strings.Join(store.FirstN(invented, 3), "; ")),
			Fix: "entries come from checkpoints, not from merge resolutions, and the merge stays in the history: record it: " +
				correctionFix(progressRel, m, "This merge wrote entries that no checkpoint made.")}})
	}
	return nil
}
