// Package workspace holds itr's use cases: it opens a repository and
// turns each request (plan, checkpoint, finish, block, fail, skip,
// reopen, phase, guardrail, decide, pause, note) into one event, which the
// rule book (reconcile.Decide) decides and the write path (package record:
// lock → repair → reduce → commit) records. Everything else lives in rooms
// below it, each reached through gitstate.Repository and tested against a
// fake of it and the real engines: record (the write path and reconcile),
// create (itr init),
// claims, archive, sync, store (where tasks are and how they are read),
// view (status, next, log, list, prime, the report), verify (the proof of
// a history), merge (the merge driver), hooks (git's and the agents'
// hooks), index (INDEX.md), runs (verification runs) and recovery (the
// repair after a killed commit). Workspace delegates to them so that
// front ends see one API.
package workspace

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/claims"
	"github.com/itr-dev/itr/internal/workspace/store"
)

// Options open a workspace. Zero values take the defaults.
type Options struct {
	Dir  string           // where the command runs (-C); "" is the current directory
	Root string           // the task root relative to the repository top (--root, ITR_ROOT, .itr.yaml)
	Task string           // the selected task's slug (-t, ITR_TASK)
	Now  func() time.Time // the clock; nil is time.Now
	// Agent names the agent this command acts for in claims and in the
	// entries it appends (--agent, ITR_AGENT); "" is store.AgentName's
	// default.
	Agent string
	// Model names the model the agent runs on (--model, ITR_MODEL) and
	// Session its session (ITR_SESSION, or the id an agent's hook
	// passes): the entries the command appends record them; "" when
	// unknown.
	Model, Session string
}

// Workspace is an opened repository with its task root: the store every
// room reads through, and the use cases that write.
type Workspace struct {
	*store.Store
	// claims is the claims room of the command, made on first use
	// (claimRoom): it reads the claims remote once per command.
	claims *claims.Room
}

// Open opens the repository around opts.Dir and reads .itr.yaml. Settings:
// flags beat the environment, which beats the file; the caller has already
// merged flags and environment into opts.
func Open(opts Options) (*Workspace, error) {
	for _, f := range []struct{ field, v, from string }{
		{"agent", opts.Agent, "--agent or ITR_AGENT"}, {"model", opts.Model, "--model or ITR_MODEL"}, {"session", opts.Session, "ITR_SESSION"},
	} {
		if problem, fix := store.CheckWho(f.field, strings.TrimSpace(f.v)); problem != "" {
			return nil, &FieldError{Field: f.field, Problem: problem, Fix: fix + " (" + f.from + "); nothing was changed"}
		}
	}
	dir := opts.Dir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("find the current directory: %w", err)
		}
	}
	loc, err := gitstate.Locate(dir)
	if err != nil {
		return nil, err
	}
	var cfg store.Config
	if loc.Root != "" {
		if cfg, err = store.LoadConfig(loc.Root); err != nil {
			return nil, err
		}
	}
	root := opts.Root
	if root == "" {
		root = cfg.Root
	}
	if root == "" {
		root = store.DefaultRoot
	}
	// The engine is chosen once per command, from the repository, the
	// environment and the attributes that apply to the task root.
	repo, choice, err := gitstate.OpenAt(loc, gitstate.OpenOptions{Scope: root, RunHooks: cfg.RunHooks})
	if err != nil {
		return nil, err
	}
	st, err := store.New(repo, root, cfg, opts.Task, opts.Now)
	if err != nil {
		repo.Close()
		return nil, err
	}
	st.Engine = choice
	st.Agent = strings.TrimSpace(opts.Agent)
	st.Model, st.Session = strings.TrimSpace(opts.Model), strings.TrimSpace(opts.Session)
	return &Workspace{Store: st}, nil
}

// Close releases the repository.
func (w *Workspace) Close() error { return w.Repo.Close() }
