package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/cliopts"
	"github.com/itr-dev/itr/internal/clip"
	"github.com/itr-dev/itr/internal/version"
	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/reconcile"
)

// Exit codes; documented in `itr help exit-codes` and the README.
const (
	ExitOK       = 0
	ExitError    = 1
	ExitUsage    = 2
	ExitProblems = 3
)

// IO is what a run of itr reads and writes; tests inject buffers.
type IO struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	Getenv func(string) string
}

// globals are the flags every command has.
type globals struct {
	dir  string
	root string
	task string
	json bool
	io   IO
	raw  IO // the streams without escaping, for itr mcp
	// color is --color; paint colours and wraps what the commands print
	// for a person (colour.go).
	color string
	paint *painter
	// drawing keeps emit's text from being wrapped (itr graph's drawing).
	drawing bool
	// agent and model are --agent and --model: who the command acts for,
	// recorded in every entry it appends; session is the session id an
	// agent's hook passed (ITR_SESSION otherwise).
	agent, model, session string
	// only names the one command newRoot builds, "" for the whole tree
	// (fastroot.go).
	only string
	// stopSignals stops stopOnSignal's handling, for a command that
	// handles SIGINT and SIGTERM itself (itr serve).
	stopSignals func()
}

// usageError marks errors in how itr was called (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// problemsError marks a command that finished but found problems (exit 3).
type problemsError struct{ msg string }

func (e problemsError) Error() string { return e.msg }

// Main runs itr with args and returns the exit code.
func Main(args []string, stdio IO) int {
	if stdio.Getenv == nil {
		stdio.Getenv = func(string) string { return "" }
	}
	// Everything itr prints passes a safeWriter; itr mcp hands the raw
	// streams to the server, whose JSON-RPC it must not touch.
	raw := stdio
	pt := &painter{w: stdio.Out, width: terminalWidth(raw)}
	stdio.Out, stdio.Err = &safeWriter{w: pt, marks: true}, &safeWriter{w: stdio.Err}
	g := &globals{io: stdio, raw: raw, paint: pt, color: colorAuto}
	pt.on = func() bool { return colorOn(g.color, raw.Getenv, raw.Out) }
	defer pt.Flush()
	stop := stopOnSignal(stdio.Err)
	defer stop()
	g.stopSignals = stop
	g.only = onlyCommand(args)
	root := newRoot(g)
	root.SetArgs(args)
	root.SetIn(stdio.In)
	root.SetOut(stdio.Out)
	root.SetErr(stdio.Err)
	return exitCode(root.Execute(), stdio.Err, args)
}

// exitCode reports err on w, quoting at most clip.Max bytes of any of
// args, and returns the exit code its type gives: problemsError 3,
// usageError 2, any other error 1.
func exitCode(err error, w io.Writer, args []string) int {
	if err == nil {
		return ExitOK
	}
	var pe problemsError
	if errors.As(err, &pe) {
		if pe.msg != "" {
			fmt.Fprintln(w, "itr: "+clip.Within(pe.msg, args))
		}
		return ExitProblems
	}
	fmt.Fprintln(w, "itr: "+clip.Within(cliMessage(err), args))
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(w, "Run 'itr --help' for usage.")
		return ExitUsage
	}
	return ExitError
}

// markUsage makes every argument error of the command tree a usageError,
// so that exit code 2 comes from the error's type, never from its text (a
// wrapped EINVAL reads "invalid argument" too). Commands with subcommands
// and no argument rule of their own refuse an unknown subcommand, as
// cobra's default rule does, and print their help when called alone.
func markUsage(c *cobra.Command) {
	if c.HasSubCommands() && !c.Runnable() {
		// Cobra validates the arguments of runnable commands only: a
		// group runs its help when called alone.
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
	switch {
	case c.Args != nil:
		rule := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := rule(cmd, args); err != nil {
				return usageError{err}
			}
			return nil
		}
	case c.HasSubCommands():
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
			}
			return usageError{errors.New(msg)}
		}
	}
	for _, sub := range c.Commands() {
		markUsage(sub)
	}
}

func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "itr",
		Short: "A memory for long-running iterative work, kept in git",
		Long: `itr records every iteration of long-running work (by coding agents or people) as one git
commit, so any later session can resume from what git holds, and rebuilds its state from the
history whenever the two disagree.`,
		Version:       version.Get().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return checkColorMode(g.color) }
	pf := root.PersistentFlags()
	pf.StringVarP(&g.dir, "dir", "C", "", "run as if itr was started in `DIR`")
	pf.StringVar(&g.root, "root", "", "task root relative to the repository top (env ITR_ROOT; default .claude/iterative)")
	pf.StringVarP(&g.task, "task", "t", "", "the task's `SLUG` (env ITR_TASK; optional when one task is active)")
	pf.BoolVar(&g.json, "json", false, "print JSON instead of text")
	pf.StringVar(&g.color, "color", colorAuto, "colour the status fields and labels of what itr prints: auto (on a terminal, unless NO_COLOR is set), always or never")
	pf.StringVar(&g.agent, "agent", "", "the `NAME` of the agent this command acts for, in claims and in every entry it records (env ITR_AGENT; default user@host:worktree)")
	pf.StringVar(&g.model, "model", "", "the `NAME` of the model the agent runs on, recorded in every entry (env ITR_MODEL)")
	if add, ok := fastCommands[g.only]; ok {
		root.AddCommand(add(g)) // the one command Main was asked for (fastroot.go)
		return finishRoot(g, root)
	}
	root.AddCommand(
		newInitCmd(g), newPlanCmd(g), newNextCmd(g), newCheckpointCmd(g),
		newBlockCmd(g), newUnblockCmd(g), newReopenCmd(g), newPhaseCmd(g), newGuardrailCmd(g), newPauseCmd(g), newResumeCmd(g), newNoteCmd(g), newDecideCmd(g), newSummarizeCmd(g), newClaimCmd(g), newReleaseCmd(g), newSyncCmd(g),
		newStatusCmd(g), newLogCmd(g), newListCmd(g), newReconcileCmd(g), newVerifyCmd(g), newSetupCmd(g), newMergeDriverCmd(g), newHooksCmd(g), newPrimeCmd(g),
		newArchiveCmd(g), newRestoreCmd(g), newMCPCmd(g), newDoctorCmd(g), newGraphCmd(g), newReportCmd(g), newServeCmd(g), newVersionCmd(g),
	)
	root.AddCommand(newFailCmd(g), newSkipCmd(g), newRestartCmd(g))
	root.AddCommand(newDeliverCmd(g), newAbandonCmd(g))
	root.AddCommand(newApproveCmd(g), newRecheckCmd(g))
	root.AddCommand(newAgentHookCmd(g))
	root.AddCommand(exitCodesTopic())
	return finishRoot(g, root)
}

// finishRoot adds what every command tree has: completions, help and the
// usage errors.
func finishRoot(g *globals, root *cobra.Command) *cobra.Command {
	registerCompletions(g, root)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	markUsage(root)
	return root
}

// open opens the workspace with flags over environment over .itr.yaml.
func (g *globals) open() (*workspace.Workspace, error) {
	opts, err := cliopts.Resolve(workspace.Options{Dir: g.dir, Root: g.root, Task: g.task, Agent: g.agent, Model: g.model, Session: g.session}, g.io.Getenv)
	if err != nil {
		return nil, usageError{err}
	}
	ws, err := workspace.Open(opts)
	if err == nil {
		traceEngine(g.io.Getenv("ITR_ENGINE_TRACE"), ws)
	}
	return ws, err
}

// traceEngine appends the engine a command runs on, and its first reason,
// to the file ITR_ENGINE_TRACE names (for counting engines across the
// scenarios; nothing is written without it).
func traceEngine(file string, ws *workspace.Workspace) {
	if file == "" {
		return
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	line := string(ws.Engine.Engine)
	if len(ws.Engine.Reasons) > 0 {
		line += "\t" + ws.Engine.Reasons[0].Setting
	}
	fmt.Fprintln(f, line)
}

// withWorkspace opens the workspace, runs fn with it and closes it.
func (g *globals) withWorkspace(fn func(ws *workspace.Workspace) error) error {
	ws, err := g.open()
	if err != nil {
		return err
	}
	defer ws.Close()
	return fn(ws)
}

// withTask runs fn on the opened workspace and the selected task.
func (g *globals) withTask(fn func(ws *workspace.Workspace, slug string) error) error {
	return g.withWorkspace(func(ws *workspace.Workspace) error {
		slug, err := ws.Select("")
		if err != nil {
			return err
		}
		return fn(ws, slug)
	})
}

// emit prints v as JSON with --json, else the text text() returns.
func (g *globals) emit(v any, text func(w io.Writer)) error {
	if g.json {
		enc := json.NewEncoder(g.io.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	}
	if g.paint != nil && !g.drawing {
		g.paint.wrap = true
		defer func() { _ = g.paint.Flush(); g.paint.wrap = false }()
	}
	text(g.io.Out)
	return nil
}

func exitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "What itr's exit codes mean",
		Long: `itr exits with:

  0  success
  1  the command failed; nothing was changed (the message says why and what to do)
  2  usage error: an unknown command or flag, or a missing argument
  3  the command finished but found problems (itr verify, itr reconcile --check, itr sync
     stopped on conflicts in your files,
     itr setup AGENT --check, a checkpoint --verify whose check did not pass)
  130, 143  stopped by SIGINT (Ctrl-C) or SIGTERM, between commits`,
	}
}

// cliMessage words an error for the command line: a field of a request
// (of a FieldError or a refusal of the rule book) is named as its flag
// (--did, --verified), the rest as the error says.
func cliMessage(err error) string {
	var fe *workspace.FieldError
	if errors.As(err, &fe) && err == error(fe) { //nolint:errorlint // only the error itself: a wrapped one keeps its context's wording
		return fe.Worded("--" + fe.Field)
	}
	var r *reconcile.Refusal
	if errors.As(err, &r) && err == error(r) { //nolint:errorlint // only the error itself, as above
		return r.Worded(func(field string) string { return "--" + field })
	}
	return err.Error()
}
