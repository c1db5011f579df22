package verify

import (
	"errors"
	"fmt"

	"github.com/itr-dev/itr/evidence"
	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// OutputIssue is an output of a done unit that fails the output check as
// committed at HEAD, with the commit that broke it.
type OutputIssue struct {
	Unit    string           `json:"unit"`
	Problem evidence.Problem `json:"problem"`
	// Path is the output's path in the repository.
	Path string `json:"path"`
	// Commit is the first commit, walking first parents back from HEAD,
	// after which the check fails; "" when the walk found none that
	// passed (as in a shallow clone).
	Commit  string `json:"commit,omitempty"`
	Subject string `json:"subject,omitempty"`
}

// String reads `R1: outputs/review.md: truncated (ends in "..."), since
// commit 1a2b3c4 (tidy the review)`.
func (o OutputIssue) String() string {
	s := o.Unit + ": " + o.Problem.String()
	if o.Commit != "" {
		s += fmt.Sprintf(", since commit %s (%s)", store.Short(o.Commit), store.OneLine(o.Subject, 60))
	}
	return s
}

// Fix says how to mend the output.
func (o OutputIssue) Fix() string {
	if o.Problem.IsWarning() {
		return o.Problem.Fix()
	}
	if o.Commit != "" {
		return fmt.Sprintf("put back the output as it was before that commit (`git checkout %s^ -- %s`) or %s, and commit it", store.Short(o.Commit), o.Path, o.Problem.Fix())
	}
	return o.Problem.Fix() + ", and commit it"
}

// maxOutputWalk bounds the walk back for the commit that broke an output.
const maxOutputWalk = 2000

// Outputs checks the outputs of every done unit whose plan names some, as
// committed at HEAD (not as on disk), and finds for each problem the
// commit that brought it. Only units with outputs cost a walk, and only
// while one of their outputs fails. Warnings (an output over what an agent
// reads whole) are left out: see OutputsAndWarnings.
func Outputs(st *store.Store, t *store.Task) ([]OutputIssue, error) {
	out, _, err := OutputsAndWarnings(st, t)
	return out, err
}

// OutputsAndWarnings is Outputs, and the warnings of the same outputs
// apart (without a commit: they break nothing).
func OutputsAndWarnings(st *store.Store, t *store.Task) (issues, warnings []OutputIssue, err error) {
	if t == nil || t.State == nil || t.Plan == nil || t.Head.Hash == "" {
		return nil, nil, nil
	}
	var out []OutputIssue
	ids, units := t.State.Ordered()
	for i, id := range ids {
		if u := units[i]; u == nil || u.Status != state.Done {
			continue
		}
		spec, ok := reconcile.OutputSpec(t.Plan, id)
		if !ok {
			continue
		}
		for _, name := range spec.Files {
			paths := st.NamePaths(t.Slug, name)
			all, rel, err := outputAt(st, t.Head.Hash, paths, name, spec)
			if err != nil {
				return nil, nil, err
			}
			for _, p := range evidence.Warnings(all) {
				warnings = append(warnings, OutputIssue{Unit: id, Problem: p, Path: rel})
			}
			probs := evidence.Failures(all)
			if len(probs) == 0 {
				continue
			}
			by, err := brokenBy(st, t.Head.Hash, paths, name, spec)
			if err != nil {
				return nil, nil, err
			}
			for _, p := range probs {
				out = append(out, OutputIssue{Unit: id, Problem: p, Path: rel, Commit: by.Hash, Subject: by.Subject})
			}
		}
	}
	return out, warnings, nil
}

// outputAt checks one output as a commit holds it, at the first of paths
// that exists; rel is that path (the first when none does).
func outputAt(st *store.Store, rev string, paths []string, name string, spec evidence.Spec) (probs []evidence.Problem, rel string, err error) {
	for _, p := range paths {
		data, err := st.Repo.ReadFile(rev, p)
		if errors.Is(err, gitstate.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return evidence.CheckFile(name, data, spec), p, nil
	}
	return []evidence.Problem{{File: name, Rule: evidence.Missing}}, paths[0], nil
}

// brokenBy walks first parents back from head to the newest commit where
// the output passes and returns the commit after it: the one that broke
// it. A commit whose blob of the file is the one of the commit after it
// is not read again.
func brokenBy(st *store.Store, head string, paths []string, name string, spec evidence.Spec) (gitstate.Commit, error) {
	lastHash, first := "", true
	return brokenAfter(st, head, func(c gitstate.Commit) (bool, error) {
		var h string
		for _, p := range paths {
			b, err := st.Repo.FileHashAt(c.Hash, p)
			if err != nil && !errors.Is(err, gitstate.ErrNotFound) {
				return false, err
			}
			h += b + " "
		}
		if first || h != lastHash {
			probs, _, err := outputAt(st, c.Hash, paths, name, spec)
			if err != nil {
				return false, err
			}
			if len(evidence.Failures(probs)) == 0 {
				return true, nil
			}
		}
		first, lastHash = false, h
		return false, nil
	})
}

// brokenAfter walks first parents back from head to the newest commit for
// which holds is true and returns the commit after it (the zero Commit
// when that is head itself, or when the walk finds none within
// maxOutputWalk commits). Commits are listed a batch at a time (History
// holds the repository while it walks).
func brokenAfter(st *store.Store, head string, holds func(gitstate.Commit) (bool, error)) (gitstate.Commit, error) {
	const batch = 64
	var newer gitstate.Commit
	rev := head
	for seen := 0; rev != "" && seen < maxOutputWalk; {
		var cs []gitstate.Commit
		if err := st.Repo.History(rev, func(c gitstate.Commit) bool {
			cs = append(cs, c)
			return len(cs) < batch
		}); err != nil {
			return gitstate.Commit{}, err
		}
		for _, c := range cs {
			seen++
			ok, err := holds(c)
			if err != nil {
				return gitstate.Commit{}, err
			}
			if ok {
				return newer, nil
			}
			newer = c
		}
		rev = ""
		if len(cs) == batch {
			if last := cs[len(cs)-1]; len(last.Parents) > 0 {
				rev = last.Parents[0]
			}
		}
	}
	return gitstate.Commit{}, nil
}

// OutputFindings words output issues as findings of itr verify (and
// warnings as its warnings: the same words).
func OutputFindings(issues []OutputIssue) []Finding {
	var out []Finding
	for _, o := range issues {
		out = append(out, Finding{File: o.Path, Commit: o.Commit,
			Problem: "done unit " + o.String(), Fix: o.Fix()})
	}
	return out
}
