package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// maxHookInput bounds what an agent hook reads from stdin.
const maxHookInput = 1 << 20

// hookInput is what the agents pass a hook on stdin; only the fields itr
// uses, under each agent's spelling.
type hookInput struct {
	SessionID      string `json:"session_id"`
	ConversationID string `json:"conversation_id"` // Cursor
	Trigger        string `json:"trigger"`         // PreCompact: manual or auto
	StopHookActive bool   `json:"stop_hook_active"`
	LoopCount      int    `json:"loop_count"` // Cursor's stop
}

func newAgentHookCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:    "agent-hook pre-compact|stop [--format claude|gemini|cursor]",
		Short:  "The agents' hooks registered by itr setup --precompact/--stop",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) (err error) {
			defer swallowPanic(&err)
			var in hookInput
			if g.io.In != nil {
				data, _ := io.ReadAll(io.LimitReader(g.io.In, maxHookInput))
				_ = json.Unmarshal(data, &in) // a hook reads what it can
			}
			if in.SessionID == "" {
				in.SessionID = in.ConversationID
			}
			// Every error is swallowed: a hook never blocks or fails a session.
			ws, err := g.open()
			if err != nil {
				return nil
			}
			defer ws.Close()
			switch args[0] {
			case "pre-compact":
				_ = ws.LogAgentEvent("pre-compact", map[string]string{"trigger": in.Trigger, "session": in.SessionID})
			case "stop":
				if in.StopHookActive || in.LoopCount > 0 {
					return nil // asked once already: let the agent stop
				}
				reason, err := ws.UnrecordedWork()
				if err != nil || reason == "" {
					return nil
				}
				var out any
				switch format {
				case "gemini":
					out = map[string]string{"decision": "deny", "reason": reason}
				case "cursor":
					out = map[string]string{"followup_message": reason}
				default:
					out = map[string]string{"decision": "block", "reason": reason}
				}
				enc := json.NewEncoder(g.io.Out)
				enc.SetEscapeHTML(false)
				_ = enc.Encode(out)
			default:
				fmt.Fprintf(g.io.Err, "itr agent-hook: unknown event %q (pre-compact, stop)\n", args[0])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "claude", "the agent's output shape: claude (also Codex), gemini or cursor")
	return cmd
}
