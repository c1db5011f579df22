package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/agentsetup"
)

func newAgentHookCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:    "agent-hook pre-compact|stop [--format claude|gemini|cursor]",
		Short:  "The agents' hooks registered by itr setup --precompact/--stop",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) (err error) {
			defer swallowPanic(&err)
			in := agentsetup.ReadHookInput(g.io.In)
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
				if in.AskedAlready() {
					return nil // let the agent stop
				}
				reason, err := ws.UnrecordedWork()
				if err != nil || reason == "" {
					return nil
				}
				enc := json.NewEncoder(g.io.Out)
				enc.SetEscapeHTML(false)
				_ = enc.Encode(agentsetup.StopResponse(format, reason))
			default:
				fmt.Fprintf(g.io.Err, "itr agent-hook: unknown event %q (pre-compact, stop)\n", args[0])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "claude", "the agent's output shape: claude (also Codex), gemini or cursor")
	return cmd
}
