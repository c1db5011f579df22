package workspace

import "github.com/itr-dev/itr/internal/workspace/view"

// ReportRequest asks for a task's report page with a choice of how much
// history it shows (MCP and the live board can carry it as it is).
type ReportRequest struct {
	Slug string
	// History is how many entries each unit, the task log and the
	// reconcile list show, newest first; 0 shows every entry.
	History int
}

// ReportWith renders the report page of req.Slug as req asks.
func (w *Workspace) ReportWith(req ReportRequest) ([]byte, error) {
	return view.ReportWith(w.Store, req.Slug, w.Now(), view.ReportOptions{History: req.History})
}

// DefaultReportHistory is how many entries of each unit a report shows
// unless asked otherwise (view.DefaultReportHistory).
const DefaultReportHistory = view.DefaultReportHistory

// Palette is the one palette of itr's pictures (view.Palette).
var Palette = view.Palette
