package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/itr-dev/itr/internal/agentsetup"
	"github.com/itr-dev/itr/internal/lazyre"
)

// An agent's hooks know what the agent's own commands do not: the
// session's id (Claude Code, Codex, Gemini CLI and Cursor pass it to every
// hook) and, at a session's start, its model. A hook that runs itr records
// them as ITR_SESSION and ITR_MODEL would, and the SessionStart hook hands
// them on to the session's later commands through the file Claude Code
// names in CLAUDE_ENV_FILE, whose export lines every Bash command of the
// session gets.

// safeWord is a session id or a model name that can be written to a shell
// file unquoted and read back as itself.
var safeWord = lazyre.New(`^[A-Za-z0-9._:@/+\[\]-]{1,200}$`)

// fromHook takes the session (and, unless --model or ITR_MODEL names one,
// the model) from an agent's hook input; values that are not plain words
// are left out.
func (g *globals) fromHook(in agentsetup.HookInput) {
	if id := strings.TrimSpace(in.SessionID); safeWord.MatchString(id) {
		g.session = id
	}
	if m := strings.TrimSpace(in.Model); g.model == "" && g.io.Getenv("ITR_MODEL") == "" && safeWord.MatchString(m) {
		g.model = m
	}
}

// passSession appends the session (and the model) taken from the hook to
// the file CLAUDE_ENV_FILE names, as export lines, so that the session's
// own itr commands record them; nothing without the variable or the
// values. An error is returned for the hook to swallow.
func (g *globals) passSession() error {
	file := g.io.Getenv("CLAUDE_ENV_FILE")
	if file == "" || g.session == "" {
		return nil
	}
	lines := "export ITR_SESSION=" + g.session + "\n"
	if g.model != "" {
		lines += "export ITR_MODEL=" + g.model + "\n"
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open CLAUDE_ENV_FILE: %w", err)
	}
	if _, err := io.WriteString(f, lines); err != nil {
		f.Close()
		return fmt.Errorf("write CLAUDE_ENV_FILE: %w", err)
	}
	return f.Close()
}

// readsHookInput reports whether a hook may read its input from r: not a
// terminal (a person trying the hook by hand would wait for end of file).
func readsHookInput(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return r != nil
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice == 0
}
