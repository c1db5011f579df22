// Package agentsim simulates many agents working on one task through one
// git remote: N agents over M clones of a repository served by a real
// smart-HTTP server (internal/gitserver), each looping claim → checkpoint
// → signal → confirm → verified → release → sync with the itr binary, for
// a fixed time. It then syncs every clone and judges the outcome with git
// and itr: double claims, lost or doubled entries, itr verify on every
// clone, the clones' heads. It measures claim latency against a plain git
// push round trip to the same server, made in the same run, and units
// finished per minute. `make bench` prints its table; a short run is a
// test.
package agentsim

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/itr-dev/itr/internal/gitserver"
)

// Config is one simulation.
type Config struct {
	Itr    string        // the itr binary
	Dir    string        // an empty folder for the server and the clones
	Agents int           // N
	Clones int           // M (agents are dealt round-robin over them)
	For    time.Duration // how long the agents loop
	Units  int           // units in the task (0: 10 per second of the run, at least 100)
	// Env is the environment of every git and itr process (HOME, identity,
	// GIT_CONFIG_NOSYSTEM); PATH must find git, and itr for the merge
	// driver.
	Env []string
}

// Result is what a simulation measured and found.
type Result struct {
	Agents, Clones int
	Duration       time.Duration
	Finished       int // units taken to done and released
	Claims         []time.Duration
	Pushes         []time.Duration // plain git push round trips, same run
	Syncs          []time.Duration
	LostClaims     int // claims refused because another agent won the race (expected under contention)
	DoubleClaims   int // units two agents both claimed successfully (must be 0)
	Committed      int // entries the agents were told were committed
	Lost           int // committed entries missing from a clone after the final sync (must be 0)
	Doubled        int // entries found more than once (must be 0)
	Unknown        int // entries in the log no agent was told were committed (must be 0)
	VerifyFailures []string
	HeadsDiffer    bool
	Errors         map[string]int // failed commands by first words of their message
	ServerStats    gitserver.Stats
	// FirstClaims are the agents' first claims and LaterClaims the rest
	// (Claims has both): all agents start at once on a task nobody holds
	// yet, so the first ones race for one unit.
	FirstClaims, LaterClaims []time.Duration
}

// PerMinute is units finished per minute.
func (r Result) PerMinute() float64 {
	if r.Duration <= 0 {
		return 0
	}
	return float64(r.Finished) / r.Duration.Minutes()
}

// Clean reports whether every invariant held.
func (r Result) Clean() bool {
	return r.DoubleClaims == 0 && r.Lost == 0 && r.Doubled == 0 && r.Unknown == 0 && len(r.VerifyFailures) == 0 && !r.HeadsDiffer
}

// Problems lists the invariants that did not hold.
func (r Result) Problems() []string {
	var out []string
	add := func(n int, what string) {
		if n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(r.DoubleClaims, "double claims")
	add(r.Lost, "lost entries")
	add(r.Doubled, "doubled entries")
	add(r.Unknown, "entries no agent committed")
	out = append(out, r.VerifyFailures...)
	if r.HeadsDiffer {
		out = append(out, "the clones' heads differ after the final sync")
	}
	return out
}

// Quantile is the q-quantile (0..1) of ds, nearest rank.
func Quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s)-1) + 0.5)
	return s[i]
}

type sim struct {
	cfg    Config
	srv    *gitserver.Server
	url    string
	clones []string

	mu      sync.Mutex
	res     Result
	claimed map[string][]string // unit → agents whose claim succeeded
	did     map[string]bool     // Did texts of entries committed
}

// Run runs one simulation.
func Run(cfg Config) (Result, error) {
	if cfg.Agents < 1 || cfg.Clones < 1 {
		return Result{}, errors.New("agentsim: need at least one agent and one clone")
	}
	if cfg.Units == 0 {
		// More than the agents finish (they have done at most ~5 a second
		// on 2 cores), and no more: a task ten times larger than its run
		// needs would time the plan's parsing, not the claims.
		cfg.Units = max(100, int(cfg.For.Seconds())*10)
	}
	abs, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return Result{}, err
	}
	cfg.Dir = abs
	s := &sim{cfg: cfg, claimed: map[string][]string{}, did: map[string]bool{}}
	s.res = Result{Agents: cfg.Agents, Clones: cfg.Clones, Errors: map[string]int{}}
	if err := s.setup(); err != nil {
		return s.res, err
	}
	defer s.srv.Close()
	stop := time.Now().Add(cfg.For)
	var wg sync.WaitGroup
	for i := 0; i < cfg.Agents; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s.agent(fmt.Sprintf("agent-%02d", i+1), s.clones[i%len(s.clones)], stop)
		}(i)
	}
	// Plain pushes of a new ref to the same server, under the same load.
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.plainPushes(stop)
	}()
	start := time.Now()
	wg.Wait()
	s.res.Duration = time.Since(start)
	if err := s.judge(); err != nil {
		return s.res, err
	}
	s.res.ServerStats = s.srv.Stats()
	return s.res, nil
}

func (s *sim) run(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, s.cfg.Env...), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("%s %s: %w: %s", filepath.Base(name), strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

func (s *sim) git(dir string, args ...string) (string, error) { return s.run(dir, nil, "git", args...) }

func (s *sim) setup() error {
	srvRoot := filepath.Join(s.cfg.Dir, "srv")
	if err := os.MkdirAll(srvRoot, 0o755); err != nil {
		return err
	}
	if _, err := s.git(srvRoot, "init", "-q", "--bare", "--initial-branch=main", "remote.git"); err != nil {
		return err
	}
	srv, err := gitserver.Start(srvRoot, gitserver.Options{User: "sim", Password: "agents"})
	if err != nil {
		return err
	}
	s.srv = srv
	s.url = srv.URL + "/remote.git"
	cred := filepath.Join(s.cfg.Dir, "cred")
	if err := os.WriteFile(cred, []byte(srv.CredentialURL()+"\n"), 0o600); err != nil {
		return err
	}
	// Every process finds the credentials the way a user's git does.
	s.cfg.Env = append(s.cfg.Env, "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=credential.helper", "GIT_CONFIG_VALUE_0=store --file="+cred,
		"GIT_CONFIG_KEY_1=init.defaultBranch", "GIT_CONFIG_VALUE_1=main", "ITR_NO_MAINTENANCE=1")
	seed := filepath.Join(s.cfg.Dir, "seed")
	var tasks strings.Builder
	tasks.WriteString("# Sim - Tasks\n\n## Tasks\n\n")
	for i := 1; i <= s.cfg.Units; i++ {
		fmt.Fprintf(&tasks, "- [ ] **T%d**: unit %d\n", i, i)
	}
	steps := [][]string{
		{"git", "init", "-q", "--initial-branch=main", seed},
		{"git", "-C", seed, "commit", "-q", "--allow-empty", "-m", "init"},
		{s.cfg.Itr, "-C", seed, "init", "Sim"},
	}
	for _, st := range steps {
		if _, err := s.run(s.cfg.Dir, nil, st[0], st[1:]...); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(seed, ".claude/iterative/sim/tasks.md"), []byte(tasks.String()), 0o644); err != nil {
		return err
	}
	for _, st := range [][]string{
		{s.cfg.Itr, "plan"},
		{"git", "remote", "add", "origin", s.url},
		{"git", "push", "-q", "-u", "origin", "main"},
	} {
		if _, err := s.run(seed, nil, st[0], st[1:]...); err != nil {
			return err
		}
	}
	for i := 0; i < s.cfg.Clones; i++ {
		dir := filepath.Join(s.cfg.Dir, fmt.Sprintf("clone-%d", i+1))
		if _, err := s.git(s.cfg.Dir, "clone", "-q", s.url, dir); err != nil {
			return err
		}
		s.clones = append(s.clones, dir)
	}
	return nil
}

var claimedRe = regexp.MustCompile(`^(T\d+): claimed by `)

// agent loops until stop: claim the next unit no one holds, take it to
// done in four checkpoints, release it, sync.
func (s *sim) agent(name, dir string, stop time.Time) {
	env := []string{"ITR_AGENT=" + name}
	first := true
	for n := 0; time.Now().Before(stop); n++ {
		t0 := time.Now()
		out, err := s.run(dir, env, s.cfg.Itr, "claim")
		took := time.Since(t0)
		if err != nil {
			s.fail(err)
			if strings.Contains(err.Error(), "held by") || strings.Contains(err.Error(), "first") {
				s.mu.Lock()
				s.res.LostClaims++
				s.mu.Unlock()
			}
			s.sync(dir, env)
			continue
		}
		m := claimedRe.FindStringSubmatch(strings.TrimSpace(out))
		if m == nil {
			s.fail(fmt.Errorf("claim said %q", out))
			continue
		}
		unit := m[1]
		s.mu.Lock()
		s.res.Claims = append(s.res.Claims, took)
		if first {
			s.res.FirstClaims = append(s.res.FirstClaims, took)
		} else {
			s.res.LaterClaims = append(s.res.LaterClaims, took)
		}
		first = false
		s.claimed[unit] = append(s.claimed[unit], name)
		s.mu.Unlock()
		steps := [][]string{
			{"--did", fmt.Sprintf("%s %s work", name, unit)},
			{"--did", fmt.Sprintf("%s %s done", name, unit), "--signal"},
			{"--did", fmt.Sprintf("%s %s confirmed", name, unit), "--signal"},
			{"--did", fmt.Sprintf("%s %s verified", name, unit), "--verified-by", "the simulation"},
		}
		ok := true
		for _, st := range steps {
			args := append([]string{"checkpoint", unit}, st...)
			if _, err := s.runRetry(dir, env, args...); err != nil {
				s.fail(err)
				ok = false
				break
			}
			s.mu.Lock()
			s.res.Committed++
			s.did[st[1]] = true
			s.mu.Unlock()
		}
		if _, err := s.runRetry(dir, env, "release", unit); err != nil {
			s.fail(err)
		} else if ok {
			s.mu.Lock()
			s.res.Finished++
			s.mu.Unlock()
		}
		s.sync(dir, env)
	}
}

// runRetry runs itr, again while another itr of the clone holds its lock
// or a sync of the clone has a merge open (agents share a clone's work
// tree, as agents in one checkout do).
func (s *sim) runRetry(dir string, env []string, args ...string) (string, error) {
	var err error
	var out string
	for i := 0; i < 50; i++ {
		out, err = s.run(dir, env, s.cfg.Itr, args...)
		if err == nil || !transient(err) {
			return out, err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return out, err
}

func transient(err error) bool {
	msg := err.Error()
	for _, s := range []string{"is in progress", "another itr command", "index.lock", "moved while", "changed meanwhile", "cannot lock ref"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func (s *sim) sync(dir string, env []string) {
	t0 := time.Now()
	_, err := s.runRetry(dir, env, "sync")
	if err != nil {
		s.fail(err)
		return
	}
	s.mu.Lock()
	s.res.Syncs = append(s.res.Syncs, time.Since(t0))
	s.mu.Unlock()
}

// fail counts a failed command by the first words of its message.
func (s *sim) fail(err error) {
	msg := err.Error()
	if i := strings.Index(msg, "itr: "); i >= 0 {
		msg = msg[i+5:]
	}
	if f := strings.Fields(msg); len(f) > 24 {
		msg = strings.Join(f[:24], " ")
	}
	s.mu.Lock()
	s.res.Errors[msg]++
	s.mu.Unlock()
}

// plainPushes times git push of a new ref (one blob) to the same server
// from a clone of its own, every 200ms while the agents run: the round
// trip a claim is compared with.
func (s *sim) plainPushes(stop time.Time) {
	dir := filepath.Join(s.cfg.Dir, "pusher")
	if _, err := s.git(s.cfg.Dir, "clone", "-q", s.url, dir); err != nil {
		s.fail(err)
		return
	}
	for i := 0; time.Now().Before(stop); i++ {
		blob, err := s.run(dir, nil, "sh", "-c", fmt.Sprintf("echo push %d | git hash-object -w --stdin", i))
		if err != nil {
			s.fail(err)
			return
		}
		t0 := time.Now()
		if _, err := s.git(dir, "push", "-q", "origin", strings.TrimSpace(blob)+":refs/bench/push-"+fmt.Sprint(i)); err != nil {
			s.fail(err)
			continue
		}
		s.mu.Lock()
		s.res.Pushes = append(s.res.Pushes, time.Since(t0))
		s.mu.Unlock()
		time.Sleep(200 * time.Millisecond)
	}
}

var didRe = regexp.MustCompile(`(?m)^\*\*Did:\*\* (.*)$`)

// judge syncs every clone until their heads agree, then checks the
// invariants on each.
func (s *sim) judge() error {
	for unit, agents := range s.claimed {
		if len(agents) > 1 {
			s.res.DoubleClaims++
			s.res.Errors["double claim of "+unit+" by "+strings.Join(agents, ", ")]++
		}
	}
	env := []string{"ITR_AGENT=judge"}
	var heads []string
	for round := 0; round < 3; round++ {
		heads = heads[:0]
		for _, dir := range s.clones {
			if _, err := s.runRetry(dir, env, "sync"); err != nil {
				return fmt.Errorf("final sync of %s: %w", filepath.Base(dir), err)
			}
		}
		for _, dir := range s.clones {
			h, err := s.git(dir, "rev-parse", "HEAD")
			if err != nil {
				return err
			}
			heads = append(heads, strings.TrimSpace(h))
		}
		if allSame(heads) {
			break
		}
	}
	s.res.HeadsDiffer = !allSame(heads)
	for _, dir := range s.clones {
		if _, err := s.run(dir, env, s.cfg.Itr, "verify"); err != nil {
			s.res.VerifyFailures = append(s.res.VerifyFailures, filepath.Base(dir)+": "+err.Error())
		}
		if out, err := s.git(dir, "status", "--porcelain"); err != nil || strings.TrimSpace(out) != "" {
			s.res.VerifyFailures = append(s.res.VerifyFailures, filepath.Base(dir)+": work tree not clean: "+out)
		}
		log, err := s.git(dir, "show", "HEAD:.claude/iterative/sim/progress.md")
		if err != nil {
			return err
		}
		seen := map[string]int{}
		for _, m := range didRe.FindAllStringSubmatch(log, -1) {
			if strings.HasPrefix(m[1], "agent-") {
				seen[m[1]]++
			}
		}
		lost, doubled, unknown := 0, 0, 0
		for d := range s.did {
			switch seen[d] {
			case 0:
				lost++
			case 1:
			default:
				doubled++
			}
		}
		for d := range seen {
			if !s.did[d] {
				unknown++
			}
		}
		s.res.Lost = max(s.res.Lost, lost)
		s.res.Doubled = max(s.res.Doubled, doubled)
		s.res.Unknown = max(s.res.Unknown, unknown)
	}
	return nil
}

func allSame(xs []string) bool {
	for _, x := range xs {
		if x != xs[0] {
			return false
		}
	}
	return len(xs) > 0
}

// ErrorLines are the failed commands counted, most frequent first.
func (r Result) ErrorLines() []string {
	var out []string
	for msg, n := range r.Errors {
		out = append(out, fmt.Sprintf("%5d × %s", n, msg))
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out
}
