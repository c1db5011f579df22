package workspace

import (
	"io"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/hooks"
)

// InstallServerHook installs the server guard, a pre-receive hook; see
// hooks.InstallServer.
func (w *Workspace) InstallServerHook() (*HookReport, error) { return hooks.InstallServer(w.Store) }

// UninstallServerHook removes the server guard; see hooks.UninstallServer.
func (w *Workspace) UninstallServerHook() (*HookReport, error) {
	return hooks.UninstallServer(w.Store)
}

// PushCheckRequest is what the server guard checks: the repository
// receiving a push (Dir, "" for the current folder) and the refs the push
// updates.
type PushCheckRequest struct {
	Dir     string
	Updates []gitstate.PushedRef
}

// ReadPushCheck reads a pre-receive hook's input into a request for dir.
func ReadPushCheck(dir string, in io.Reader) (PushCheckRequest, error) {
	ups, err := gitstate.ParsePushedRefs(in)
	return PushCheckRequest{Dir: dir, Updates: ups}, err
}

// CheckPush is the server guard's check, which needs no workspace (it runs
// in git's quarantine, before the refs move); see hooks.CheckPush.
func CheckPush(req PushCheckRequest) ([]Finding, error) {
	dir := req.Dir
	if dir == "" {
		dir = "."
	}
	return hooks.CheckPush(dir, req.Updates)
}
