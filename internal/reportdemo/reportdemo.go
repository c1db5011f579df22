// Package reportdemo builds a demo task with the itr binary in a fresh git
// repository (a plan with dependencies, checkpoints with a failing and a
// passing verification run, a block, a guardrail, a note and a hand edit of
// state.json that itr reconcile fixes) and drives a headless Chromium on
// the report it writes: the browser test of itr report and `make
// screenshot` (internal/reportshot) share it.
package reportdemo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/itr-dev/itr/internal/atomicfile"
)

// Slug is the demo task's slug.
const Slug = "user-auth"

// HostileTitle is the title of the unit a hostile demo adds: markup that
// must reach the page as text.
const HostileTitle = `<script>alert(1)</script> "><img src=x onerror=alert(1)>`

// Units are the demo plan's units, in plan order.
var Units = []string{"T1", "T2", "T3", "T4", "T5", "T6"}

const brief = `# User authentication

## Outcome Needed
Users sign up, log in and log out with an email and a password; sessions
expire, and repeated failures are rate limited.

## Done When
- the login flow passes its tests
`

const tasks = `# User authentication - Tasks

## Tasks

- [ ] **T1**: Add the User model
  - Files: ` + "`user.go`" + `
  - Completion: ` + "`<signal>T1_DONE</signal>`" + `
  - Max iterations: 6
- [ ] **T2**: Hash passwords with bcrypt
  - Depends: T1
  - Max iterations: 4
- [ ] **T3**: Session store with expiry
  - Depends: T1
  - Max iterations: 5
- [ ] **T4**: Login and logout endpoints
  - Depends: T2, T3
  - Max iterations: 6
- [ ] **T5**: Rate-limit failed logins
  - Depends: T4
  - Max iterations: 4
- [ ] **T6**: Write the user guide
  - Max iterations: 3
`

// Repo is a demo repository: its folder and the environment git and itr
// run in (HOME, identity and configuration of their own).
type Repo struct {
	Dir string
	Env []string
	Itr string
	// Slug is the demo task's slug: Slug, or CheckoutSlug.
	Slug string
}

// Build makes the demo task in a new repository under base with the itr
// binary itr; hostile adds a unit T7 titled HostileTitle.
func Build(itr, base string, hostile bool) (*Repo, error) {
	r, err := newRepo(itr, base)
	if err != nil {
		return nil, err
	}
	plan := tasks
	if hostile {
		plan += "- [ ] **T7**: " + HostileTitle + "\n  - Depends: T6\n"
	}
	steps := []struct {
		ok   []int // exit codes that are fine
		args []string
	}{
		{nil, []string{"git", "init", "-q"}},
		{nil, []string{"git", "commit", "-q", "--allow-empty", "-m", "initial commit"}},
		{nil, []string{"itr", "init", "User authentication", "--slug", Slug}},
		{nil, []string{"write", "brief.md", brief}},
		{nil, []string{"write", "tasks.md", plan}},
		{nil, []string{"itr", "plan"}},
		{nil, []string{"itr", "checkpoint", "T1", "--did", "Added the User model", "--remaining", "validation and tests"}},
		{[]int{3}, []string{"itr", "checkpoint", "T1", "--did", "Model done", "--signal", "--verify", "--", "false"}},
		{nil, []string{"itr", "checkpoint", "T1", "--did", "Validation and tests", "--signal", "--verify", "--", "true"}},
		{nil, []string{"itr", "checkpoint", "T1", "--did", "Confirmation: re-ran the tests, all pass", "--signal"}},
		{nil, []string{"itr", "checkpoint", "T1", "--did", "Reviewed the code", "--verified-by", "Ana (code review)"}},
		{nil, []string{"itr", "checkpoint", "T2", "--did", "bcrypt with cost 12; timing-safe compare", "--signal", "--verify", "--", "true"}},
		{nil, []string{"itr", "checkpoint", "T2", "--did", "Confirmation: hashes verified against known vectors", "--signal"}},
		{nil, []string{"itr", "checkpoint", "T2", "--did", "Security review", "--verified-by", "Sam (security)"}},
		{nil, []string{"itr", "checkpoint", "T3", "--did", "In-memory session store", "--remaining", "expiry and cleanup"}},
		{nil, []string{"itr", "checkpoint", "T3", "--did", "Expiry added", "--remaining", "cleanup goroutine", "--blockers", "flaky clock in tests"}},
		{nil, []string{"itr", "block", "T6", "--reason", "Waiting for the product team's wording"}},
		{nil, []string{"itr", "guardrail", "--name", "Run tests before signalling", "--when", "declaring a unit done", "--problem", "a signal without tests", "--solution", "run go test ./... first"}},
		{nil, []string{"itr", "note", "Sessions use a fake clock in tests from now on"}},
		{nil, []string{"hand-edit", "T5"}},
		{nil, []string{"itr", "reconcile"}},
	}
	for _, s := range steps {
		if err := r.step(s.args, s.ok); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// newRepo is an empty folder for a demo repository under base, with the
// environment git and itr run in.
func newRepo(itr, base string) (*Repo, error) {
	home := filepath.Join(base, "home")
	dir := filepath.Join(base, "app")
	for _, d := range []string{home, dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || strings.HasPrefix(k, "ITR_") || k == "HOME" || k == "XDG_CONFIG_HOME" || k == "NO_COLOR" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"ITR_NO_MAINTENANCE=1",
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Demo Agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=Demo Agent", "GIT_COMMITTER_EMAIL=agent@example.com",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=init.defaultBranch", "GIT_CONFIG_VALUE_0=main",
	)
	return &Repo{Dir: dir, Env: env, Itr: itr}, nil
}

// TaskDir is the demo task's folder.
func (r *Repo) TaskDir() string {
	slug := r.Slug
	if slug == "" {
		slug = Slug
	}
	return filepath.Join(r.Dir, ".claude", "iterative", slug)
}

func (r *Repo) step(args []string, ok []int) error {
	switch args[0] {
	case "write":
		return os.WriteFile(filepath.Join(r.TaskDir(), args[1]), []byte(args[2]), 0o644)
	case "hand-edit":
		// Someone marks a unit done by hand in state.json: reconcile
		// puts back what the log says.
		p := filepath.Join(r.TaskDir(), "state.json")
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		re := regexp.MustCompile(`("` + args[1] + `": \{\s*"status": )"pending"`)
		edited := re.ReplaceAll(data, []byte(`${1}"done"`))
		if bytes.Equal(edited, data) {
			return fmt.Errorf("hand edit: no pending %s in state.json", args[1])
		}
		return os.WriteFile(p, edited, 0o644)
	}
	_, err := r.Run(args, ok...)
	return err
}

// Run runs git or itr (args[0]) in the repository; exit codes in ok are
// not errors.
func (r *Repo) Run(args []string, ok ...int) (string, error) {
	bin := args[0]
	if bin == "itr" {
		bin = r.Itr
	}
	cmd := exec.Command(bin, args[1:]...)
	cmd.Dir, cmd.Env = r.Dir, r.Env
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		for _, c := range ok {
			if ee.ExitCode() == c {
				return string(out), nil
			}
		}
	}
	if err != nil {
		return string(out), fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// FindChromium is the first of chromium, chromium-browser, google-chrome
// on PATH, "" when there is none.
func FindChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// ShotSetup is what a screenshot tool needs before it builds a demo: the
// Chromium to drive, the itr binary's absolute path and a temporary base
// folder, which the caller removes.
func ShotSetup(itr, prefix string) (chromium, absItr, base string, err error) {
	if chromium = FindChromium(); chromium == "" {
		return "", "", "", fmt.Errorf("no chromium, chromium-browser or google-chrome on PATH")
	}
	if absItr, err = filepath.Abs(itr); err != nil {
		return "", "", "", err
	}
	if base, err = os.MkdirTemp("", prefix); err != nil {
		return "", "", "", err
	}
	return chromium, absItr, base, nil
}

// WriteShot writes the screenshot data to out, once it decodes as a PNG,
// and says so on stdout.
func WriteShot(out string, data []byte) error {
	if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		return fmt.Errorf("the screenshot does not decode: %w", err)
	}
	if err := atomicfile.Write(out, data, 0o644); err != nil {
		return err
	}
	fmt.Printf("Wrote %s (%d KB)\n", out, (len(data)+1023)/1024)
	return nil
}

// Chromium runs a headless Chromium with a fresh profile in userDir, no
// name resolution (every host is NOTFOUND: nothing can be fetched) and
// logging on stderr, with extra arguments and url, for at most timeout.
func Chromium(chromium, userDir string, timeout time.Duration, extra []string, url string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		`--host-resolver-rules=MAP * ~NOTFOUND`, "--enable-logging=stderr", "--v=0",
		"--user-data-dir=" + userDir, "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-background-networking", "--disable-sync",
		"--hide-scrollbars"}
	args = append(append(args, extra...), url)
	cmd := exec.CommandContext(ctx, chromium, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("chromium did not finish in %s: %w", timeout, ctx.Err())
	}
	return o.String(), e.String(), err
}

// problemLine matches what Chromium logs on stderr for a console message
// of the page (an error, an uncaught exception, a violated
// Content-Security-Policy) or a failed load.
var problemLine = regexp.MustCompile(`(?i)CONSOLE|Uncaught|net::ERR_|Content[ -]Security[ -]Policy|Refused to (load|apply|execute|connect|frame)|Failed to load resource`)

// Problems are the lines of Chromium's stderr that tell of a console
// message, a script error, a blocked or failed load.
func Problems(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if problemLine.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}
