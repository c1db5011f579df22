package mcpserver

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
)

// The MCP server's words for the rule book's advice: each move the rule
// book accepts now as the tool call that makes it. The CLI words the same
// advice as command lines (workspace/view); neither decides.

// Call is one move the rule book accepts now, as a tool call.
type Call struct {
	// Tool is the tool to call ("" for a move no tool makes: a person
	// runs the command in Command).
	Tool string `json:"tool,omitempty"`
	// Args are its arguments, text to write as "...".
	Args map[string]any `json:"args,omitempty"`
	// Command is the itr command line for a move no tool makes.
	Command string `json:"command,omitempty"`
	// For is the move it makes (continue, confirm, verify, rerun, repair,
	// resume, reconcile, ...); Person says a person's judgement comes
	// first.
	For    string `json:"for"`
	Person bool   `json:"person,omitempty"`
}

// callOf words one offer as a tool call; moves no tool makes keep their
// command line.
func callOf(a workspace.Action) Call {
	o := a.Offer
	c := Call{For: a.For, Person: a.Person}
	args := map[string]any{}
	if o.Unit != "" {
		args["unit"] = o.Unit
	}
	switch o.Op {
	case reconcile.OpCheckpoint:
		if o.Verify && o.For == reconcile.MoveRerun || o.Intent.Action == reconcile.Repin {
			// checkpoint runs no check, and finish would declare the work
			// done: the rerun of an interrupted check is the CLI's, and so
			// is accepting a changed output of a done unit (checkpoint
			// --accept-outputs), which no tool carries.
			c.Command, args = a.Command, nil
			break
		}
		c.Tool = checkpointCall(o, args)
	case reconcile.OpBlock:
		c.Tool = "block"
		args["reason"] = "..."
	case reconcile.OpSkip:
		c.Tool = "block"
		args["reason"], args["as"] = "...", "skipped"
	case reconcile.OpReopen:
		c.Tool = "reopen"
		args["reason"] = "..."
	default:
		// unblock, resume, reconcile, plan, archive, restore: a person's
		// or the CLI's.
		c.Command, args = a.Command, nil
	}
	if len(args) > 0 {
		c.Args = args
	}
	return c
}

// checkpointCall fills args for a checkpoint offer and names its tool:
// finish for the closing path's verdicts and for a check to run (finish
// runs it), else checkpoint.
func checkpointCall(o reconcile.Offer, args map[string]any) string {
	finish := o.Verify || o.Intent.Verified || o.For == reconcile.MoveVerify || o.For == reconcile.MoveConfirm && !o.Intent.Signal
	if !finish {
		args["did"] = "..."
		if len(o.Intent.Items) > 0 {
			// The item work that settles a unit's items (settle-items).
			args["items"] = progresslog.FormatItems(o.Intent.Items)
		}
		if o.Intent.Signal {
			args["done"] = true
		}
		return "checkpoint"
	}
	args["evidence"] = "..."
	switch {
	case o.Verify:
		args["verify"] = argvOrEmpty(o.Argv)
	case o.Intent.VerifiedBy != "":
		args["verified_by"] = "..."
	case !o.Intent.Signal && !o.Intent.Verified:
		args["passed"] = false
	}
	return "finish"
}

func argvOrEmpty(argv []string) []string {
	if argv == nil {
		return []string{}
	}
	return argv
}

// callsOf words the accepted moves as tool calls.
func callsOf(actions []workspace.Action) []Call {
	out := []Call{}
	for _, a := range actions {
		out = append(out, callOf(a))
	}
	return out
}

// String reads a call as an agent would make it: `finish unit=T1
// evidence="..." verify=[]`, or the command line.
func (c Call) String() string {
	if c.Tool == "" {
		return "`" + c.Command + "` (CLI)"
	}
	keys := []string{"unit", "did", "evidence", "done", "passed", "verify", "verified_by", "reason", "as"}
	parts := []string{c.Tool}
	for _, k := range keys {
		v, ok := c.Args[k]
		if !ok {
			continue
		}
		switch x := v.(type) {
		case string:
			parts = append(parts, fmt.Sprintf("%s=%q", k, x))
		case []string:
			q := make([]string, len(x))
			for i, w := range x {
				q[i] = fmt.Sprintf("%q", w)
			}
			parts = append(parts, fmt.Sprintf("%s=[%s]", k, strings.Join(q, ",")))
		default:
			parts = append(parts, fmt.Sprintf("%s=%v", k, x))
		}
	}
	return strings.Join(parts, " ")
}

// holdText words a hold for an agent: what holds the work and what
// clears it.
func holdText(h *workspace.Hold) string {
	return fmt.Sprintf("nothing can be recorded now: %s; %s (cleared by a %s)", h.Reason, h.Clear, h.ClearedBy)
}
