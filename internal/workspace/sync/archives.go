package syncer

import (
	"errors"
	"fmt"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
)

// syncArchives fetches the remote's archive refs this repository lacks
// and pushes the ones the remote lacks; a ref that differs on the two
// sides is left alone and reported (archives are never replaced).
func (w *clone) syncArchives(n *gitstate.Network, remote string, rep *Report) {
	specs := []string{store.ArchiveTagPrefix + "*:" + store.ArchiveTagPrefix + "*", store.ArchiveBranchPrefix + "*:" + store.ArchiveBranchPrefix + "*"}
	before, _ := w.ArchiveRefs()
	if err := n.Fetch(remote, specs, false); err != nil {
		rep.Warnings = append(rep.Warnings, "archive refs: "+err.Error())
	}
	after, _ := w.ArchiveRefs()
	for ref := range after {
		if _, had := before[ref]; !had {
			rep.Archives = append(rep.Archives, "fetched "+ref)
		}
	}
	if len(after) == 0 {
		return
	}
	st, err := n.Push(remote, specs)
	for _, s := range st {
		switch {
		case s.Rejected():
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("archive %s differs on %s (%s); both are kept, look with `itr archives`", s.Ref, remote, s.Summary))
		case s.Flag == '*':
			rep.Archives = append(rep.Archives, "pushed "+s.Ref)
		}
	}
	if err != nil && !errors.Is(err, gitstate.ErrPushRejected) {
		rep.Warnings = append(rep.Warnings, "archive refs: "+err.Error())
	}
}

// claimCount is how many claims the tasks have after the sync.
func (w *clone) claimCount(slugs []string) int {
	total := 0
	for _, slug := range slugs {
		if c, err := w.Claims(slug); err == nil {
			total += len(c)
		}
	}
	return total
}

// RefspecAdvice is what a clone adds to its remote's configuration so
// that plain git fetch and git push carry itr's refs too: the claims
// (fetched, forced: the remote's are the truth; pushed only by itr claim,
// which compares and swaps) and the archives (both ways, never forced).
type RefspecAdvice struct {
	Remote string   `json:"remote"`
	Fetch  []string `json:"fetch"`
	Push   []string `json:"push"`
}

// refspecs is Refspecs.
func (w *clone) refspecs() RefspecAdvice {
	remote := "origin"
	if n, err := gitstate.NetworkOf(w.Repo); err == nil {
		if up, err := n.Upstream(); err == nil && up.Remote != "" {
			remote = up.Remote
		}
	}
	claims := store.ClaimRefPrefix + "*"
	tags := store.ArchiveTagPrefix + "*"
	branches := store.ArchiveBranchPrefix + "*"
	return RefspecAdvice{
		Remote: remote,
		Fetch:  []string{"+" + claims + ":" + claims, tags + ":" + tags, branches + ":" + branches},
		// Once remote.<name>.push is set, git push pushes only what it
		// lists: HEAD keeps the current branch going where it went.
		Push: []string{"HEAD", tags + ":" + tags, branches + ":" + branches},
	}
}
