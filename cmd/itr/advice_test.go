package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/itr-dev/itr/internal/testgit"
)

// TestAdviceRealRepositories is the advisor's property in real git
// repositories, model-based: random histories of what agents, people and
// accidents do to a task (checkpoints with and without signal and checks
// that pass or fail, blocks, fail/skip/reopen/restart, pause/resume, budget and
// limit changes, plan edits, a kill between the log append and the commit,
// an interrupted check, claims by another agent, uncommitted edits, a
// broken output, a git merge in progress, outcomes (deliver, abandon,
// abandon --failed, a forced archive), archive and restore), and in every
// state reached:
//
//   - status, next and prime (--json) give the same accepted moves;
//   - each command offered, run as the CLI words it in a copy of the
//     repository, is accepted (exit 0, a commit where it writes);
//   - when a hold is given, a checkpoint of every unit is refused and
//     changes nothing;
//   - every state has an answer (a move or a hold), and prime stays within
//     its budget (never over 10,000 characters).
//
// ITR_ADVICE_HISTORIES sets the number of histories (make fuzz runs more).
// A failure is shrunk to a minimal history, printed as a scenario.
func TestAdviceRealRepositories(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("the advice property needs git on PATH")
	}
	histories, steps := 6, 14
	if n, err := strconv.Atoi(os.Getenv("ITR_ADVICE_HISTORIES")); err == nil && n > 0 {
		histories = n
	}
	isolateGit(t)
	m := &adviceModel{t: t}
	for h := 0; h < histories; h++ {
		seed := uint64(h)
		hist := generateHistory(seed, steps)
		if bad := m.replay(hist, true); bad != "" {
			small := m.shrink(hist)
			t.Fatalf("seed %d: %s\nminimal history (%d of %d steps), as a scenario:\n%s", seed, bad, len(small.steps), len(hist.steps), small.script())
		}
	}
	sizes := m.primeSizes
	sort.Ints(sizes)
	if len(sizes) > 0 {
		t.Logf("%d histories, %d states, %d offered commands run (%d settling items; of evidence after done %v), %d holds checked; prime median %d characters (~%d tokens), max %d",
			histories, m.states, m.offersRun, m.settles, m.evidence, m.holdsChecked, sizes[len(sizes)/2], sizes[len(sizes)/2]/4, sizes[len(sizes)-1])
	}
}

// isolateGit gives the test's git and itr an identity and no user config
// (testgit.Isolate), and itr the agent me@model.
func isolateGit(t *testing.T) {
	testgit.Isolate(t)
	t.Setenv("ITR_AGENT", "me@model")
}

// history is a plan and the steps done to the task.
type history struct {
	plan  string
	steps []step
}

// step is one thing done to the repository: an itr command, a git
// command, or a file written by hand (a crash, an edit).
type step struct {
	itr  []string         // itr arguments
	git  []string         // git arguments
	file string           // a file written (from the repository top)
	data string           // its content (appended when add)
	add  bool             // append instead of write
	raw  func(dir string) // anything else (a marker left by a killed run)
	text string           // the step as a scenario line
}

// script is the history as a testscript scenario.
func (h history) script() string {
	var b strings.Builder
	b.WriteString("exec git init -q repo\ncd repo\nexec git commit -q --allow-empty -m init\nexec itr init Model --slug model\ncp ../tasks.md .claude/iterative/model/tasks.md\nexec itr plan\n")
	for _, s := range h.steps {
		b.WriteString(s.text + "\n")
	}
	b.WriteString("exec itr status --json\n\n-- tasks.md --\n" + h.plan)
	return b.String()
}

const taskDir = ".claude/iterative/model"

// generateHistory draws a plan and steps from seed.
func generateHistory(seed uint64, n int) history {
	r := rand.New(rand.NewPCG(seed, 2026))
	var p strings.Builder
	p.WriteString("# Model - Tasks\n\n")
	budget := 0
	if r.IntN(3) == 0 {
		budget = 3 + r.IntN(6)
		fmt.Fprintf(&p, "**Max total iterations:** %d\n\n", budget)
	}
	// Item states the plan declares, settled before done.
	declared := r.IntN(2) == 0
	if r.IntN(4) == 0 {
		p.WriteString("**Approval:** required\n\n")
	}
	if declared {
		p.WriteString("**Item states:** draft, final\n**Settle items before done:** yes\n\n")
	}
	p.WriteString("## Tasks\n\n")
	units := 2 + r.IntN(3)
	var ids []string
	for i := 1; i <= units; i++ {
		id := fmt.Sprintf("T%d", i)
		ids = append(ids, id)
		fmt.Fprintf(&p, "- [ ] **%s**: unit %d\n", id, i)
		if i > 1 && r.IntN(2) == 0 {
			fmt.Fprintf(&p, "  - Depends: T%d\n", 1+r.IntN(i-1))
		}
		if r.IntN(2) == 0 {
			fmt.Fprintf(&p, "  - Max iterations: %d\n", 2+r.IntN(4))
		}
		if i == 1 {
			p.WriteString("  - Output: `outputs/T1.md`\n  - Min words: 3\n")
		} else if r.IntN(3) == 0 {
			p.WriteString("  - Inputs: T1.output\n")
		}
		if declared && i == 1 || r.IntN(2) == 0 {
			p.WriteString("  - Items: 3\n")
			if i == 1 && r.IntN(2) == 0 {
				p.WriteString("  - Counter: lines in outputs/T1.md\n")
			}
		}
		if r.IntN(3) == 0 {
			p.WriteString("  - Verify: `true`\n")
		}
	}
	plan := p.String()
	h := history{plan: plan}
	unit := func() string { return ids[r.IntN(len(ids))] }
	for len(h.steps) < n {
		u := unit()
		var s step
		switch k := r.IntN(37); {
		case k == 33:
			s = itrStep("restart", u, "--reason", "start over")
		case k == 34:
			// A plain commit rewrites T1's output with other text that
			// passes its check: a pin of a done T1 changes (repair, or
			// accept it), and units that read it go stale.
			h.steps = append(h.steps, fileStep(taskDir+"/outputs/T1.md", "Other facts are here, also written whole.\n", false, "T1's output rewritten"))
			s = gitStep("add", "-A")
			h.steps = append(h.steps, s)
			s = gitStep("commit", "-q", "-m", "rewrite the output")
		case k == 35:
			s = itrStep("approve", "--by", "lead")
		case k == 36:
			s = itrStep("recheck", u, "--did", "read again")
		case k < 9:
			args := []string{"checkpoint", u, "--did", "work"}
			if r.IntN(3) == 0 {
				states := []string{"done", "skipped", "draft", "final"}
				if !declared {
					states = states[:2]
				}
				args = append(args, "--item", fmt.Sprintf("%d-3=%s", 1+r.IntN(3), states[r.IntN(len(states))]), "--metric", fmt.Sprintf("words=%d", r.IntN(900)))
			}
			switch r.IntN(5) {
			case 0, 1:
				args = append(args, "--signal")
			case 2:
				args = append(args, "--verified-by", "review")
			case 3:
				args = append(args, "--signal", "--verify", "--", []string{"true", "false"}[r.IntN(2)])
			}
			s = itrStep(args...)
		case k < 10:
			s = itrStep("block", u, "--reason", "waits")
		case k < 11:
			s = itrStep("unblock", u)
		case k < 12:
			s = itrStep("fail", u, "--reason", "gave up")
		case k < 13:
			s = itrStep("skip", u, "--reason", "not needed")
		case k < 14:
			s = itrStep("reopen", u, "--reason", "found wrong")
		case k < 15:
			s = itrStep("pause", "--reason", "review")
		case k < 16:
			s = itrStep("resume")
		case k < 17:
			// The plan edited by hand (the budget raised, a unit's limit
			// raised, a unit added), re-planned or not.
			var edited, what string
			switch r.IntN(3) {
			case 0:
				b := budget + 2 + r.IntN(4)
				edited = strings.Replace(plan, "## Tasks", fmt.Sprintf("**Max total iterations:** %d\n\n## Tasks", b), 1)
				if budget > 0 {
					edited = strings.Replace(plan, fmt.Sprintf("**Max total iterations:** %d", budget), fmt.Sprintf("**Max total iterations:** %d", b), 1)
				}
				what = "the plan's budget raised to " + strconv.Itoa(b)
			case 1:
				edited = strings.ReplaceAll(plan, "  - Max iterations: ", "  - Max iterations: 1")
				what = "every unit's limit raised tenfold"
			default:
				edited = plan + fmt.Sprintf("- [ ] **T9**: added later\n  - Depends: %s\n", u)
				what = "unit T9 added"
			}
			s = fileStep(taskDir+"/tasks.md", edited, false, what)
			if r.IntN(2) == 0 {
				h.steps = append(h.steps, s)
				s = itrStep("plan")
			}
		case k < 18:
			// Killed between the append and the commit.
			s = fileStep(taskDir+"/progress.md", fmt.Sprintf("\n## %s - Iteration 9 - 2026-11-27T12:00:00Z\n**Did:** crashed work\n**Remaining:** the rest\n**Blockers:** None\n**Commit:** None\n", u), true, "a crash after the append of "+u)
		case k < 19:
			// A check killed with itr: its marker stays, its process gone.
			marker := fmt.Sprintf(`{"slug":"model","unit":%q,"command":"true","started":"2026-11-27T12:00:00Z","commit":"0000000","pid":2147480000,"host":"gone","argv":["true"]}`, u)
			name := "itr-check-model--" + u + ".json"
			s = step{raw: func(dir string) { _ = os.WriteFile(filepath.Join(dir, ".git", name), []byte(marker), 0o644) },
				text: "cp ../marker-" + u + ".json .git/" + name + "   # a check of " + u + " killed with itr"}
		case k < 20:
			s = fileStep(taskDir+"/outputs/notes.md", "notes left by a killed session\n", false, "an uncommitted edit of outputs/notes.md")
		case k < 22:
			s = fileStep(taskDir+"/outputs/T1.md", "The facts are here, written whole.\n", false, "T1's output written")
		case k < 23:
			h.steps = append(h.steps, fileStep(taskDir+"/outputs/T1.md", "TODO\n", false, "T1's output cut"))
			s = gitStep("commit", "-q", "-am", "cut the output")
		case k < 24:
			s = itrStep("claim", u, "--agent", "other@elsewhere")
		case k < 25:
			s = itrStep("reconcile")
		case k < 26:
			// A merge left in progress (no conflict), then concluded later.
			h.steps = append(h.steps, gitStep("checkout", "-q", "-b", "side"), fileStep("side.txt", "side\n", false, "side.txt written"),
				gitStep("add", "side.txt"), gitStep("commit", "-q", "-m", "side"), gitStep("checkout", "-q", "main"))
			s = gitStep("merge", "-q", "--no-ff", "--no-commit", "side")
		case k < 27:
			if r.IntN(2) == 0 {
				s = gitStep("commit", "-q", "--no-edit")
				break
			}
			// Two clones merged: a checkpoint in a clone, one here, then
			// the clone's branch pulled (itr's merge driver joins the logs).
			other := unit()
			s = step{raw: func(dir string) {
				clone := dir + "-clone"
				_ = os.RemoveAll(clone)
				if _, err := gitIn("", "clone", "-q", dir, clone); err != nil {
					return
				}
				runItr(clone, "checkpoint", other, "--did", "work in the clone")
				runItr(dir, "checkpoint", u, "--did", "work here")
				_, _ = gitIn(dir, "pull", "-q", "--no-rebase", "--no-edit", clone, "main")
			}, text: fmt.Sprintf("# a clone checkpoints %s, this one %s, then git pull from the clone", other, u)}
		case k < 28 && r.IntN(2) == 0:
			s = fileStep(taskDir+"/state.json", "{}\n", false, "state.json overwritten by hand")
		case k < 28:
			// A plain commit of an older progress.md: it takes committed
			// entries out (the next record, or reconcile, puts them back).
			s = gitStep("checkout", "HEAD~1", "--", taskDir+"/progress.md")
			h.steps = append(h.steps, s)
			s = gitStep("commit", "-q", "-m", "an old index committed", "--", taskDir+"/progress.md")
		case k < 29:
			s = itrStep("archive")
		case k < 30:
			// How the task ends: delivered (with limitations while units
			// are open), abandoned, failed, or archived by force.
			if r.IntN(2) == 0 {
				s = itrStep("deliver", "--limitations", "one source only")
			} else {
				s = itrStep("deliver")
			}
		case k < 31:
			if r.IntN(2) == 0 {
				s = itrStep("abandon", "--reason", "superseded")
			} else {
				s = itrStep("abandon", "--failed", "--reason", "the API is gone", "--kind", "tool-error")
			}
		case k < 32:
			s = itrStep("archive", "--force", "--reason", "no longer needed")
		default:
			s = itrStep("restore", "model")
		}
		h.steps = append(h.steps, s)
	}
	return h
}

func itrStep(args ...string) step {
	return step{itr: args, text: "exec itr " + quoteArgs(args)}
}

func gitStep(args ...string) step {
	return step{git: args, text: "exec git " + quoteArgs(args)}
}

func fileStep(file, data string, add bool, what string) step {
	return step{file: file, data: data, add: add, text: "# " + what + " (" + file + ")"}
}

func quoteArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if strings.ContainsAny(a, " '\"") || a == "" {
			out[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
		}
	}
	return strings.Join(out, " ")
}

// adviceModel runs histories and checks every state.
type adviceModel struct {
	t                               *testing.T
	states, offersRun, holdsChecked int
	// settles counts the offers of item work that settles items (the
	// settle rule refused the signal).
	settles int
	// evidence counts the offers run of the moves that keep evidence
	// true after done: accept-outputs, recheck, approve, phase.
	evidence   map[string]int
	primeSizes []int
}

// itr runs itr in process in dir; it returns the exit code and output.
func runItr(dir string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(append([]string{"-C", dir}, args...), IO{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: os.Getenv})
	return code, out.String(), errb.String()
}

// gitIn runs git in dir and returns its combined output (testgit.Try).
func gitIn(dir string, args ...string) (string, error) { return testgit.Try(dir, args...) }

// replay runs a history from a fresh repository; with check it checks
// every state and returns what went wrong ("" for nothing).
func (m *adviceModel) replay(h history, check bool) string {
	dir := filepath.Join(m.t.TempDir(), "repo")
	for _, args := range [][]string{{"init", "-q", "--template=", dir}} {
		if out, err := gitIn("", args...); err != nil {
			m.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if out, err := gitIn(dir, "commit", "-q", "--allow-empty", "-m", "init"); err != nil {
		m.t.Fatalf("initial commit: %v\n%s", err, out)
	}
	if code, _, errs := runItr(dir, "init", "Model", "--slug", "model"); code != 0 {
		m.t.Fatalf("itr init: %s", errs)
	}
	writeFile(m.t, dir, taskDir+"/tasks.md", h.plan, false)
	if code, _, errs := runItr(dir, "plan"); code != 0 {
		m.t.Fatalf("itr plan: %s", errs)
	}
	for i, s := range h.steps {
		if check {
			if bad := m.checkState(dir); bad != "" {
				return fmt.Sprintf("after step %d (%s): %s", i, stepsText(h.steps[:i]), bad)
			}
		}
		apply(m.t, dir, s)
	}
	if check {
		if bad := m.checkState(dir); bad != "" {
			return fmt.Sprintf("after all steps (%s): %s", stepsText(h.steps), bad)
		}
	}
	return ""
}

func stepsText(steps []step) string {
	var parts []string
	for _, s := range steps {
		parts = append(parts, s.text)
	}
	return strings.Join(parts, "; ")
}

func apply(t *testing.T, dir string, s step) {
	switch {
	case s.itr != nil:
		runItr(dir, s.itr...) // refused or not: both are history
	case s.git != nil:
		_, _ = gitIn(dir, s.git...)
	case s.raw != nil:
		s.raw(dir)
	case s.file != "":
		writeFile(t, dir, s.file, s.data, s.add)
	}
}

func writeFile(t *testing.T, dir, rel, data string, add bool) {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if add {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(p, flag, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// adviceJSON is what status, next and prime --json say of the advice.
type adviceJSON struct {
	Actions []struct {
		Op, Unit, For, Command string
	} `json:"actions"`
	Hold *struct {
		Code, Reason, Clear string
	} `json:"hold"`
	Units []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"units"`
	Markdown string `json:"markdown"`
	Next     string `json:"next"`
}

// checkState checks the advice in the repository at dir as it stands.
func (m *adviceModel) checkState(dir string) string {
	m.states++
	var views [3]adviceJSON
	for i, cmd := range []string{"status", "next", "prime"} {
		code, out, errs := runItr(dir, cmd, "--json")
		if code != 0 {
			if cmd == "status" && strings.Contains(errs, "no task under") {
				return "" // archived and gone: status --task names it; nothing to offer
			}
			return fmt.Sprintf("itr %s --json: exit %d: %s", cmd, code, errs)
		}
		if err := json.Unmarshal([]byte(out), &views[i]); err != nil {
			return fmt.Sprintf("itr %s --json: %v", cmd, err)
		}
	}
	st, nx, pr := views[0], views[1], views[2]
	commands := func(v adviceJSON) []string {
		var out []string
		for _, a := range v.Actions {
			out = append(out, a.Command)
		}
		return out
	}
	if !slices.Equal(commands(st), commands(nx)) || !slices.Equal(commands(st), commands(pr)) {
		return fmt.Sprintf("status, next and prime offer different moves: %q, %q, %q", commands(st), commands(nx), commands(pr))
	}
	if (st.Hold == nil) != (nx.Hold == nil) || (st.Hold == nil) != (pr.Hold == nil) {
		return "status, next and prime disagree on the hold"
	}
	if len(pr.Markdown) > 10000 {
		return fmt.Sprintf("prime is %d characters, over 10,000", len(pr.Markdown))
	}
	m.primeSizes = append(m.primeSizes, len(pr.Markdown))
	if len(st.Actions) == 0 && st.Hold == nil {
		return "no answer: neither a move nor a hold"
	}
	for _, a := range st.Actions {
		if bad := m.runOffer(dir, a.Command); bad != "" {
			return bad
		}
	}
	if st.Hold != nil {
		m.holdsChecked++
		if bad := m.checkRefused(dir, st); bad != "" {
			return "hold " + st.Hold.Code + " (" + st.Hold.Reason + "): " + bad
		}
	}
	return ""
}

// runOffer runs one offered command in a copy of dir: it must be accepted.
func (m *adviceModel) runOffer(dir, command string) string {
	args, err := splitCommand(command)
	if err != nil || len(args) < 2 || args[0] != "itr" {
		return fmt.Sprintf("offered %q: not an itr command line (%v)", command, err)
	}
	args = args[1:]
	for i, a := range args {
		if a == "..." {
			args[i] = "model text"
		}
	}
	copyDir := filepath.Join(m.t.TempDir(), "copy")
	if err := copyTree(dir, copyDir); err != nil {
		m.t.Fatal(err)
	}
	before, _ := gitIn(copyDir, "rev-parse", "HEAD")
	code, out, errs := runItr(copyDir, args...)
	m.offersRun++
	if slices.Contains(args, "--item") {
		m.settles++
	}
	for _, kind := range []string{"--accept-outputs", "recheck", "approve", "phase"} {
		if slices.Contains(args, kind) {
			if m.evidence == nil {
				m.evidence = map[string]int{}
			}
			m.evidence[strings.TrimPrefix(kind, "--")]++
		}
	}
	after, _ := gitIn(copyDir, "rev-parse", "HEAD")
	verify := slices.Contains(args, "--verify")
	switch {
	case code == 0, code == ExitProblems && verify && before != after:
		// accepted (a check that failed is recorded and exits 3)
	default:
		return fmt.Sprintf("offered %q, refused: exit %d: %s%s", command, code, errs, out)
	}
	if args[0] != "plan" && args[0] != "reconcile" && before == after {
		return fmt.Sprintf("offered %q: exit 0 but no commit", command)
	}
	if m.offersRun%4 != 0 {
		return "" // git fsck on every fourth: the checks stay fast
	}
	if out, err := gitIn(copyDir, "fsck", "--strict", "--no-progress"); err != nil {
		return fmt.Sprintf("offered %q: git fsck after it: %v\n%s", command, err, out)
	}
	return ""
}

// checkRefused runs a checkpoint of every unit in one copy of dir: each
// must be refused and change nothing.
func (m *adviceModel) checkRefused(dir string, st adviceJSON) string {
	copyDir := filepath.Join(m.t.TempDir(), "refused")
	if err := copyTree(dir, copyDir); err != nil {
		m.t.Fatal(err)
	}
	for _, u := range st.Units {
		before, _ := gitIn(copyDir, "rev-parse", "HEAD")
		code, _, _ := runItr(copyDir, "checkpoint", u.ID, "--did", "model text")
		after, _ := gitIn(copyDir, "rev-parse", "HEAD")
		if code == 0 {
			return fmt.Sprintf("checkpoint %s (%s) was accepted", u.ID, u.Status)
		}
		if after == before {
			continue
		}
		// A refused record may still put back entries a plain commit took
		// out (its own reconcile commit, made first); nothing else.
		events, _ := gitIn(copyDir, "log", "--format=%(trailers:key=Itr-Event,valueonly)", strings.TrimSpace(before)+".."+strings.TrimSpace(after))
		for _, e := range strings.Fields(events) {
			if e != "reconciled" {
				return fmt.Sprintf("checkpoint %s (%s) was refused but committed a %s event", u.ID, u.Status, e)
			}
		}
	}
	return ""
}

// shrink removes steps while the history still fails, one at a time.
func (m *adviceModel) shrink(h history) history {
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(h.steps); i++ {
			c := history{plan: h.plan, steps: append(append([]step{}, h.steps[:i]...), h.steps[i+1:]...)}
			if m.replay(c, true) != "" {
				h, changed = c, true
				i--
			}
		}
	}
	return h
}

// splitCommand splits a command line as a POSIX shell would: words, "..."
// and '...' quotes.
func splitCommand(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("an unclosed quote")
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

// copyTree copies a repository with its git folder, as it stands.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, info.Mode().Perm())
	})
}
