package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/agentsetup"
	"github.com/itr-dev/itr/internal/workspace"
)

func newPrimeCmd(g *globals) *cobra.Command {
	var hookJSON, unit string
	var cmd *cobra.Command
	cmd = &cobra.Command{
		Use:   "prime",
		Short: "What a new or compacted session needs to continue, as Markdown (for agent hooks)",
		Long: `Print the resume context of the task as Markdown, facts first: the goal, the repository,
the current unit with its last entry, the exact next action, blocked units, what is done
(not to repeat), the last verification, the commands to use next, the orientation (the plan's
## Notes and context.md's Approach, Key files and Patterns, quoted as data) and the guardrails
(those that apply to the unit at hand with their When, Problem and Solution, the others by
name). At most about 6,000 characters, never more than 10,000. Where there is no itr state it prints nothing
and exits 0, so a SessionStart hook never disturbs a session elsewhere.

--hook-json wraps it as {"hookSpecificOutput": {"hookEventName": "SessionStart",
"additionalContext": ...}}, the envelope Claude Code, Codex and Gemini CLI read;
--hook-json=cursor as {"additional_context": ...}, Cursor's; --hook-json=cline as
{"cancel": false, "contextModification": ...}, what Cline's TaskStart and TaskResume hooks
answer. With any of them, every error is
swallowed (exit 0, nothing on stdout). The hook's input (on stdin) gives the session's id
and model: prime reads for that session (an iteration another session left unrecorded
shows as interrupted), and where Claude Code names a CLAUDE_ENV_FILE, prime adds
ITR_SESSION (and ITR_MODEL) to it, so that the session's own itr commands record them.

--unit UNIT prints one unit's context for a subagent instead, in about 400 tokens: what to
do, the files it reads and what the units before it wrote, did and left (its handoff), what
it must write, the plan's notes and context.md's sections, the lessons that apply to it in
full and how to record its work. An orchestrator passes it
on to the subagent it gives the unit to (itr next --all lists the units that can start).`,
		Args: hookEnvelopeArg(&hookJSON),
		RunE: func(_ *cobra.Command, args []string) (err error) {
			hook := cmd.Flags().Changed("hook-json")
			if len(args) == 1 { // --hook-json cursor, as hookEnvelopeArg took it
				hookJSON = args[0]
			}
			if hook && !slices.Contains(hookEnvelopes, hookJSON) {
				return usageError{fmt.Errorf("--hook-json=%s: %s", hookJSON, envelopesWords)}
			}
			if cmd.Flags().Changed("unit") && strings.TrimSpace(unit) == "" {
				return usageError{fmt.Errorf("--unit is empty: give the unit whose context a subagent needs, such as --unit T3 (itr next --all lists those that can start)")}
			}
			if hook && unit != "" {
				return usageError{fmt.Errorf("--unit %s with --hook-json: a session's hook primes the whole task; give --unit alone for a subagent's context", unit)}
			}
			if unit != "" {
				return g.withWorkspace(func(ws *workspace.Workspace) error {
					b, err := ws.Brief("", unit)
					if err != nil {
						return err
					}
					return g.emit(b, func(w io.Writer) { fmt.Fprint(w, b.Markdown) })
				})
			}
			if hook {
				defer swallowPanic(&err)
				if readsHookInput(g.io.In) {
					g.fromHook(agentsetup.ReadHookInput(g.io.In))
					_ = g.passSession() // a hook never fails a session
				}
			}
			p, err := prime(g)
			if err != nil {
				if hook || workspace.IsNoState(err) {
					return nil // a hook never fails or disturbs a session
				}
				return err
			}
			if hook {
				enc := json.NewEncoder(g.io.Out)
				enc.SetEscapeHTML(false)
				_ = enc.Encode(agentsetup.SessionContext(hookJSON, p.Markdown)) // a closed pipe is not the session's problem
				return nil
			}
			return g.emit(p, func(w io.Writer) { fmt.Fprint(w, p.Markdown) })
		},
	}
	cmd.Flags().StringVar(&hookJSON, "hook-json", "", "wrap the context in a SessionStart hook envelope (claude, the default, cursor or cline); never fail")
	cmd.Flags().Lookup("hook-json").NoOptDefVal = "claude"
	cmd.Flags().StringVar(&unit, "unit", "", "print one unit's context for a subagent (about 400 tokens) instead of the task's")
	return cmd
}

func prime(g *globals) (*workspace.PrimeContext, error) {
	ws, err := g.open()
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	return ws.Prime("")
}

// swallowPanic ends a hook quietly whatever happened: an agent's session is
// never failed by itr. A bug still shows on stderr.
func swallowPanic(err *error) {
	if r := recover(); r != nil {
		fmt.Fprintf(os.Stderr, "itr: internal error in a hook (please report it): %v\n", r)
		*err = nil
	}
}

// hookEnvelopeArg lets prime's envelope follow --hook-json after a space
// as well as after "=": prime takes no other argument, so a single word
// after a bare --hook-json can only be its value. Anything else is refused
// as cobra.NoArgs refuses it.
func hookEnvelopeArg(hookJSON *string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		f := c.Flags().Lookup("hook-json")
		if len(args) != 1 || !f.Changed || *hookJSON != f.NoOptDefVal {
			return cobra.NoArgs(c, args)
		}
		if !slices.Contains(hookEnvelopes, args[0]) {
			return usageError{fmt.Errorf("--hook-json %s: %s; prime takes no other argument", args[0], envelopesWords)}
		}
		return nil
	}
}

// hookEnvelopes are the values of prime --hook-json: the envelope of
// Claude Code (also read by Codex and Gemini CLI), Cursor's and Cline's.
var hookEnvelopes = []string{"claude", "cursor", "cline"}

// envelopesWords names hookEnvelopes in prime's refusals.
const envelopesWords = "the envelopes are claude (also read by Codex and Gemini CLI), cursor and cline"
