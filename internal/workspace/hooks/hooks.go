// Package hooks holds what runs inside other programs' hooks: itr's
// pre-commit hook (Install, Uninstall, and CheckStaged, the append-only
// check of staged logs), and the answers to agents' hooks (LogAgentEvent
// for a compaction, UnrecordedWork before an agent stops).
package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/precommit"
	"github.com/itr-dev/itr/internal/atomicfile"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/progresslog"
)

// hookMarker identifies the pre-commit hook itr installs, the program and
// the script alike.
const hookMarker = precommit.Marker

const hookScript = `#!/bin/sh
` + hookMarker + `
# Installed by "itr hooks install": refuses a commit that rewrites earlier
# entries of an itr log (progress.md, guardrails.md, decisions.md). "itr hooks uninstall"
# removes it and puts back the hook that was here before (pre-commit.itr-chained).
case "$0" in
*/*) chained="${0%/*}/pre-commit.itr-chained" ;;
*) chained=./pre-commit.itr-chained ;;
esac
if [ -x "$chained" ]; then
  "$chained" "$@" || exit $?
fi
if ! command -v itr >/dev/null 2>&1; then
  echo "itr: not on PATH; the append-only check of itr's logs was skipped" >&2
  exit 0
fi
# Only a commit staging a progress.md, guardrails.md or decisions.md needs the check, and
# git's plumbing says whether it does without starting itr: exit 0 is none
# staged. Any other status (1: one is staged; an error, such as no commit
# yet) runs the check.
git diff-index --cached --quiet HEAD -- \
  ':(glob)**/progress.md' ':(glob)**/guardrails.md' ':(glob)**/decisions.md' >/dev/null 2>&1 && exit 0
exec itr hooks pre-commit
`

// Report says what hooks install or uninstall did.
type Report struct {
	Hook    string `json:"hook"`
	Chained string `json:"chained,omitempty"`
	Changed bool   `json:"changed"`
	// Kind is what install put in place: "program" (a copy of itr-hook)
	// or "script" (the shell script, which starts git diff-index).
	Kind string `json:"kind,omitempty"`
	// Program is the itr-hook copied; Why says why the script was
	// installed instead.
	Program string `json:"program,omitempty"`
	Why     string `json:"why,omitempty"`
}

// ProgramName is the hook program (cmd/itr-hook), shipped beside itr.
const ProgramName = "itr-hook"

// InstallOptions say which hook Install puts in place.
type InstallOptions struct {
	// Script installs the shell script even where itr-hook is found.
	Script bool
	// Program is the itr-hook to copy; "" looks beside the running itr,
	// then on PATH.
	Program string
}

// hookContent is what Install writes as the pre-commit hook: a copy of the
// hook program (it reads the index and HEAD itself, so a commit staging no
// log costs one small process), else the script. Windows gets the script:
// Git for Windows runs hooks through its sh.
func hookContent(opt InstallOptions) (data []byte, rep *Report, err error) {
	script := func(why string) ([]byte, *Report, error) {
		return []byte(hookScript), &Report{Kind: "script", Why: why}, nil
	}
	switch {
	case opt.Script:
		return script("asked for with --script")
	case runtime.GOOS == "windows":
		return script("on Windows, git runs hooks through its sh")
	}
	prog := opt.Program
	if prog == "" {
		if self, err := os.Executable(); err == nil {
			if p := filepath.Join(filepath.Dir(self), ProgramName); isFile(p) {
				prog = p
			}
		}
	}
	if prog == "" {
		p, err := exec.LookPath(ProgramName)
		if err != nil {
			return script(ProgramName + " is neither beside itr nor on PATH (make build puts it in bin/, releases beside itr)")
		}
		prog = p
	}
	data, err = os.ReadFile(prog)
	if err != nil {
		return nil, nil, fmt.Errorf("read the hook program: %w", err)
	}
	if !bytes.Contains(data, []byte(hookMarker)) {
		return nil, nil, fmt.Errorf("%s is not itr's hook program (it lacks %q); reinstall itr, or use --script", prog, hookMarker)
	}
	return data, &Report{Kind: "program", Program: prog}, nil
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// A slot is one hook itr installs in a repository's hooks folder: the
// pre-commit hook of a clone or the pre-receive guard of a server. Both
// keep a hook that was there as NAME.itr-chained and run it first.
type slot struct {
	name   string // the hook's file name
	marker string // the line that makes a hook itr's
	again  string // the command that installs it, for the refusal
}

var (
	preCommitSlot = slot{"pre-commit", hookMarker, "itr hooks install"}
	serverSlot    = slot{ServerHookName, serverMarker, "itr hooks install --server"}
)

// files locates the hook and the chained original, and reads the hook;
// err is the read's (fs.ErrNotExist when there is none), or the failure
// to find the hooks folder, in which case hook is "".
func (s slot) files(st *store.Store) (dir, hook, chained string, cur []byte, err error) {
	if dir, err = st.Repo.HooksDir(); err != nil {
		return "", "", "", nil, err
	}
	hook = filepath.Join(dir, s.name)
	cur, err = os.ReadFile(hook)
	return dir, hook, hook + ".itr-chained", cur, err
}

// hookFiles is files of the pre-commit hook.
func hookFiles(st *store.Store) (dir, hook, chained string, cur []byte, err error) {
	return preCommitSlot.files(st)
}

// install writes content as the slot's hook and fills rep in. An
// existing hook not itr's is kept as the chained one; installing twice
// changes nothing, and an older itr hook is replaced in place, the
// chained hook kept as it is.
func (s slot) install(st *store.Store, content []byte, rep *Report) (*Report, error) {
	dir, hook, chained, cur, err := s.files(st)
	if hook == "" {
		return nil, err
	}
	rep.Hook = hook
	switch {
	case err == nil && bytes.Contains(cur, []byte(s.marker)):
		if _, err := os.Stat(chained); err == nil {
			rep.Chained = chained
		}
		if bytes.Equal(cur, content) {
			return rep, nil
		}
		if err := writeHook(hook, content); err != nil {
			return nil, err
		}
		rep.Changed = true
		return rep, nil
	case err == nil:
		if _, err := os.Lstat(chained); err == nil {
			return nil, fmt.Errorf("%s already exists; move it away, then run `%s` again", chained, s.again)
		}
		if err := os.Rename(hook, chained); err != nil {
			return nil, fmt.Errorf("keep the existing hook: %w", err)
		}
		rep.Chained = chained
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read %s: %w", hook, err)
	}
	err = os.MkdirAll(dir, 0o755)
	if err == nil {
		err = writeHook(hook, content)
	}
	if err != nil {
		// The new hook did not land: the one that was there goes back.
		if rep.Chained != "" {
			if rerr := os.Rename(chained, hook); rerr != nil {
				return nil, fmt.Errorf("%w; and putting the previous hook back failed: %w (it is %s: rename it to %s)", err, rerr, chained, hook)
			}
		}
		return nil, err
	}
	rep.Changed = true
	return rep, nil
}

// writeHook writes an executable hook atomically.
func writeHook(hook string, content []byte) error {
	if err := atomicfile.Write(hook, content, 0o755); err != nil {
		return err
	}
	return os.Chmod(hook, 0o755)
}

// uninstall removes the slot's hook if it is itr's and restores the one
// it chained, if any.
func (s slot) uninstall(st *store.Store) (*Report, error) {
	_, hook, chained, cur, err := s.files(st)
	if hook == "" {
		return nil, err
	}
	rep := &Report{Hook: hook}
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !bytes.Contains(cur, []byte(s.marker))) {
		return rep, nil // not ours: leave it
	}
	if err != nil {
		return nil, err
	}
	if err := os.Remove(hook); err != nil {
		return nil, err
	}
	rep.Changed = true
	if _, err := os.Lstat(chained); err == nil {
		if err := os.Rename(chained, hook); err != nil {
			return nil, fmt.Errorf("restore %s: %w", chained, err)
		}
		rep.Chained = chained
	}
	return rep, nil
}

// Install installs itr's pre-commit hook (see hookContent). An existing
// pre-commit hook is kept as pre-commit.itr-chained and run first;
// installing twice changes nothing, and installing again after an upgrade
// of itr replaces an older itr hook, either kind, in place.
func Install(st *store.Store, opt InstallOptions) (*Report, error) {
	content, rep, err := hookContent(opt)
	if err != nil {
		return nil, err
	}
	return preCommitSlot.install(st, content, rep)
}

// Uninstall removes itr's pre-commit hook and restores the one it
// chained, if any.
func Uninstall(st *store.Store) (*Report, error) {
	return preCommitSlot.uninstall(st)
}

// CheckStaged is the pre-commit check: every staged progress.md,
// guardrails.md and decisions.md under the root must extend its version in
// HEAD. It returns
// one finding for each that does not.
func CheckStaged(st *store.Store) ([]verify.Finding, error) {
	entries, err := st.Repo.Staged(st.Root)
	if err != nil {
		return nil, err
	}
	head, err := st.Repo.Head()
	if err != nil {
		return nil, err
	}
	var out []verify.Finding
	for _, e := range entries {
		base := path.Base(e.Path)
		if e.Stage != 0 || !isLogFile(base) || head.Unborn {
			continue
		}
		old, err := st.Repo.ReadFile(head.Hash, e.Path)
		if errors.Is(err, gitstate.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		staged, err := st.Repo.ReadBlob(e.Hash)
		if err != nil {
			return nil, err
		}
		v := appendOnly(base, old, staged)
		if gone := verify.TakenOut(old, staged); base == store.ProgressFile && v != nil && len(gone) > 0 {
			out = append(out, verify.Finding{File: e.Path,
				Problem: fmt.Sprintf("the index holds an older %s than HEAD: this commit would take out %d entr%s itr committed (%s); a git command wrote back an index it had read before itr's checkpoint", base, len(gone), store.Plural(len(gone), "y", "ies"), strings.Join(store.FirstN(gone, 3), "; ")),
				Fix:     fmt.Sprintf("`git reset -q -- %s` puts HEAD's version of the task's files into the index (your working tree is untouched); then commit again", path.Dir(e.Path))})
			continue
		}
		if v != nil {
			out = append(out, verify.Finding{File: e.Path, Problem: rewriteProblem + v.Error(),
				Fix:  fmt.Sprintf("entries are append-only: restore them with `git checkout HEAD -- %s` and append instead (or commit with --no-verify to override)", e.Path),
				Diff: v.Diff})
		}
	}
	return out, nil
}

// rewriteProblem begins the finding of a log whose earlier entries a
// commit changes, the pre-commit hook's and the server's alike.
const rewriteProblem = "the commit would rewrite earlier entries: "

// isLogFile reports whether base is the name of one of itr's append-only
// logs.
func isLogFile(base string) bool {
	return base == store.ProgressFile || base == store.GuardrailsFile || base == store.DecisionsFile
}

// appendOnly is the rule both hooks apply to a log that a commit changes:
// the new version of the file named base must extend the old one (nil),
// else the violation says where it does not.
func appendOnly(base string, old, updated []byte) *progresslog.Violation {
	switch base {
	case store.ProgressFile:
		return progresslog.IsAppendOnly(old, updated)
	case store.DecisionsFile:
		return progresslog.IsDecisionsAppendOnly(old, updated)
	default:
		return progresslog.IsGuardrailsAppendOnly(old, updated)
	}
}

// State is what the pre-commit hook in place is: Kind "program",
// "script", "other" (a hook that is not itr's) or "none"; Current when it
// is what `itr hooks install` would write now; Fix what to run when it is
// not.
type State struct {
	Hook    string `json:"hook"`
	Kind    string `json:"kind"`
	Current bool   `json:"current"`
	Fix     string `json:"fix,omitempty"`
}

// Status reports the pre-commit hook in place (itr doctor): an itr hook
// that differs from what Install would write now, as after an upgrade of
// itr, is not current.
func Status(st *store.Store) (*State, error) {
	_, hook, _, cur, err := hookFiles(st)
	if hook == "" {
		return nil, err
	}
	s := &State{Hook: hook, Kind: "none", Fix: "`itr hooks install` guards commits made with plain git"}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case err != nil:
		return nil, err
	case !bytes.Contains(cur, []byte(hookMarker)):
		s.Kind = "other"
		s.Fix = "`itr hooks install` keeps this hook as pre-commit.itr-chained and runs it first"
		return s, nil
	case bytes.HasPrefix(cur, []byte("#!")):
		s.Kind = "script"
	default:
		s.Kind = "program"
	}
	want, _, err := hookContent(InstallOptions{Script: s.Kind == "script"})
	s.Current = err == nil && bytes.Equal(cur, want)
	s.Fix = ""
	if !s.Current {
		s.Fix = "an older itr's hook: `itr hooks install` brings it up to date"
		if s.Kind == "script" {
			s.Fix = "an older itr's hook: `itr hooks install --script` brings it up to date"
		}
	}
	return s, nil
}
