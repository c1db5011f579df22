package workspace

import (
	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/hooks"
)

// DoctorReport says which gitstate engine serves this repository and why,
// and where everything is.
type DoctorReport struct {
	Engine       string         `json:"engine"`
	Reasons      []DoctorReason `json:"reasons"`
	Root         string         `json:"root"`
	GitFolder    string         `json:"git_dir"`
	CommonFolder string         `json:"common_dir"`
	TaskRoot     string         `json:"task_root"`
	ObjectFormat string         `json:"object_format"`
	RunHooks     bool           `json:"run_hooks"`
	Git          string         `json:"git"`
	// PreCommit is itr's pre-commit hook as installed (nil when the
	// hooks folder cannot be read).
	PreCommit *HookState `json:"pre_commit"`
}

// DoctorReason is one reason the native engine steps aside.
type DoctorReason struct {
	Setting string `json:"setting"`
	Value   string `json:"value"`
	Why     string `json:"why"`
}

// Doctor reports the engine chosen for this command and its reasons.
func (w *Workspace) Doctor() DoctorReport {
	c := w.Engine
	root, gitDir, common := c.Folders()
	rep := DoctorReport{
		Engine:       string(c.Engine),
		Reasons:      []DoctorReason{},
		Root:         root,
		GitFolder:    gitDir,
		CommonFolder: common,
		TaskRoot:     w.Root,
		ObjectFormat: c.ObjectFormat,
		RunHooks:     w.Config.RunHooks,
		Git:          gitstate.GitVersion(),
	}
	for _, r := range c.Reasons {
		rep.Reasons = append(rep.Reasons, DoctorReason{Setting: r.Setting, Value: r.Value, Why: r.Why})
	}
	rep.PreCommit, _ = hooks.Status(w.Store)
	return rep
}
