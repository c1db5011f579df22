package verify

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
)

// ArchiveFindings checks every archive ref: it must resolve to a commit
// (through an annotated tag, for the tags) that holds its task's folder.
func ArchiveFindings(st *store.Store) ([]Finding, error) {
	var out []Finding
	refs, err := st.ArchiveRefs()
	if err != nil {
		return nil, err
	}
	for _, prefix := range []string{store.ArchiveBranchPrefix, store.ArchiveTagPrefix} {
		for _, name := range gitstate.RefNames(refs) {
			if !strings.HasPrefix(name, prefix) {
				continue
			}
			fix := fmt.Sprintf("fetch it again from a clone that has it (git fetch origin '+%s:%s'), or delete it with `git update-ref -d %s`", name, name, name)
			var slug string
			if prefix == store.ArchiveTagPrefix {
				s, _, ok := store.SplitArchiveTag(name)
				if !ok {
					out = append(out, Finding{File: name, Commit: refs[name], Problem: "not an itr archive tag name (itr/archive/<slug>/<YYYY-MM-DD>[-n])", Fix: "rename or delete it: `git tag -d " + strings.TrimPrefix(name, "refs/tags/") + "`"})
					continue
				}
				slug = s
				if _, err := st.Repo.ReadTag(name); err != nil {
					out = append(out, Finding{File: name, Commit: refs[name], Problem: "does not resolve to an annotated tag: " + err.Error(), Fix: fix})
					continue
				}
			} else {
				slug = strings.TrimPrefix(name, prefix)
				if store.ValidSlug(slug) != nil {
					out = append(out, Finding{File: name, Commit: refs[name], Problem: "not an itr archive branch name (itr/archive/<slug>)", Fix: "rename or delete it with `git branch -m` / `git branch -D`"})
					continue
				}
			}
			commit, err := st.Repo.PeelCommit(refs[name])
			if err != nil {
				out = append(out, Finding{File: name, Commit: refs[name], Problem: "does not resolve to a commit: " + err.Error(), Fix: fix})
				continue
			}
			for _, f := range []string{store.StateFile, store.ProgressFile} {
				if _, err := st.Repo.ReadFile(commit, st.Rel(slug, f)); err != nil {
					out = append(out, Finding{File: name, Commit: commit, Problem: fmt.Sprintf("the archived commit does not hold %s: %v", st.Rel(slug, f), err),
						Fix: "if the task was archived under another root, run itr with --root; else " + fix})
					break
				}
			}
		}
	}
	return out, nil
}

// UndoReport is one Undo as reported to a person or an agent.
type UndoReport struct {
	File    string   `json:"file"`
	Commit  string   `json:"commit"`
	Subject string   `json:"subject"`
	Missing []string `json:"missing"`
	Text    string   `json:"text"`
}

func ReportOf(u *Undo) UndoReport {
	return UndoReport{File: u.File, Commit: u.By.Hash, Subject: u.By.Subject, Missing: u.Missing, Text: u.String()}
}
