package hooks

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
)

// The server's guard: a pre-receive hook in the repository a team pushes
// to (`itr hooks install --server`), which refuses a push whose new commits
// rewrite an itr log by the rule the pre-commit hook applies to a commit
// (appendOnly), so a clone without the hook cannot rewrite the shared
// history. A push that changes no log costs two git processes
// (gitstate.PushedChanges); only a log a commit changes is read.

// serverMarker identifies the pre-receive hook itr installs.
const serverMarker = "# itr: server guard (pre-receive)"

// ServerHookName is the hook the server guard is.
const ServerHookName = "pre-receive"

const serverScript = `#!/bin/sh
` + serverMarker + `
# Installed by "itr hooks install --server": refuses a push whose new
# commits rewrite earlier entries of an itr log (progress.md,
# guardrails.md, decisions.md), or that moves a branch to a history whose
# logs lost entries. "itr hooks uninstall --server" removes it and puts
# back the hook that was here before (pre-receive.itr-chained).
case "$0" in
*/*) chained="${0%/*}/pre-receive.itr-chained" ;;
*) chained=./pre-receive.itr-chained ;;
esac
if ! command -v itr >/dev/null 2>&1; then
  echo "itr: not on the PATH of the server's hooks ($PATH): the push is refused, as its logs cannot be checked; install itr there, or run \"itr hooks uninstall --server\" in this repository" >&2
  exit 1
fi
if [ -x "$chained" ]; then
  # Both read the pushed refs: keep them for the second.
  input=$(cat)
  printf '%s\n' "$input" | "$chained" "$@" || exit $?
  printf '%s\n' "$input" | itr hooks pre-receive
  exit $?
fi
exec itr hooks pre-receive
`

// InstallServer installs the server guard, the pre-receive hook, in the
// repository a team pushes to (a bare one, usually). An existing
// pre-receive hook is kept as pre-receive.itr-chained and run first, with
// the same input; installing twice changes nothing, and an older itr's
// guard is replaced in place.
func InstallServer(st *store.Store) (*Report, error) {
	return serverSlot.install(st, []byte(serverScript), &Report{Kind: "script"})
}

// UninstallServer removes the server guard and restores the hook it
// chained, if any.
func UninstallServer(st *store.Store) (*Report, error) {
	return serverSlot.uninstall(st)
}

// CheckPush is the server guard's check, run by the pre-receive hook in
// dir (the repository receiving the push) on the refs the push updates:
// every log a pushed commit changes must extend its version in the
// commit's first parent, and a branch moved other than forward must keep
// every entry its logs had. A log is progress.md, guardrails.md or
// decisions.md of a task (see isTaskLog); a log a commit removes (itr
// archive) or adds is not a rewrite. It returns one finding for each rewrite.
func CheckPush(dir string, updates []gitstate.PushedRef) ([]verify.Finding, error) {
	changes, err := gitstate.PushedChanges(dir, updates, []string{store.ProgressFile, store.GuardrailsFile, store.DecisionsFile})
	if err != nil {
		return nil, err
	}
	var cands []gitstate.PushedChange
	for _, c := range changes {
		if c.Status == "M" || c.Status == "T" {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	// One read of what each candidate needs: the .itr.yaml of the commit
	// and of its base, the state.json beside the log at the base, and the
	// two versions of the log.
	const per = 5
	var specs []string
	for _, c := range cands {
		specs = append(specs, c.Commit+":"+store.ConfigFile, c.Base+":"+store.ConfigFile,
			c.Base+":"+path.Join(path.Dir(c.Path), store.StateFile), c.OldBlob, c.NewBlob)
	}
	data, err := gitstate.ReadPushedObjects(dir, specs)
	if err != nil {
		return nil, err
	}
	var out []verify.Finding
	for i, c := range cands {
		d := data[per*i : per*i+per]
		old, updated := d[3], d[4]
		if !isTaskLog(c.Path, d[0], d[1], d[2] != nil) {
			continue
		}
		v := appendOnly(path.Base(c.Path), old, updated)
		if v == nil {
			continue
		}
		f := verify.Finding{File: c.Path, Commit: c.Commit, Problem: rewriteProblem + v.Error(), Diff: v.Diff,
			Fix: fmt.Sprintf("entries are append-only: in your clone, restore them with `git checkout %s -- %s`, append instead, and rewrite commit %s before pushing again (git rebase -i), as the server keeps what it accepts", short(c.Base), c.Path, short(c.Commit))}
		if c.Ref != "" {
			f.Problem = fmt.Sprintf("moving %s from %s to %s would rewrite earlier entries: %s", c.Ref, short(c.Base), short(c.Commit), v.Error())
			f.Fix = fmt.Sprintf("a branch's logs keep every entry they had: bring %s into your branch (itr sync, or git pull) and push what extends it, not a history that replaces it", c.Ref)
		}
		out = append(out, f)
	}
	return out, nil
}

// isTaskLog reports whether the log at p belongs to an itr task: its
// folder held a state.json at the base (a task folder wherever the root
// is), or it lies under the task root that the commit's or the base's
// .itr.yaml names (cfgs; nil for none), or under the default root. Both
// sides' roots count, so a commit that moves the root cannot take the
// old one's logs out of the check; a .itr.yaml that does not parse names
// no root (the local commands refuse it, and state.json still marks the
// tasks).
func isTaskLog(p string, commitCfg, baseCfg []byte, stateBeside bool) bool {
	if stateBeside {
		return true
	}
	roots := []string{store.DefaultRoot}
	for _, text := range [][]byte{commitCfg, baseCfg} {
		if text == nil {
			continue
		}
		if cfg, err := store.ParseConfig(store.ConfigFile, text); err == nil && cfg.Root != "" {
			roots = append(roots, cfg.Root)
		}
	}
	for _, root := range roots {
		root = strings.TrimPrefix(path.Clean(filepath.ToSlash(root)), "./")
		if strings.HasPrefix(p, root+"/") {
			return true
		}
	}
	return false
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
