package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/itr-dev/itr/evidence"
	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// The changes a pinned output can have gone through since its unit was
// done.
const (
	PinShrunk      = "shrunk"      // fewer bytes than pinned
	PinOverwritten = "overwritten" // other content, as many bytes or more
	PinRemoved     = "removed"     // no longer there
)

// PinIssue is an output of a done unit that is no longer what the entry
// that made the unit done pinned: at HEAD (a commit changed it; Commit
// names the first that did) or only in the working tree (Uncommitted).
type PinIssue struct {
	Unit   string          `json:"unit"`
	Path   string          `json:"path"`
	Change string          `json:"change"` // shrunk, overwritten, removed
	Pinned state.OutputPin `json:"pinned"`
	// Bytes is the output's size now (as git stores it); 0 when removed.
	Bytes int64 `json:"bytes"`
	// Uncommitted says HEAD still holds the pinned content and only the
	// working tree changed it.
	Uncommitted bool `json:"uncommitted,omitempty"`
	// Commit is the first commit, walking first parents back from HEAD,
	// whose version of the output is not the pinned one; "" for a change
	// in the working tree, or when the walk found no commit holding the
	// pinned content (an output pinned before it was committed, a shallow
	// clone).
	Commit  string `json:"commit,omitempty"`
	Subject string `json:"subject,omitempty"`
	// Restored says the working tree holds the pinned content again,
	// though HEAD does not: committing the file mends it.
	Restored bool `json:"restored,omitempty"`
	// Acceptable says the unit's outputs, as the working tree holds them,
	// pass the output check: the change may be accepted with itr
	// checkpoint --accept-outputs.
	Acceptable bool `json:"acceptable,omitempty"`
	// Problems are the rules of the output check the working tree's
	// version of an uncommitted change fails (a truncation, a missing
	// footer), so that resuming names what is wrong with it, not only
	// that it changed.
	Problems []evidence.Problem `json:"problems,omitempty"`
}

// String reads `R1: outputs/survey.md shrank from 2874 to 3 bytes (pinned
// at done), in commit 1a2b3c4 (tidy)`, or `... in the working tree (not
// committed)`.
func (p PinIssue) String() string {
	s := p.Unit + ": " + p.Path
	switch p.Change {
	case PinShrunk:
		s += fmt.Sprintf(" shrank from %d to %d bytes", p.Pinned.Bytes, p.Bytes)
	case PinOverwritten:
		s += fmt.Sprintf(" was overwritten (%d bytes, pinned at %d with other content)", p.Bytes, p.Pinned.Bytes)
	case PinRemoved:
		s += " was removed"
	}
	s += " since the unit was done"
	switch {
	case p.Uncommitted:
		s += ", in the working tree (not committed)"
	case p.Commit != "":
		s += fmt.Sprintf(", in commit %s (%s)", store.Short(p.Commit), store.OneLine(p.Subject, 60))
	default:
		s += ", at HEAD (no commit on the first-parent history holds the pinned content)"
	}
	if len(p.Problems) > 0 {
		parts := make([]string, len(p.Problems))
		for i, pr := range p.Problems {
			parts[i] = string(pr.Rule)
			if pr.Detail != "" {
				parts[i] += " (" + pr.Detail + ")"
			}
		}
		s += "; as it is now it fails the output check: " + strings.Join(parts, ", ")
	}
	return s
}

// ToldByOutputCheck reports whether the output check already tells this
// change, with the same commit: an output removed at HEAD is "missing"
// there, so verify and status say it once.
func (p PinIssue) ToldByOutputCheck() bool { return p.Change == PinRemoved && !p.Uncommitted }

// Fix says how to put the output back, or to accept the change on purpose.
func (p PinIssue) Fix() string {
	accept := fmt.Sprintf("or accept the change on purpose: `itr reopen %s --reason \"...\"` (it is pinned again when it is done again)", p.Unit)
	if p.Acceptable {
		accept += fmt.Sprintf(" or `itr checkpoint %s --accept-outputs --did \"...\"`", p.Unit)
	}
	switch {
	case p.Uncommitted:
		return fmt.Sprintf("put it back with `git checkout -- %s` (HEAD holds the pinned content), %s after committing it", p.Path, accept)
	case p.Restored:
		return fmt.Sprintf("the working tree holds the pinned content again: commit it (`git add %s && git commit`), %s", p.Path, accept)
	case p.Commit != "":
		return fmt.Sprintf("put it back with `git checkout %s^ -- %s` and commit it, %s", store.Short(p.Commit), p.Path, accept)
	}
	return fmt.Sprintf("put back the content pinned as blob %s (`git cat-file blob %s > %s`) and commit it, %s", store.Short(p.Pinned.Blob), p.Pinned.Blob, p.Path, accept)
}

// Pins compares the outputs pinned by every done unit with HEAD and the
// working tree. It reads the blob id HEAD has for each pin and the file
// in the working tree (as git would store it); only a pin HEAD no longer
// holds costs a walk of history, for the commit that changed it. Units
// without pins (not done, or done before itr pinned outputs) cost
// nothing.
func Pins(st *store.Store, t *store.Task) ([]PinIssue, error) {
	if t == nil || t.State == nil || t.Head.Hash == "" {
		return nil, nil
	}
	var out []PinIssue
	ids, units := t.State.Ordered()
	for i, id := range ids {
		u := units[i]
		if u == nil || u.Status != state.Done {
			continue
		}
		first := len(out)
		spec, _ := reconcile.OutputSpec(t.Plan, id)
		for _, pin := range u.Outputs {
			issue, err := checkPin(st, t.Head.Hash, id, pin, spec)
			if err != nil {
				return nil, err
			}
			if issue != nil {
				out = append(out, *issue)
			}
		}
		if len(out) > first && acceptable(st, t, id) {
			for i := first; i < len(out); i++ {
				out[i].Acceptable = true
			}
		}
	}
	return out, nil
}

// acceptable reports whether the outputs of unit id, as the working tree
// holds them, pass the output check: what itr checkpoint --accept-outputs
// asks before it pins them again.
func acceptable(st *store.Store, t *store.Task, id string) bool {
	spec, ok := reconcile.OutputSpec(t.Plan, id)
	if !ok {
		return false
	}
	files, err := st.OutputFiles(t.Slug, spec.Files)
	return err == nil && len(evidence.Failures(evidence.Check(spec, files))) == 0
}

// checkPin compares one pin with HEAD and the working tree; nil when both
// hold the pinned content.
func checkPin(st *store.Store, head, id string, pin state.OutputPin, spec evidence.Spec) (*PinIssue, error) {
	atHead, err := st.Repo.FileHashAt(head, pin.Path)
	if err != nil && !errors.Is(err, gitstate.ErrNotFound) {
		return nil, err
	}
	disk, err := st.ReadWorktree(pin.Path)
	diskThere := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	diskSame := diskThere && int64(len(disk)) == pin.Bytes && st.Repo.BlobID(disk) == pin.Blob
	if atHead == pin.Blob {
		if diskSame {
			return nil, nil
		}
		issue := &PinIssue{Unit: id, Path: pin.Path, Pinned: pin, Uncommitted: true}
		issue.Change, issue.Bytes = changeOf(pin, diskThere, int64(len(disk)))
		if diskThere {
			issue.Problems = evidence.Failures(evidence.CheckFile(pin.Path, disk, spec))
		}
		return issue, nil
	}
	var size int64
	if atHead != "" {
		data, err := st.Repo.ReadBlob(atHead)
		if err != nil {
			return nil, err
		}
		size = int64(len(data))
	}
	issue := &PinIssue{Unit: id, Path: pin.Path, Pinned: pin, Restored: diskSame}
	issue.Change, issue.Bytes = changeOf(pin, atHead != "", size)
	by, err := pinBrokenBy(st, head, pin)
	if err != nil {
		return nil, err
	}
	issue.Commit, issue.Subject = by.Hash, by.Subject
	return issue, nil
}

// changeOf names the change of a pinned output that is there (or not)
// with size bytes and other content.
func changeOf(pin state.OutputPin, there bool, size int64) (string, int64) {
	switch {
	case !there:
		return PinRemoved, 0
	case size < pin.Bytes:
		return PinShrunk, size
	}
	return PinOverwritten, size
}

// pinBrokenBy walks first parents back from head to the newest commit
// whose version of the output is the pinned blob and returns the commit
// after it: the one that changed it. It is the zero Commit when the walk
// finds none (within maxOutputWalk commits).
func pinBrokenBy(st *store.Store, head string, pin state.OutputPin) (gitstate.Commit, error) {
	return brokenAfter(st, head, func(c gitstate.Commit) (bool, error) {
		h, err := st.Repo.FileHashAt(c.Hash, pin.Path)
		if err != nil && !errors.Is(err, gitstate.ErrNotFound) {
			return false, err
		}
		return h == pin.Blob, nil
	})
}

// PinFindings words the pins HEAD no longer holds as findings of itr
// verify, and the changes only the working tree made as its warnings.
func PinFindings(issues []PinIssue) (findings, warnings []Finding) {
	for _, p := range issues {
		if p.ToldByOutputCheck() {
			continue
		}
		f := Finding{File: p.Path, Commit: p.Commit, Problem: "done unit " + p.String(), Fix: p.Fix()}
		if p.Uncommitted {
			warnings = append(warnings, f)
		} else {
			findings = append(findings, f)
		}
	}
	return findings, warnings
}
