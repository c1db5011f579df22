// Package npmtest gives tests the npm packages of the real clients they
// drive (the MCP TypeScript SDK, mermaid's parser): from a folder an
// environment variable names (.ci/run fills one once per machine), else
// installed with npm into a temporary folder. Without node or npm, under
// -short, or offline, the test is skipped and says why. Messages is a
// local stand-in for the model API those clients talk to.
package npmtest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Dir returns a folder whose node_modules holds packages, and the node
// program, or skips t: env names a folder that already has them.
func Dir(t testing.TB, env string, packages ...string) (dir, node string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not installed: cannot run %v", packages)
	}
	if dir = os.Getenv(env); dir != "" {
		return dir, node
	}
	if testing.Short() {
		t.Skipf("-short: not installing %v (set %s to a folder that has them)", packages, env)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skipf("npm is not installed: cannot fetch %v", packages)
	}
	dir = t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"install", "--no-audit", "--no-fund", "--silent", "--prefix", dir}, packages...)
	if out, err := exec.CommandContext(ctx, npm, args...).CombinedOutput(); err != nil {
		t.Skipf("npm install %v failed (offline?): %v\n%s", packages, err, out)
	}
	return dir, node
}
