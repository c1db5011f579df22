package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/agentsetup"
)

func newAgentHookCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:    "agent-hook pre-compact|prompt|stop [--format claude|gemini|cursor]",
		Short:  "The agents' hooks registered by itr setup (prompt: the context again after a compaction)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) (err error) {
			defer swallowPanic(&err)
			in := agentsetup.ReadHookInput(g.io.In)
			g.fromHook(in)
			// Every error is swallowed: a hook never blocks or fails a session.
			ws, err := g.open()
			if err != nil {
				return nil
			}
			defer ws.Close()
			switch args[0] {
			case "pre-compact":
				_ = ws.LogAgentEvent("pre-compact", map[string]string{"trigger": in.Trigger, "session": in.SessionID})
				_ = ws.MarkCompacted(in.SessionID)
			case "prompt":
				// After a compaction only: the context once, else nothing.
				if !ws.CompactionPending(in.SessionID) {
					return nil
				}
				p, err := ws.Prime("")
				if err != nil || !ws.TakeCompaction(in.SessionID) {
					return nil
				}
				enc := json.NewEncoder(g.io.Out)
				enc.SetEscapeHTML(false)
				_ = enc.Encode(agentsetup.PromptContext(format, p.Markdown))
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
				fmt.Fprintf(g.io.Err, "itr agent-hook: unknown event %q (pre-compact, prompt, stop)\n", args[0])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "claude", "the agent's output shape: claude (also Codex), gemini or cursor")
	return cmd
}
