package claudeplugin

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/itr-dev/itr/internal/gitserver"
	"github.com/itr-dev/itr/internal/npmtest"
	"github.com/itr-dev/itr/internal/testgit"
)

// top is the repository's top, which is the plugin's folder.
const top = "../.."

// reply is what the stand-in model says to every request.
const reply = npmtest.StandInReply

// claude returns the Claude Code program from npm (ITR_CLAUDE_DIR names a
// folder .ci/run fills once), or skips the test.
func claude(t *testing.T) string {
	t.Helper()
	return npmtest.Program(t, "ITR_CLAUDE_DIR", "@anthropic-ai/claude-code", "claude")
}

// run runs claude with args in dir, with a home of its own and env added,
// and returns its output.
func run(t *testing.T, bin, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	return npmtest.Run(t, 3*time.Minute, bin, dir, env, args...)
}

// TestPluginValidates runs Claude Code's own validator on the marketplace
// and the plugin manifests.
func TestPluginValidates(t *testing.T) {
	bin := claude(t)
	home := t.TempDir()
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude")}
	for _, target := range []string{".", filepath.Join(".claude-plugin", "plugin.json")} {
		out, err := run(t, bin, top, env, "plugin", "validate", target)
		if err != nil || !strings.Contains(out, "Validation passed") {
			t.Errorf("claude plugin validate %s: %v\n%s", target, err, out)
		}
		t.Logf("claude plugin validate %s:\n%s", target, out)
	}
}

// buildItr builds itr and itr-mcp into a folder for PATH, as make build
// does.
func buildItr(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "../../cmd/itr", "../../cmd/itr-mcp")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build itr and itr-mcp: %v\n%s", err, out)
	}
	return dir
}

// pluginFiles are the plugin's files and folders at the repository's top.
var pluginFiles = []string{".claude-plugin", "skills"}

// gitMarketplace commits the plugin's files to a repository of their own,
// served over smart HTTP on loopback, and returns its URL: the git URL
// `/plugin marketplace add` takes.
func gitMarketplace(t *testing.T) string {
	t.Helper()
	work := t.TempDir()
	for _, name := range pluginFiles {
		cmd := exec.Command("cp", "-R", filepath.Join(top, name), work)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("copy %s: %v\n%s", name, err, out)
		}
	}
	testgit.Git(t, work, "init", "-q")
	testgit.Git(t, work, "add", "-A")
	testgit.Git(t, work, "commit", "-q", "-m", "the itr plugin")
	root := t.TempDir()
	testgit.Git(t, root, "clone", "-q", "--bare", work, "itr.git")
	srv, err := gitserver.Start(root, gitserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv.URL + "/itr.git"
}

// TestPluginSession starts real Claude Code sessions in a repository with
// an itr task, the model API pointed at a local stand-in, with the plugin
// loaded two ways: from this repository with --plugin-dir, and installed
// with `claude plugin marketplace add <git URL>` and `claude plugin
// install itr@itr`. Each sends the model the plugin's SessionStart hook's
// context (itr prime's heading), its skill in the list, and the tools of
// its MCP server.
func TestPluginSession(t *testing.T) {
	bin := claude(t)
	itrDir := buildItr(t) // before Isolate, which moves HOME and so Go's build cache
	testgit.Isolate(t)
	abs, err := filepath.Abs(top)
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	testgit.Git(t, repo, "init", "-q")
	itr := exec.Command(filepath.Join(itrDir, "itr"), "init", "Plugin session", "--slug", "plugin-session")
	itr.Dir = repo
	if out, err := itr.CombinedOutput(); err != nil {
		t.Fatalf("itr init: %v\n%s", err, out)
	}
	t.Run("plugin-dir", func(t *testing.T) {
		home := t.TempDir()
		session(t, bin, repo, itrDir, home, "--plugin-dir", abs)
	})
	t.Run("marketplace-git", func(t *testing.T) {
		home := t.TempDir()
		url := gitMarketplace(t)
		env := clientEnv(itrDir, home, "")
		for _, args := range [][]string{
			{"plugin", "marketplace", "add", url},
			{"plugin", "install", "itr@itr"},
			{"plugin", "list"},
		} {
			out, err := run(t, bin, repo, env, args...)
			t.Logf("claude %s:\n%s", strings.Join(args, " "), out)
			if err != nil {
				t.Fatalf("claude %s: %v", strings.Join(args, " "), err)
			}
		}
		session(t, bin, repo, itrDir, home)
	})
}

// clientEnv is the environment of a claude run: itr on PATH, a home of
// its own, and the model API at api.
func clientEnv(itrDir, home, api string) []string {
	return []string{
		"HOME=" + home,
		"PATH=" + itrDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"ANTHROPIC_BASE_URL=" + api,
		"ANTHROPIC_API_KEY=sk-ant-dummy-key-for-the-stand-in",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
	}
}

// session runs `claude -p` in repo against a stand-in and checks what the
// client sent it.
func session(t *testing.T, bin, repo, itrDir, home string, args ...string) {
	t.Helper()
	api := &npmtest.Messages{Reply: reply}
	srv := httptest.NewServer(api)
	defer srv.Close()
	args = append([]string{"-p", "Where does the work stand?", "--output-format", "json", "--max-turns", "1"}, args...)
	out, err := run(t, bin, repo, clientEnv(itrDir, home, srv.URL), args...)
	t.Logf("claude -p:\n%s", out)
	if err != nil {
		t.Fatalf("claude -p: %v", err)
	}
	if !strings.Contains(out, reply) {
		t.Errorf("claude -p did not print the stand-in's reply %q", reply)
	}
	bodies := api.Requests()
	joined := strings.Join(bodies, "\n")
	for _, want := range []struct{ what, text string }{
		{"the SessionStart hook's context (itr prime --hook-json)", "SessionStart hook additional context: # itr: resuming task `plugin-session`"},
		{"the plugin's skill, listed", "itr:itr-loop: Run long, multi-session work"},
		{"the MCP server's resume tool", "mcp__plugin_itr_itr__resume"},
	} {
		if !strings.Contains(joined, want.text) {
			t.Errorf("no request to the stand-in carries %s (%q); %d requests", want.what, want.text, len(bodies))
		}
	}
	if d := os.Getenv("ITR_PLUGIN_DUMP"); d != "" {
		_ = os.WriteFile(d, []byte(joined), 0o644)
	}
	if t.Failed() {
		for i, b := range bodies {
			if len(b) > 4000 {
				b = b[:4000] + "…"
			}
			t.Logf("request %d:\n%s", i+1, b)
		}
	}
}
