package view

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/reconcile"
)

// settleMoveText words the move of a unit the settle rule holds from
// moving toward done: why (its items, a counter, a metric), the work that
// clears it, and that the signal (or the verification) is refused until
// then.
func settleMoveText(slug string, adv reconcile.Advice, u UnitStatus) string {
	r, it := adv.Settle, adv.Settle.Items
	held := "--signal is refused"
	switch adv.Move {
	case reconcile.MoveConfirm:
		held = fmt.Sprintf("the confirmation (--signal) is refused, and a checkpoint without it sends %s back to in_progress,", u.ID)
	case reconcile.MoveVerify:
		held = fmt.Sprintf("--verified is refused, and a checkpoint without it sends %s back to in_progress,", u.ID)
	}
	switch r.Code {
	case reconcile.ItemsUnsettled:
		return fmt.Sprintf("settle the items of %s: %d of its %d items %s not settled (%s); move each to a settled state (%s) as its work is done, such as `itr checkpoint %s --did \"...\" --item %s=%s`, or skip it (`--item %s=skipped`); %s until every item is settled",
			u.ID, it.Count, it.Total, map[bool]string{true: "is", false: "are"}[it.Count == 1], visible(it.Unsettled), strings.Join(it.Settled, ", "), u.ID, visible(it.Next), it.Settled[0], visible(it.Next), held)
	case reconcile.CounterDisagrees:
		c := it.Counter
		have := fmt.Sprintf("%d in the file", c.InFile)
		if c.Missing {
			have = "the file is missing"
		}
		return fmt.Sprintf("bring the ledger of %s and its counter in step: %s in %s: %s, %d items done; trust the file: record the items it holds (`itr checkpoint %s --did \"...\" --item ID`) or redo those it lost; %s until they agree",
			u.ID, c.Counter, c.Path, have, it.Done, u.ID, held)
	case reconcile.MetricShort:
		name, _, _ := strings.Cut(it.Metric, " ")
		if it.Value == "" {
			return fmt.Sprintf("go on with %s (iteration %d): its metric %s has no value yet (target %s); record it with `itr checkpoint %s --did \"...\" --metric %s=N`; %s until it meets the target",
				u.ID, u.Iterations+1, name, it.Metric, u.ID, name, held)
		}
		return fmt.Sprintf("go on with %s (iteration %d): its metric %s is %s, short of its target (%s); record it with `--metric %s=N` as the work grows; %s until it meets the target",
			u.ID, u.Iterations+1, name, it.Value, it.Metric, name, held)
	}
	return fmt.Sprintf("continue %s (iteration %d)", u.ID, u.Iterations+1)
}
