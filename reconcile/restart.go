package reconcile

import (
	"fmt"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// Restarting a unit (seed 004's "restart from 0%"): the unit's work starts
// over from nothing, as one Restarted entry with its reason. The unit goes
// back to pending; what its work had reached (its progress, its items, its
// last run, its verification) no longer holds. What it spent stays spent:
// iterations_used and confirmations_used are kept, so the unit's Max
// iterations and the task's Max total iterations count every iteration
// once, before and after the restart, and the next iteration's number
// follows the last one (the history is never renumbered or erased). A
// restart is therefore never a way round a limit.
//
// Which units restart: one under way (in_progress, confirming, verifying)
// and a failed one (seed 004's "retry failed step or start fresh": reopen
// retries, restart starts fresh). A pending unit has nothing to restart; a
// blocked one is unblocked first (the block is about something outside the
// work); a timed-out one needs its limit raised first (a restart gives no
// iterations); a done or skipped one is reopened instead.

// restartable reports whether a unit in status st may restart.
func restartable(st state.Status) bool {
	switch st {
	case state.InProgress, state.Confirming, state.Verifying, state.Failed:
		return true
	}
	return false
}

// restartRefusal is why the unit u may not restart, nil when it may.
func restartRefusal(u *state.Unit) *Refusal {
	if restartable(u.Status) {
		return nil
	}
	return &Refusal{Code: NotRestartable, Unit: u.ID, Status: u.Status, Reason: state.Val(u.Reason),
		ReasonKind: state.Val(u.ReasonKind), ClearWhen: state.Val(u.ClearWhen), Max: state.Val(u.MaxIterations)}
}

// restart applies a Restarted entry (allowed has checked the unit may):
// the unit is pending with its attempt's results gone (reason, progress,
// items, last run, verification, started_at) and restarts counted; its
// iterations, confirmations and limit are kept. It stops being the current
// unit. A task past execute is back in execute.
func restart(s *state.State, ev Event) {
	u := unit(s, ev.Unit)
	u.Status = state.Pending
	u.Reason, u.ReasonKind, u.ClearWhen = nil, nil, nil
	u.VerificationPassed, u.CompletedAt, u.VerifiedBy, u.LastRun = nil, nil, nil, nil
	u.Progress, u.ProgressDetail, u.Items, u.StartedAt = nil, nil, nil, nil
	u.Checks, u.GateRounds = nil, nil
	u.Outputs = nil
	u.Restarts = state.Ptr(state.Val(u.Restarts) + 1)
	if state.Val(s.Current) == u.ID {
		s.Current, s.CurrentIteration = nil, nil
	}
	if s.Phase == state.Verify || s.Phase == state.Deliver {
		s.Phase = state.Execute
	}
}

// notRestartable words the refusal to restart a unit in its status; field
// names a field of a request (reason) as the front end does.
func notRestartable(r *Refusal, field func(string) string) string {
	u := r.Unit
	switch r.Status {
	case state.Pending:
		return fmt.Sprintf("unit %s is pending: it has no work to restart (its next checkpoint starts it); nothing was recorded", u)
	case state.Blocked:
		return fmt.Sprintf("unit %s is blocked (%s); nothing was recorded: a restart does not clear a block: run `itr unblock %s` first, then restart it", u, blockText(r), u)
	case state.Timeout:
		return fmt.Sprintf("unit %s used all %d of its iterations; nothing was recorded: a restart gives it no more (they stay spent): raise its Max iterations in the plan and run `itr plan`, then restart it", u, r.Max)
	case state.Done:
		return fmt.Sprintf("unit %s is done; nothing was recorded: a finished unit found wrong is reopened, not restarted (`itr reopen %s %s TEXT`)", u, u, field("reason"))
	case state.Skipped:
		return fmt.Sprintf("unit %s was skipped (%s); nothing was recorded: to work on it after all, reopen it (`itr reopen %s %s TEXT`)", u, r.Reason, u, field("reason"))
	}
	return fmt.Sprintf("unit %s is %s: only a unit under way (in_progress, confirming, verifying) or failed can be restarted; nothing was recorded", u, r.Status)
}

// isRestart reports whether ev is a Restarted entry.
func isRestart(ev Event) bool { return ev.Kind == progresslog.KindRestarted }
