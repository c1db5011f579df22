// Package cliopts completes the options of itr's command lines (itr and
// itr-mcp) from the environment: flags beat ITR_ROOT, ITR_TASK and
// ITR_AGENT, ITR_MODEL and ITR_SESSION, and ITR_NOW replaces the clock. Only command
// lines read these variables.
package cliopts

import (
	"fmt"
	"time"

	"github.com/itr-dev/itr/internal/workspace"
)

// Resolve fills what the flags left empty in opts from getenv.
func Resolve(opts workspace.Options, getenv func(string) string) (workspace.Options, error) {
	if opts.Root == "" {
		opts.Root = getenv("ITR_ROOT")
	}
	if opts.Task == "" {
		opts.Task = getenv("ITR_TASK")
	}
	if opts.Agent == "" {
		opts.Agent = getenv("ITR_AGENT")
	}
	if opts.Model == "" {
		opts.Model = getenv("ITR_MODEL")
	}
	if opts.Session == "" {
		opts.Session = getenv("ITR_SESSION")
	}
	if v := getenv("ITR_NOW"); v != "" {
		at, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return opts, fmt.Errorf("ITR_NOW=%q is not an RFC 3339 time such as 2026-01-14T10:30:00Z: %w", v, err)
		}
		opts.Now = func() time.Time { return at }
	}
	return opts, nil
}
