package agentsetup

import (
	"encoding/json"
	"io"
)

// maxHookInput bounds what a hook reads from stdin.
const maxHookInput = 1 << 20

// HookInput is what the agents pass a hook on stdin, under each agent's
// spelling; only the fields itr uses.
type HookInput struct {
	SessionID      string `json:"session_id"`
	ConversationID string `json:"conversation_id"` // Cursor's name for it
	TaskID         string `json:"taskId"`          // Cline's
	Trigger        string `json:"trigger"`         // PreCompact: manual or auto
	StopHookActive bool   `json:"stop_hook_active"`
	LoopCount      int    `json:"loop_count"` // Cursor's stop
	// Model is the model the session runs on, where the agent says
	// (Claude Code's SessionStart).
	Model string `json:"model"`
}

// ReadHookInput reads a hook's stdin as far as it can: anything that is
// not the expected JSON gives the zero input, never an error, since a hook
// must not fail a session.
func ReadHookInput(r io.Reader) HookInput {
	var in HookInput
	if r == nil {
		return in
	}
	data, _ := io.ReadAll(io.LimitReader(r, maxHookInput))
	_ = json.Unmarshal(data, &in)
	if in.SessionID == "" {
		in.SessionID = in.ConversationID
	}
	if in.SessionID == "" {
		in.SessionID = in.TaskID
	}
	return in
}

// AskedAlready reports whether the agent is stopping after a stop hook
// already asked for more (stop_hook_active; Cursor counts loops instead):
// asking again would never let it stop.
func (in HookInput) AskedAlready() bool { return in.StopHookActive || in.LoopCount > 0 }

// StopResponse is the stop hook's answer asking the agent to go on, in the
// shape of format: "gemini" (AfterAgent), "cursor" (a follow-up message),
// anything else Claude Code's and Codex's.
func StopResponse(format, reason string) any {
	switch format {
	case "gemini":
		return map[string]string{"decision": "deny", "reason": reason}
	case "cursor":
		return map[string]string{"followup_message": reason}
	}
	return map[string]string{"decision": "block", "reason": reason}
}

// SessionContext is a SessionStart hook's answer adding markdown to the
// session's context: Cursor's {"additional_context": ...} for "cursor",
// Cline's {"cancel": false, "contextModification": ...} (TaskStart,
// TaskResume) for "cline", else the hookSpecificOutput envelope Claude
// Code, Codex and Gemini CLI read.
func SessionContext(format, markdown string) any {
	switch format {
	case "cursor":
		return map[string]string{"additional_context": markdown}
	case "cline":
		return struct {
			Cancel              bool   `json:"cancel"`
			ContextModification string `json:"contextModification"`
		}{false, markdown}
	}
	return map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName":     "SessionStart",
		"additionalContext": markdown,
	}}
}

// PromptContext is the answer of a hook that runs when the user submits a
// prompt, adding markdown to that turn: Gemini CLI's BeforeAgent reads
// hookSpecificOutput.additionalContext ("appended to the prompt for this
// turn only"); anything else gets Claude Code's and Codex's
// UserPromptSubmit envelope.
func PromptContext(format, markdown string) any {
	event := "UserPromptSubmit"
	if format == "gemini" {
		event = "BeforeAgent"
	}
	return map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName":     event,
		"additionalContext": markdown,
	}}
}
