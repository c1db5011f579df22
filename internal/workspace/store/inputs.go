package store

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/state"
)

// FileFact is a file or folder a unit reads or writes as the working tree
// has it.
type FileFact struct {
	// Name is the name the plan gives; Path the repository path it was
	// found at (the task folder is looked in first, then the repository
	// root), or where it would be when it is missing.
	Name string `json:"name"`
	Path string `json:"path"`
	// From is the unit whose output it is, for an input named as
	// "T1.output".
	From    string `json:"from,omitempty"`
	Missing bool   `json:"missing,omitempty"`
	// Size is a file's size in bytes; for a folder, the total of the
	// regular files in it, Files counting them.
	Size  int64 `json:"size"`
	Dir   bool  `json:"dir,omitempty"`
	Files int   `json:"files,omitempty"`
}

// String reads "outputs/sources.md (R1.output)" for an input from a unit,
// else the name.
func (f FileFact) String() string {
	if f.From != "" {
		return f.Name + " (" + f.From + ".output)"
	}
	return f.Name
}

// folderFileCap bounds the files counted in one folder, so a huge folder
// named as an input costs little.
const folderFileCap = 10000

// NamePaths are the repository paths a name a plan gives (an Output or an
// input) may have, in the order they are looked up: in the task folder
// (as the seed's outputs/ are), then from the repository root (as a
// development plan may name docs/api.md). The first that exists is it.
func (s *Store) NamePaths(slug, name string) []string {
	return []string{s.Rel(slug, name), name}
}

// FileOf looks up a name a plan gives (a folder when it ends in "/") in
// the task folder, then from the repository root. Only regular files and
// real folders count: git keeps nothing else, and itr reads nothing else.
func (s *Store) FileOf(slug, name string) FileFact {
	f := FileFact{Name: name, Missing: true}
	wantDir := len(name) > 0 && name[len(name)-1] == '/'
	for i, rel := range s.NamePaths(slug, name) {
		clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
		if i == 0 {
			f.Path = clean
		}
		if s.linkedParent(clean) {
			continue // outside the repository for git; never read through a link
		}
		fi, err := os.Lstat(s.Abs(clean))
		if err != nil {
			continue
		}
		switch {
		case fi.Mode().IsRegular() && !wantDir:
			f.Path, f.Missing, f.Size = clean, false, fi.Size()
			return f
		case fi.IsDir():
			f.Path, f.Missing, f.Dir = clean, false, true
			root := s.Abs(clean)
			_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err != nil || f.Files >= folderFileCap {
					return filepath.SkipDir
				}
				if d.Type().IsRegular() {
					if info, err := d.Info(); err == nil {
						f.Files++
						f.Size += info.Size()
					}
				}
				return nil
			})
			return f
		}
	}
	return f
}

// InputsOf are the inputs unit id of the task reads (plan.InputFiles), as
// the working tree has them; nil without a plan or inputs.
func (s *Store) InputsOf(t *Task, id string) []FileFact {
	if t.Plan == nil {
		return nil
	}
	var out []FileFact
	for _, in := range t.Plan.InputFiles(id) {
		f := s.FileOf(t.Slug, in.Name)
		f.From = in.From
		out = append(out, f)
	}
	return out
}

// MissingInputs maps each pending unit of the task whose inputs are not
// all there to the missing ones (what reconcile.Intent.Missing takes):
// only a pending unit's start is refused on them.
func (s *Store) MissingInputs(t *Task) map[string][]string { return s.MissingInputsIn(t, t.State) }

// MissingInputsIn is MissingInputs with the units' statuses taken from
// view (the fold of the log, where a view reads it).
func (s *Store) MissingInputsIn(t *Task, view *state.State) map[string][]string {
	if t.Plan == nil || view == nil {
		return nil
	}
	var out map[string][]string
	for _, u := range t.Plan.Units {
		if u.Inputs == "" {
			continue
		}
		if su := view.Units[u.ID]; su == nil || su.Status != state.Pending {
			continue
		}
		for _, f := range s.InputsOf(t, u.ID) {
			if f.Missing {
				if out == nil {
					out = map[string][]string{}
				}
				out[u.ID] = append(out[u.ID], f.String())
			}
		}
	}
	return out
}

// linkedParent reports whether a folder on the way to rel (a repository
// path) is a symbolic link: git adds nothing beyond one, so neither does
// itr look through one.
func (s *Store) linkedParent(rel string) bool {
	for dir := path.Dir(rel); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		if fi, err := os.Lstat(s.Abs(dir)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

// ChangedOutputs are the names among names (outputs as a plan gives them)
// whose file in the working tree differs from the task's last commit: a
// file changed, or one written and never committed. A missing file is not
// among them (it is missing, which the outputs' check says).
func (s *Store) ChangedOutputs(t *Task, names []string) ([]string, error) {
	var out []string
	for _, name := range names {
		for _, p := range s.NamePaths(t.Slug, name) {
			data, err := s.ReadWorktree(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return out, err
			}
			if t.Head.Hash == "" {
				out = append(out, name)
				break
			}
			h, err := s.Repo.FileHashAt(t.Head.Hash, p)
			if err != nil && !errors.Is(err, gitstate.ErrNotFound) {
				return out, err
			}
			if err != nil || h != s.Repo.BlobID(data) {
				out = append(out, name)
			}
			break
		}
	}
	return out, nil
}
