package cliopts

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace"
)

func TestResolve(t *testing.T) {
	env := map[string]string{"ITR_ROOT": "env/root", "ITR_TASK": "envtask", "ITR_NOW": "2026-01-14T10:30:00Z"}
	o, err := Resolve(workspace.Options{Task: "flag"}, func(k string) string { return env[k] })
	require.NoError(t, err)
	assert.Equal(t, "env/root", o.Root)
	assert.Equal(t, "flag", o.Task, "a flag beats the environment")
	assert.Equal(t, time.Date(2026, 1, 14, 10, 30, 0, 0, time.UTC), o.Now().UTC())

	env["ITR_AGENT"], env["ITR_MODEL"], env["ITR_SESSION"] = "synthesizer", "sonnet", "7f3a"
	o, err = Resolve(workspace.Options{Model: "opus"}, func(k string) string { return env[k] })
	require.NoError(t, err)
	assert.Equal(t, "synthesizer", o.Agent)
	assert.Equal(t, "opus", o.Model, "--model beats ITR_MODEL")
	assert.Equal(t, "7f3a", o.Session)

	env["ITR_NOW"] = "yesterday"
	_, err = Resolve(workspace.Options{}, func(k string) string { return env[k] })
	assert.ErrorContains(t, err, `ITR_NOW="yesterday" is not an RFC 3339 time`)
}
