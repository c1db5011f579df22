package view

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// Pace is where the work stands over time: how much is done, what it
// cost, the task's own pace per finished unit and, from it, what remains.
type Pace struct {
	// PercentUnits is the share of units done; PercentWeighted the share
	// of their Estimates, when every unit has one of the same kind
	// (WeightKind: "pts" or "h").
	PercentUnits    int    `json:"percent_units"`
	PercentWeighted *int   `json:"percent_weighted,omitempty"`
	WeightKind      string `json:"weight_kind,omitempty"`
	// IterationsUsed is the task's iterations so far, IterationsLimit the
	// sum of its units' limits, MaxTotal the plan's Max total iterations.
	IterationsUsed  int `json:"iterations_used"`
	IterationsLimit int `json:"iterations_limit,omitempty"`
	MaxTotal        int `json:"max_total_iterations,omitempty"`
	// Finished counts the done units the pace is read from; the medians
	// are per finished unit (wall time from its first entry to done).
	Finished         int     `json:"finished_units"`
	MedianIterations float64 `json:"median_iterations,omitempty"`
	MedianSeconds    int64   `json:"median_seconds,omitempty"`
	// Remaining estimates what the unfinished units will take at this
	// pace, as a range (the finished units' quartiles); nil before three
	// units are done, with Note saying so.
	Remaining *Remaining `json:"remaining,omitempty"`
	Note      string     `json:"note,omitempty"`
}

// Remaining is an estimate of what is left, low to high.
type Remaining struct {
	Units          int   `json:"units"`
	IterationsLow  int   `json:"iterations_low"`
	IterationsHigh int   `json:"iterations_high"`
	SecondsLow     int64 `json:"seconds_low"`
	SecondsHigh    int64 `json:"seconds_high"`
}

// minFinished is how many done units a pace needs.
const minFinished = 3

// unitTimes are the first and the last entry times of each unit in a log.
type unitTimes struct{ first, last map[string]time.Time }

// paceOf reads the pace of a task's view, its plan and its log's times.
func paceOf(s *state.State, ids []string, units []*state.Unit, p *plan.Plan, ut unitTimes, now time.Time) Pace {
	var pc Pace
	done := 0
	var iters []float64
	var secs []float64
	limited := true
	for i, id := range ids {
		u := units[i]
		pc.IterationsUsed += state.Val(u.IterationsUsed)
		pc.IterationsLimit += state.Val(u.MaxIterations)
		limited = limited && u.MaxIterations != nil
		if u.Status != state.Done {
			continue
		}
		done++
		iters = append(iters, float64(state.Val(u.IterationsUsed)))
		if end, err := time.Parse(time.RFC3339, state.Val(u.CompletedAt)); err == nil {
			if start, ok := ut.first[id]; ok && !end.Before(start) {
				secs = append(secs, end.Sub(start).Seconds())
			}
		}
	}
	if len(ids) > 0 {
		pc.PercentUnits = done * 100 / len(ids)
	}
	if !limited {
		pc.IterationsLimit = 0 // a sum that leaves units out would mislead
	}
	pc.PercentWeighted, pc.WeightKind = weighted(s, p)
	pc.MaxTotal, _ = p.MetaCount(plan.MetaMaxTotal)
	pc.Finished = done
	if done == 0 {
		pc.Note = fmt.Sprintf("not enough data: no unit is done yet (%d needed for a pace)", minFinished)
		return pc
	}
	pc.MedianIterations = quantile(iters, 0.5)
	if len(secs) > 0 {
		pc.MedianSeconds = int64(quantile(secs, 0.5))
	}
	if done < minFinished {
		pc.Note = fmt.Sprintf("not enough data: %d unit%s done, %d needed for an estimate", done, store.Plural(done, "", "s"), minFinished)
		return pc
	}
	r := &Remaining{}
	qi1, qi3 := quantile(iters, 0.25), quantile(iters, 0.75)
	var qs1, qs3 float64
	if len(secs) >= minFinished {
		qs1, qs3 = quantile(secs, 0.25), quantile(secs, 0.75)
	}
	for i, id := range ids {
		u := units[i]
		if u.Status == state.Done {
			continue
		}
		r.Units++
		used := float64(state.Val(u.IterationsUsed))
		r.IterationsLow += int(math.Ceil(math.Max(0, qi1-used)))
		r.IterationsHigh += int(math.Ceil(math.Max(1, qi3-used)))
		spent := 0.0
		if start, ok := ut.first[id]; ok {
			spent = now.Sub(start).Seconds()
		}
		r.SecondsLow += int64(math.Max(0, qs1-spent))
		r.SecondsHigh += int64(math.Max(0, qs3-spent))
	}
	pc.Remaining = r
	return pc
}

// weighted is the share of the units' Estimates that is done, when every
// unit has one and all are of one kind.
func weighted(s *state.State, p *plan.Plan) (*int, string) {
	if p == nil || len(p.Units) == 0 {
		return nil, ""
	}
	var total, done float64
	kind := ""
	for _, pu := range p.Units {
		w, k, ok := pu.Weight()
		if !ok || (kind != "" && k != kind) {
			return nil, ""
		}
		kind = k
		total += w
		if u := s.Units[pu.ID]; u != nil && u.Status == state.Done {
			done += w
		}
	}
	pct := int(done * 100 / total)
	return &pct, kind
}

// quantile is the q-quantile of xs by linear interpolation.
func quantile(xs []float64, q float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

// String words the pace in one line for status and prime.
func (pc Pace) String() string {
	var parts []string
	if pc.PercentWeighted != nil {
		unit := "points"
		if pc.WeightKind == "h" {
			unit = "estimated hours"
		}
		parts = append(parts, fmt.Sprintf("%d%% of the %s done", *pc.PercentWeighted, unit))
	}
	it := fmt.Sprintf("%d iteration%s used", pc.IterationsUsed, store.Plural(pc.IterationsUsed, "", "s"))
	if pc.MaxTotal > 0 {
		it += fmt.Sprintf(" of the task's %d", pc.MaxTotal)
	} else if pc.IterationsLimit > 0 {
		it += fmt.Sprintf(" (the units' limits add up to %d)", pc.IterationsLimit)
	}
	parts = append(parts, it)
	if pc.Finished > 0 {
		p := fmt.Sprintf("pace: %s iterations", trimFloat(pc.MedianIterations))
		if pc.MedianSeconds > 0 {
			p += " and " + humanDuration(time.Duration(pc.MedianSeconds)*time.Second)
		}
		parts = append(parts, p+" per finished unit (median)")
	}
	if r := pc.Remaining; r != nil {
		e := fmt.Sprintf("remaining %d unit%s: %s iterations", r.Units, store.Plural(r.Units, "", "s"), span(r.IterationsLow, r.IterationsHigh))
		if r.SecondsHigh > 0 {
			e += ", " + timeSpan(r.SecondsLow, r.SecondsHigh)
		}
		parts = append(parts, e+" at this pace")
	} else if pc.Note != "" {
		parts = append(parts, "estimate: "+pc.Note)
	}
	return strings.Join(parts, "; ")
}

func span(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

func timeSpan(lo, hi int64) string {
	l, h := humanDuration(time.Duration(lo)*time.Second), humanDuration(time.Duration(hi)*time.Second)
	if l == h {
		return l
	}
	return l + "–" + h
}

func trimFloat(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	return strings.TrimSuffix(s, ".0")
}

// Flag is something about a unit that needs a look before more work:
// stale (no checkpoint for long) or runaway (going round in circles, or
// near its limit).
type Flag struct {
	Unit string `json:"unit"`
	Kind string `json:"kind"` // stale or runaway
	Text string `json:"text"`
}

// runawayBacks is how many times a unit may go back from confirming or
// verifying before it is flagged.
const runawayBacks = 3

// flagsOf lists the runaway units and the stale ones; reading says how a
// stale unit probably stopped.
func flagsOf(ids []string, units []*state.Unit, backs map[string]int, ut unitTimes, now time.Time, staleAfter time.Duration, reading func(unit string) string) []Flag {
	out := []Flag{}
	for i, id := range ids {
		u := units[i]
		if u.Status == state.Done || u.Status == state.Pending || u.Status == state.Failed || u.Status == state.Skipped {
			continue // failed and skipped units take no work: nothing runs away or goes stale
		}
		used, max := state.Val(u.IterationsUsed), state.Val(u.MaxIterations)
		if backs[id] >= runawayBacks {
			out = append(out, Flag{Unit: id, Kind: "runaway", Text: fmt.Sprintf("%s went back from confirming or verifying to in_progress %d times: step back, find why its checks keep failing (write a guardrail), or split it", id, backs[id])})
		}
		if max > 0 && used*5 >= max*4 && u.Status != state.Timeout && u.Status != state.Blocked {
			out = append(out, Flag{Unit: id, Kind: "runaway", Text: fmt.Sprintf("%s used %d of its %d iterations (%d%%): close it soon, or raise its Max iterations in the plan if it needs more", id, used, max, used*100/max)})
		}
		if !u.Status.Started() || u.Status == state.Blocked || u.Status == state.Timeout {
			continue
		}
		last, ok := ut.last[id]
		if !ok || now.Sub(last) <= staleAfter {
			continue
		}
		out = append(out, Flag{Unit: id, Kind: "stale", Text: fmt.Sprintf("%s is %s with no checkpoint for %s (stale after %s): %s", id, u.Status, humanDuration(now.Sub(last)), humanDuration(staleAfter), reading(id))})
	}
	return out
}

// phaseHint says when the recorded phase disagrees with what the units
// show, and the phase they suggest; "" when they agree.
// A settled unit (done, skipped, or failed and replaced by a done unit; p
// may be nil) counts as done.
func phaseHint(s *state.State, p *plan.Plan) (hint string, suggest state.Phase) {
	if s.Outcome != nil {
		return "", "" // the outcome set the phase: a delivery is in deliver, unfinished or not
	}
	total, done, started := len(s.Units), 0, 0
	settled := reconcile.SettledFunc(s, p)
	for id, u := range s.Units {
		if settled(id) {
			done++
		}
		if u.Status.Started() {
			started++
		}
	}
	switch {
	case total > 0 && done == total && s.Phase.Rank() < state.Verify.Rank():
		return fmt.Sprintf("every unit is done but the phase is %s: the work reads as ready for verify (`itr phase verify`)", s.Phase), state.Verify
	case done < total && (s.Phase == state.Verify || s.Phase == state.Deliver):
		return fmt.Sprintf("the phase is %s but %d of %d units are unfinished: the work reads as execute (`itr phase execute`)", s.Phase, total-done, total), state.Execute
	case started > 0 && s.Phase.Rank() < state.Execute.Rank():
		return fmt.Sprintf("units are under way but the phase is %s: the work reads as execute (`itr reconcile` records it)", s.Phase), state.Execute
	case total > 0 && s.Phase == state.Discover:
		return "the plan has units but the phase is discover: the work reads as plan (`itr phase plan`)", state.Plan
	}
	return "", ""
}
