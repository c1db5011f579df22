package workspace

import (
	"github.com/itr-dev/itr/internal/workspace/hooks"
	"github.com/itr-dev/itr/internal/workspace/merge"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/internal/workspace/view"
	"github.com/itr-dev/itr/reconcile"
)

// The types of the rooms that front ends see through Workspace.
type (
	// Finding is one problem itr verify found.
	Finding = verify.Finding
	// VerifyReport is the result of itr verify.
	VerifyReport = verify.Report
	// UndoReport is one undo by a commit made without itr, as reported.
	UndoReport = verify.UndoReport
)

// Verify checks a task without changing anything; see verify.Task.
func (w *Workspace) Verify(slug string) (*VerifyReport, error) { return verify.Task(w.Store, slug) }

// VerifyRequest asks for itr verify of a task (Slug, empty for the active
// one). Progress, when set, is told how far the walk of the history got:
// called after each commit checked, with the commits checked and the
// commits this walk checks (those since a remembered walk, or all); a
// front end decides whether and how to show it.
type VerifyRequest struct {
	Slug     string
	Progress func(done, total int)
}

// VerifyWith is Verify with the request's progress callback.
func (w *Workspace) VerifyWith(req VerifyRequest) (*VerifyReport, error) {
	return verify.Run(w.Store, verify.Request{Slug: req.Slug, Progress: req.Progress})
}

// The read models of the view room.
type (
	// Summary answers itr status.
	Summary = view.Summary
	// UnitStatus is one unit as status and prime show it.
	UnitStatus = view.UnitStatus
	// NextInfo answers itr next.
	NextInfo = view.NextInfo
	// Action is one move the rule book accepts now, as a command line.
	Action = view.Action
	// Hold says why no work can be recorded now and what clears it.
	Hold = view.Hold
	// LogRow is one itr commit of a task.
	LogRow = view.LogRow
	// ListRow is one task of itr list.
	ListRow = view.ListRow
	// PrimeContext is what a new or compacted session reads first.
	PrimeContext = view.PrimeContext
	// GraphModel is the plan as a graph (itr graph, itr report).
	GraphModel = view.GraphModel
	// NextAllInfo answers itr next --all.
	NextAllInfo = view.NextAllInfo
	// UnitBrief is one unit's context for a subagent (itr prime --unit).
	UnitBrief = view.UnitBrief
	// MetricView is one of a unit's metrics with its target.
	MetricView = view.MetricView
)

// MetricsText words a unit's metrics on one line; see view.MetricsText.
func MetricsText(ms []MetricView) string { return view.MetricsText(ms) }

// FutureSuffix ends a time since the last checkpoint that is in the future.
const FutureSuffix = view.FutureSuffix

// IsNoState reports whether err means there is no itr state here at all.
func IsNoState(err error) bool { return view.IsNoState(err) }

// Status summarises a task; see view.Status.
func (w *Workspace) Status(slug string) (*Summary, error) { return view.Status(w.Store, slug) }

// Next is the unit to work on now; see view.Next.
func (w *Workspace) Next(slug string) (*NextInfo, error) { return view.Next(w.Store, slug) }

// NextAll lists every unit that can be worked on now; see view.NextAll.
func (w *Workspace) NextAll(slug string) (*NextAllInfo, error) { return view.NextAll(w.Store, slug) }

// Brief gives one unit's context for a subagent; see view.Brief.
func (w *Workspace) Brief(slug, unit string) (*UnitBrief, error) {
	return view.Brief(w.Store, slug, unit)
}

// Log lists a task's itr commits, newest first; see view.Log.
func (w *Workspace) Log(slug string, limit int) ([]LogRow, error) {
	return view.Log(w.Store, slug, limit)
}

// List lists the active and archived tasks; see view.List.
func (w *Workspace) List() ([]ListRow, error) { return view.List(w.Store) }

// Accepted lists the units the rule book accepts action for now; see
// view.Accepted.
func (w *Workspace) Accepted(slug string, action reconcile.Action) ([]UnitStatus, error) {
	return view.Accepted(w.Store, slug, action)
}

// Prime is the context a session resumes from; see view.Prime.
func (w *Workspace) Prime(slug string) (*PrimeContext, error) { return view.Prime(w.Store, slug) }

// HookReport says what hooks install or uninstall did.
type HookReport = hooks.Report

// HookState is the pre-commit hook in place; see hooks.Status.
type HookState = hooks.State

// HookOptions say which pre-commit hook InstallHook puts in place.
type HookOptions = hooks.InstallOptions

// AgentLogFile is where the agents' logging hooks write.
const AgentLogFile = hooks.AgentLogFile

// InstallHook installs itr's pre-commit hook; see hooks.Install.
func (w *Workspace) InstallHook(opt HookOptions) (*HookReport, error) {
	return hooks.Install(w.Store, opt)
}

// UninstallHook removes itr's pre-commit hook; see hooks.Uninstall.
func (w *Workspace) UninstallHook() (*HookReport, error) { return hooks.Uninstall(w.Store) }

// CheckStaged is the pre-commit check; see hooks.CheckStaged.
func (w *Workspace) CheckStaged() ([]Finding, error) { return hooks.CheckStaged(w.Store) }

// LogAgentEvent appends one line to the agent log; see hooks.LogAgentEvent.
func (w *Workspace) LogAgentEvent(event string, fields map[string]string) error {
	return hooks.LogAgentEvent(w.Store, event, fields)
}

// UnrecordedWork says why an agent should checkpoint before it stops; see
// hooks.UnrecordedWork.
func (w *Workspace) UnrecordedWork() (string, error) {
	return hooks.UnrecordedWork(w.Store, func(slug string) (hooks.Advice, error) {
		nx, err := w.Next(slug)
		if err != nil {
			return hooks.Advice{}, err
		}
		if h := nx.Hold; h != nil {
			return hooks.Advice{Hold: h.Reason + "; " + h.Clear}, nil
		}
		// The first checkpoint the rule book accepts; under way, the plain
		// one: the Stop hook asks for the work to be recorded, not declared
		// done.
		var first *Action
		for i, a := range nx.Actions {
			if a.Offer.Op != reconcile.OpCheckpoint || a.For == string(reconcile.MoveStart) {
				continue
			}
			if a.For == string(reconcile.MoveContinue) && !a.Offer.Intent.Signal {
				return hooks.Advice{Unit: a.Unit, Command: a.Command + " (add --signal when the unit's work is done)"}, nil
			}
			if first == nil {
				first = &nx.Actions[i]
			}
		}
		if first != nil {
			return hooks.Advice{Unit: first.Unit, Command: first.Command}, nil
		}
		return hooks.Advice{}, nil
	})
}

// MarkCompacted records that an agent's session is being compacted; see
// hooks.MarkCompacted.
func (w *Workspace) MarkCompacted(session string) error { return hooks.MarkCompacted(w.Store, session) }

// CompactionPending reports whether a compacted session waits for its
// context; see hooks.CompactionPending.
func (w *Workspace) CompactionPending(session string) bool {
	return hooks.CompactionPending(w.Store, session)
}

// TakeCompaction takes the mark of a pending compaction, once; see
// hooks.TakeCompaction.
func (w *Workspace) TakeCompaction(session string) bool {
	return hooks.TakeCompaction(w.Store, session)
}

// MergeRequest is one call of the merge driver.
type MergeRequest = merge.Request

// MergeDriver resolves one of itr's files in a merge; see merge.Driver.
func (w *Workspace) MergeDriver(req MergeRequest) error { return merge.Driver(w.Store, req) }

// Setup registers itr's merge driver; see merge.Setup.
func (w *Workspace) Setup() ([]string, error) { return merge.Setup(w.Store) }

// Graph is the plan of a task as a graph (view.Graph).
func (w *Workspace) Graph(slug string) (*GraphModel, error) { return view.Graph(w.Store, slug) }

// Report renders a task as one self-contained HTML page (view.Report).
func (w *Workspace) Report(slug string) ([]byte, error) { return view.Report(w.Store, slug, w.Now()) }
