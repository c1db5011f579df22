package clinetest

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/itr-dev/itr/internal/npmtest"
	"github.com/itr-dev/itr/internal/testgit"
)

// reply is what the stand-in model says to every request.
const reply = npmtest.StandInReply

// model is the model id Cline is told to use; the stand-in answers any.
const model = "claude-sonnet-4-5"

// cline returns the Cline CLI from npm (ITR_CLINE_DIR names a folder
// .ci/run fills once), or skips the test. The npm package's program is a
// compiled binary with its runtime inside: it runs without Node 22, which
// its package.json asks for.
func cline(t *testing.T) string {
	t.Helper()
	return npmtest.Program(t, "ITR_CLINE_DIR", "cline@3", "cline")
}

// run runs bin with args in dir, with env added, and returns its output.
func run(t *testing.T, bin, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	return npmtest.Run(t, 2*time.Minute, bin, dir, env, args...)
}

// buildItr builds itr into a folder and puts beside it, first on PATH, a
// program named itr that notes each run (its arguments; for itr prime,
// what it reads on stdin and what it prints) in log before running the
// real one: how the test sees Cline run the hook that runs itr.
func buildItr(t *testing.T, log string) string {
	t.Helper()
	real := t.TempDir()
	cmd := exec.Command("go", "build", "-o", real+string(filepath.Separator), "../../cmd/itr")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build itr: %v\n%s", err, out)
	}
	shim := t.TempDir()
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	program := "#!/bin/sh\n" +
		"itr=" + q(filepath.Join(real, "itr")) + " log=" + q(log) + "\n" +
		"printf 'args: itr %s\\n' \"$*\" >>\"$log\"\n" +
		"if [ \"$1\" = prime ]; then\n" +
		"  in=$(cat); out=$(printf '%s' \"$in\" | \"$itr\" \"$@\"); rc=$?\n" +
		"  printf 'stdin: %s\\nstdout: %s\\n' \"$in\" \"$out\" >>\"$log\"\n" +
		"  printf '%s\\n' \"$out\"; exit $rc\n" +
		"fi\n" +
		"exec \"$itr\" \"$@\"\n"
	if err := os.WriteFile(filepath.Join(shim, "itr"), []byte(program), 0o755); err != nil {
		t.Fatal(err)
	}
	return shim
}

// TestClineSession runs a real Cline task headless (`cline --json PROMPT`)
// in a repository with an itr task after `itr setup cline`, the model API
// at a local stand-in (Cline's anthropic provider with a base URL). It
// shows that Cline runs .clinerules/hooks/TaskStart, which runs
// `itr prime --hook-json=cline` with Cline's payload on stdin, and that the
// request the model gets carries .clinerules/itr.md and the itr-loop skill.
//
// Cline's CLI runs TaskStart and TaskResume fire-and-forget, with stdout
// ignored (see docs/guide/agents.md): the hook's contextModification
// reaches the model only in the VS Code extension, which no registry here
// carries. The test notes whether the CLI carried it.
func TestClineSession(t *testing.T) {
	bin := cline(t)
	log := filepath.Join(t.TempDir(), "itr-runs.log")
	shim := buildItr(t, log) // before Isolate, which moves HOME and so Go's build cache
	home := testgit.Isolate(t)
	t.Setenv("PATH", shim+string(os.PathListSeparator)+os.Getenv("PATH"))

	repo := t.TempDir()
	testgit.Git(t, repo, "init", "-q")
	for _, args := range [][]string{
		{"init", "Cline session", "--slug", "cline-session"},
		{"setup", "cline"},
	} {
		cmd := exec.Command("itr", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("itr %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	_ = os.Remove(log) // only Cline's runs of itr from here on

	api := &npmtest.Messages{Reply: reply}
	srv := httptest.NewServer(api)
	defer srv.Close()
	env := []string{
		"HOME=" + home,
		"CLINE_NO_AUTO_UPDATE=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
	}
	writeProviders(t, home, srv.URL+"/v1")
	start := time.Now()
	out, err := run(t, bin, repo, env, "--json", "-c", repo, "Where does the work stand?")
	t.Logf("cline --json (%s):\n%s", time.Since(start).Round(time.Second), out)
	if err != nil {
		t.Fatalf("cline: %v", err)
	}
	if !strings.Contains(out, reply) {
		t.Errorf("cline did not print the stand-in's reply %q", reply)
	}

	runs := hookRuns(log)
	t.Logf("itr run by Cline's hooks:\n%s", runs)
	for _, want := range []struct{ what, text string }{
		{"the TaskStart hook running itr prime", "args: itr prime --hook-json=cline"},
		{"Cline's TaskStart payload on the hook's stdin", `"hookName":"agent_start"`},
		{"itr prime's answer in Cline's form", `{"cancel":false,"contextModification":"# itr: resuming task`},
	} {
		if !strings.Contains(runs, want.text) {
			t.Errorf("no sign of %s (%q) in the log of itr's runs", want.what, want.text)
		}
	}

	bodies := api.Requests()
	joined := strings.Join(bodies, "\n")
	for _, want := range []struct{ what, text string }{
		{"the rule .clinerules/itr.md", "written by itr setup cline"},
		{"the rule's instructions", "run `itr prime` and continue from what it says"},
		{"the itr-loop skill, listed", "Available skills: itr-loop."},
	} {
		if !strings.Contains(joined, want.text) {
			t.Errorf("no request to the stand-in carries %s (%q); %d requests", want.what, want.text, len(bodies))
		}
	}
	if strings.Contains(joined, "# itr: resuming task `cline-session`") {
		t.Logf("this Cline carries the TaskStart hook's contextModification to the model: docs/guide/agents.md can say so")
	} else {
		t.Logf("as Cline's source says, the TaskStart hook's contextModification did not reach the model (the CLI ignores a run-start hook's stdout)")
	}
	if d := os.Getenv("ITR_CLINE_DUMP"); d != "" {
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

// writeProviders writes Cline's provider settings under home: what
// `cline auth -p anthropic -k KEY -m MODEL` writes, with the base URL its
// quick setup refuses for providers other than OpenAI's (the anthropic
// provider takes one from its settings).
func writeProviders(t *testing.T, home, baseURL string) {
	t.Helper()
	providers := fmt.Sprintf(`{
  "version": 1,
  "lastUsedProvider": "anthropic",
  "modes": {},
  "providers": {
    "anthropic": {
      "settings": {"provider": "anthropic", "apiKey": "sk-ant-dummy-key-for-the-stand-in", "model": %q, "baseUrl": %q},
      "updatedAt": "2026-01-01T00:00:00.000Z",
      "tokenSource": "manual"
    }
  }
}
`, model, baseURL)
	settings := filepath.Join(home, ".cline", "data", "settings")
	if err := os.MkdirAll(settings, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(settings, "providers.json"), []byte(providers), 0o600); err != nil {
		t.Fatal(err)
	}
}

// hookRuns returns the log of itr's runs once itr prime has answered in
// it, or after 20 seconds: Cline runs the TaskStart hook detached and may
// exit before it ends.
func hookRuns(log string) string {
	var runs string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		data, _ := os.ReadFile(log)
		if runs = string(data); strings.Contains(runs, "stdout: ") {
			break
		}
	}
	return runs
}
