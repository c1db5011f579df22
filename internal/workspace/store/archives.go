package store

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/itr-dev/itr/gitstate"
)

// Archived is one archived task, as `itr list` shows it.
type Archived struct {
	Slug   string   `json:"slug"`
	Ref    string   `json:"ref"`    // the ref it is read from: the newest tag, else the branch
	Commit string   `json:"commit"` // the archived commit
	Date   string   `json:"date,omitempty"`
	Tags   []string `json:"tags"` // every archive tag of the slug, oldest first
	Branch string   `json:"branch,omitempty"`
}

// Archives lists the archived tasks found in the refs (branches and tags
// under itr/archive/), by slug. Refs that do not resolve are left out; itr
// verify reports them.
func (s *Store) Archives() ([]Archived, error) {
	branches, err := s.PeeledRefs(ArchiveBranchPrefix)
	if err != nil {
		return nil, err
	}
	tags, err := s.PeeledRefs(ArchiveTagPrefix)
	if err != nil {
		return nil, err
	}
	by := map[string]*Archived{}
	get := func(slug string) *Archived {
		if by[slug] == nil {
			by[slug] = &Archived{Slug: slug, Tags: []string{}}
		}
		return by[slug]
	}
	for name, commit := range branches {
		slug := strings.TrimPrefix(name, ArchiveBranchPrefix)
		if ValidSlug(slug) != nil {
			continue
		}
		a := get(slug)
		a.Branch, a.Ref, a.Commit = name, name, commit
	}
	for name := range tags {
		slug, _, ok := SplitArchiveTag(name)
		if !ok {
			continue
		}
		a := get(slug)
		a.Tags = append(a.Tags, name)
	}
	out := make([]Archived, 0, len(by))
	for _, a := range by {
		sort.Slice(a.Tags, func(i, j int) bool { return tagOrder(a.Tags[i]) < tagOrder(a.Tags[j]) })
		if n := len(a.Tags); n > 0 {
			a.Ref, a.Commit = a.Tags[n-1], tags[a.Tags[n-1]]
			_, a.Date, _ = SplitArchiveTag(a.Ref)
		}
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Slug < out[j].Slug })
	return out, nil
}

// SplitArchiveTag splits refs/tags/itr/archive/<slug>/<date>[-n].
func SplitArchiveTag(name string) (slug, date string, ok bool) {
	rest, ok := strings.CutPrefix(name, ArchiveTagPrefix)
	if !ok {
		return "", "", false
	}
	slug, date, ok = strings.Cut(rest, "/")
	if !ok || ValidSlug(slug) != nil || strings.Contains(date, "/") {
		return "", "", false
	}
	// The date, then an optional -n (n ≥ 2) for a second archive that day.
	d, n := date, ""
	if len(date) > 10 {
		d, n = date[:10], date[10:]
	}
	if _, err := time.Parse("2006-01-02", d); err != nil || len(d) != 10 {
		return "", "", false
	}
	if n != "" {
		k, err := strconv.Atoi(strings.TrimPrefix(n, "-"))
		if n[0] != '-' || err != nil || k < 2 || strconv.Itoa(k) != n[1:] {
			return "", "", false
		}
	}
	return slug, date, true
}

// tagOrder sorts archive tags by date, then by their -n suffix.
func tagOrder(name string) string {
	_, date, _ := SplitArchiveTag(name)
	n := 1
	if len(date) > 11 && date[10] == '-' {
		n, _ = strconv.Atoi(date[11:])
	}
	return fmt.Sprintf("%s-%06d", date[:min(10, len(date))], n)
}

// FindArchive returns the archive of slug to read: the one named by from
// (a full ref, a tag name such as itr/archive/<slug>/2026-01-14, or just
// the date part), else the newest. It returns an error wrapping ErrNoTask
// when there is none.
func (s *Store) FindArchive(slug, from string) (ref, commit string, err error) {
	if from != "" {
		cands := []string{from}
		if !strings.HasPrefix(from, "refs/") {
			// The slug's own archive tag first, so a date never picks a
			// release tag of the same name.
			cands = []string{ArchiveTagPrefix + slug + "/" + from, "refs/tags/" + from, "refs/heads/" + from}
		}
		for _, c := range cands {
			val, err := s.Repo.ReadRef(c)
			if err != nil {
				return "", "", err
			}
			if val == "" {
				continue
			}
			commit, err := s.Repo.PeelCommit(val)
			if err != nil {
				return "", "", fmt.Errorf("archive %s: %w; run `itr verify`", c, err)
			}
			return c, commit, nil
		}
		return "", "", fmt.Errorf("%w: no archive %q of %s; `itr list` shows the archives", ErrNoTask, from, slug)
	}
	all, err := s.Archives()
	if err != nil {
		return "", "", err
	}
	for _, a := range all {
		if a.Slug == slug {
			return a.Ref, a.Commit, nil
		}
	}
	return "", "", fmt.Errorf("%w: task %q is neither active under %s nor archived; in a fresh clone fetch the archives first: "+
		"git fetch origin 'refs/heads/itr/archive/*:refs/heads/itr/archive/*' 'refs/tags/itr/archive/*:refs/tags/itr/archive/*'", ErrNoTask, slug, s.Root)
}

// LoadArchived reads an archived task as committed in its archive, plan
// included.
func (s *Store) LoadArchived(slug, from string) (*Task, string, error) {
	ref, commit, err := s.FindArchive(slug, from)
	if err != nil {
		return nil, "", err
	}
	t := &Task{Slug: slug, Dir: s.TaskDir(slug), Head: gitstate.Head{Hash: commit, Detached: true}}
	if err := s.ReadTaskAt(t, commit); err != nil {
		return nil, "", fmt.Errorf("archive %s holds no task at %s (was it archived under another root?): %w", ref, t.Dir, err)
	}
	s.LoadPlanAt(t, commit)
	return t, ref, nil
}

// LoadPlanAt reads tasks.md, else plan.md, as committed at rev.
func (s *Store) LoadPlanAt(t *Task, rev string) {
	s.LoadPlanWith(t, func(rel string) ([]byte, error) { return s.Repo.ReadFile(rev, rel) })
}

// ActiveAt reports whether the task is committed at HEAD: its folder holds
// a state.json or a progress.md (IsTaskFiles).
func (s *Store) ActiveAt(slug string) (bool, error) {
	head, err := s.Repo.Head()
	if err != nil || head.Unborn {
		return false, err
	}
	files, err := s.Repo.ListFiles(head.Hash, s.TaskDir(slug))
	return IsTaskFiles(s.TaskDir(slug), files), err
}

// Deliverables are the folders of a task that itr archive leaves in the
// working tree, tracked, unless asked to remove them: what the task
// produced and gathered belongs to the user (seed 004: never delete user
// outputs on their behalf).
var Deliverables = []string{"outputs", "sources"}

// IsDeliverable reports whether rel (a slash path inside the task folder
// dir) lies in one of its Deliverables folders.
func IsDeliverable(dir, rel string) bool {
	for _, d := range Deliverables {
		if strings.HasPrefix(rel, dir+"/"+d+"/") {
			return true
		}
	}
	return false
}

// OnlyDeliverables reports whether the folder dir in the working tree
// holds nothing but Deliverables folders (what an archive leaves in place).
func (s *Store) OnlyDeliverables(dir string) (bool, error) {
	entries, err := os.ReadDir(s.Abs(dir))
	if err != nil {
		return false, fmt.Errorf("read %s: %w", dir, err)
	}
	for _, e := range entries {
		if !e.IsDir() || !slices.Contains(Deliverables, e.Name()) {
			return false, nil
		}
	}
	return true, nil
}

// IsTaskFiles reports whether the files of the folder dir (slash paths
// under it) make a task: a state.json or a progress.md directly in it. A
// folder holding only outputs/ and sources/ (the deliverables an archive
// leaves in place) is not one.
func IsTaskFiles(dir string, files []string) bool {
	for _, f := range files {
		if f == dir+"/"+StateFile || f == dir+"/"+ProgressFile {
			return true
		}
	}
	return false
}

// ArchiveRefs returns every ref under the archive prefixes, unpeeled.
func (s *Store) ArchiveRefs() (map[string]string, error) {
	out := map[string]string{}
	for _, prefix := range []string{ArchiveBranchPrefix, ArchiveTagPrefix} {
		refs, err := s.Repo.RawRefs(prefix)
		if err != nil {
			return nil, err
		}
		for k, v := range refs {
			out[k] = v
		}
	}
	return out, nil
}

// PeeledRefs lists the refs under prefix with the commits they lead to;
// refs that do not resolve are left out (itr verify reports them).
func (s *Store) PeeledRefs(prefix string) (map[string]string, error) {
	raw, err := s.Repo.RawRefs(prefix)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for name, v := range raw {
		if commit, err := s.Repo.PeelCommit(v); err == nil {
			out[name] = commit
		}
	}
	return out, nil
}

// ArchivePattern names what itr verify checked when no task is active but
// archives exist.
const ArchivePattern = "itr/archive/*"

// Blob reads a blob by hash; "" (no file) is nil.
func (s *Store) Blob(hash string) ([]byte, error) {
	if hash == "" {
		return nil, nil
	}
	b, err := s.Repo.ReadBlob(hash)
	noteRead(len(b))
	return b, err
}

// ReadAt reads a file at a commit; a missing file is nil.
func (s *Store) ReadAt(rev, rel string) ([]byte, error) {
	data, err := s.Repo.ReadFile(rev, rel)
	if errors.Is(err, gitstate.ErrNotFound) {
		return nil, nil
	}
	return data, err
}

func Short(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}

// WorkCommits names the work commits of this iteration: the revisions
// given, or else the commits on the first-parent line since the task's
// previous itr commit that are not itr's own, as "abc1234: subject".
func (s *Store) WorkCommits(t *Task, revs []string) ([]string, error) {
	list, err := s.WorkCommitList(t, revs)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range list {
		out = append(out, c.Line)
	}
	return out, nil
}

// WorkCommit is one work commit of an iteration: its full hash and the
// line the entry's Commit field gives it ("abc1234: subject").
type WorkCommit struct {
	Hash, Line string
}

// WorkCommitList is WorkCommits with each commit's full hash, oldest first.
func (s *Store) WorkCommitList(t *Task, revs []string) ([]WorkCommit, error) {
	var out []WorkCommit
	if len(revs) > 0 {
		for _, rev := range revs {
			hash, err := s.Repo.ResolveRev(rev)
			if err != nil {
				return nil, fmt.Errorf("--commit %s: %w", rev, err)
			}
			var subject string
			err = s.Repo.History(hash, func(c gitstate.Commit) bool { subject = c.Subject; return false })
			if err != nil {
				return nil, err
			}
			out = append(out, WorkCommit{Hash: hash, Line: hash[:7] + ": " + subject})
		}
		return out, nil
	}
	var found []WorkCommit
	err := s.Repo.History("HEAD", func(c gitstate.Commit) bool {
		if _, ok := c.Trailer(TrailerTask); ok {
			if v, _ := c.Trailer(TrailerTask); v == t.Slug {
				return false
			}
			return true
		}
		found = append(found, WorkCommit{Hash: c.Hash, Line: c.Hash[:7] + ": " + c.Subject})
		return len(found) < 50
	})
	if err != nil {
		return nil, err
	}
	for i := len(found) - 1; i >= 0; i-- {
		out = append(out, found[i])
	}
	return out, nil
}

// TouchedFiles are the files the work commits changed, each against its
// first parent, once each and sorted. The cost grows with what the
// commits changed, not with the repository.
func (s *Store) TouchedFiles(commits []WorkCommit) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, c := range commits {
		paths, err := s.Repo.ChangedFiles(c.Hash)
		if err != nil {
			return nil, fmt.Errorf("the files of work commit %s: %w", Short(c.Hash), err)
		}
		for _, p := range paths {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}
