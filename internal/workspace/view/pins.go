package view

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// DoneOutput is one output of a done unit as the entry that made it done
// pinned it: what status, prime and an archived task's summary list.
type DoneOutput struct {
	Unit  string `json:"unit"`
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

// String reads "R1: outputs/survey.md (2,874 bytes)".
func (d DoneOutput) String() string {
	return fmt.Sprintf("%s: %s (%s)", d.Unit, d.Path, bytesText(d.Bytes))
}

// doneOutputs are the pinned outputs of done unit u.
func doneOutputs(u *state.Unit) []DoneOutput {
	var out []DoneOutput
	for _, p := range u.Outputs {
		out = append(out, DoneOutput{Unit: u.ID, Path: p.Path, Bytes: p.Bytes})
	}
	return out
}

// DoneOutputsOf lists the pinned outputs of the done units of s, in unit
// order.
func DoneOutputsOf(s *state.State) []DoneOutput {
	var out []DoneOutput
	if s == nil {
		return nil
	}
	for _, id := range s.IDs() {
		if u := s.Units[id]; u.Status == state.Done {
			out = append(out, doneOutputs(u)...)
		}
	}
	return out
}

// bytesText is "1 byte", "2,874 bytes".
func bytesText(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s + " " + store.Plural(int(min(n, 2)), "byte", "bytes")
}

// unpinnedOf is the advisor's side of the changed pins: for each done unit
// the paths that changed, and whether its outputs as the working tree
// holds them pass the output check (so the change may be accepted).
func unpinnedOf(pins []verify.PinIssue) map[string]reconcile.Unpinned {
	if len(pins) == 0 {
		return nil
	}
	out := map[string]reconcile.Unpinned{}
	for _, p := range pins {
		un := out[p.Unit]
		un.Paths = append(un.Paths, p.Path)
		un.Acceptable = p.Acceptable
		out[p.Unit] = un
	}
	return out
}

// pinRepairText words the repair of a done unit whose pinned outputs
// changed; "" when none of its pins did (its output fails its check).
func pinRepairText(sum *Summary, id, on string) string {
	var changes []string
	var fix string
	for _, p := range sum.Pins {
		if p.Unit != id {
			continue
		}
		changes = append(changes, strings.TrimPrefix(p.String(), id+": "))
		if fix == "" {
			fix = p.Fix()
		}
	}
	if len(changes) == 0 {
		return ""
	}
	return fmt.Sprintf("repair %s first: it is done, but %s%s; %s", id, strings.Join(changes, "; "), on, fix)
}
