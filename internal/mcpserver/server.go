// Package mcpserver serves itr to agents that have no shell, as a Model
// Context Protocol server (the official Go SDK) with eight tools: resume,
// start, checkpoint, finish, block (also to fail or skip a unit), reopen, decide and summarize. Each tool runs the same workspace
// code as the CLI, with typed inputs and outputs whose JSON schemas the SDK
// infers from the Go types below.
//
// Every tool call opens the workspace afresh and closes it before
// answering, so the server holds no lock and no state between calls and sees
// whatever the CLI (or git) did in between. An error of the workspace (an
// unknown unit, an illegal transition, a missing field) comes back as a tool
// result with IsError set and the message verbatim, never as a protocol
// error, and it changes nothing.
//
// The tool definitions are kept small on purpose: a client pays for them in
// tokens in every session (see TestToolsListSize for the budget).
package mcpserver

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/itr-dev/itr/internal/workspace"
)

// Opener opens the workspace a tool call works on; the caller closes it.
// cmd/itr builds it from the global flags (-C, --root, -t/--task).
type Opener func() (*workspace.Workspace, error)

// instructions are sent once, in the initialize result.
const instructions = "itr keeps this project's task memory in git. Call resume at the start of every session and after a compaction; record each iteration with checkpoint. Every tool's task is the task's slug, by default the active task."

// Tool descriptions: short, since every session pays for them.
const (
	resumeDesc = "Resume the itr task: goal, unit, last entry, failed checks, next action, guardrails. Call it first."

	startDesc = "Claim a unit that can start now, held by no agent: its status, dependencies, guardrails."

	checkpointDesc = "Record one iteration of a unit as one commit. done=true declares it done or confirms it (prefer finish); items: 1-12, 4=skipped; values: [7:score=4]; metrics: [words=812]"

	finishDesc = "One step toward done with evidence (passed=false sends it back); done needs a passing verify or verified_by."

	blockDesc = "Set a unit aside (one commit): blocked (a person unblocks it), failed (until reopen) or skipped."

	reopenDesc = "Send a done, failed or skipped unit back to work (one commit)."

	decideDesc = "Record a settled choice in decisions.md; the same title again replaces it."

	summarizeDesc = "Append a Summary entry to progress.md; outcome (delivered, abandoned, failed) ends the task, did saying what is missing or why."
)

// New returns the MCP server of itr: its tools, each calling the
// workspace that open returns. version is itr's own, reported to clients.
func New(open Opener, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "itr", Version: version}, &mcp.ServerOptions{
		Instructions: instructions,
		Capabilities: &mcp.ServerCapabilities{}, // tools only; no logging
	})
	s.AddReceivingMiddleware(quoteLittle)
	h := &handlers{open: open}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(s, &mcp.Tool{Name: "resume", Description: resumeDesc, Annotations: readOnly, OutputSchema: lean[ResumeOutput]()}, h.resume)
	mcp.AddTool(s, &mcp.Tool{Name: "start", Description: startDesc, OutputSchema: lean[UnitInfo]()}, h.start)
	mcp.AddTool(s, &mcp.Tool{Name: "checkpoint", Description: checkpointDesc, InputSchema: input[CheckpointInput](), OutputSchema: lean[Step]()}, h.checkpoint)
	mcp.AddTool(s, &mcp.Tool{Name: "finish", Description: finishDesc, InputSchema: input[FinishInput](), OutputSchema: lean[Step]()}, h.finish)
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: blockDesc, OutputSchema: lean[Step]()}, h.block)
	mcp.AddTool(s, &mcp.Tool{Name: "reopen", Description: reopenDesc, OutputSchema: lean[Reopened]()}, h.reopen)
	mcp.AddTool(s, &mcp.Tool{Name: "decide", Description: decideDesc, OutputSchema: lean[Recorded]()}, h.decide)
	mcp.AddTool(s, &mcp.Tool{Name: "summarize", Description: summarizeDesc, OutputSchema: lean[Recorded]()}, h.summarize)
	return s
}

// lean is the output schema the SDK would infer for T without
// "additionalProperties" and "required", and with a list of strings as
// just "array" (not ["null", "array"] with its items spelled out): the
// server writes these values and a client gains nothing from the
// strictness, while every session pays for its tokens. Every list in an
// output is omitempty, so a nil one is left out rather than null (the SDK
// checks each result against this schema).
func lean[T any]() *jsonschema.Schema {
	s := inferred[T]()
	s.AdditionalProperties, s.Required = nil, nil
	stringLists(s)
	return s
}

// input is the input schema the SDK would infer for T, strict as it is
// (required properties, no others), with each list of strings as
// "array" of "string" (no null): a null list means nothing an absent one
// does not.
func input[T any]() *jsonschema.Schema {
	s := inferred[T]()
	stringLists(s) // a list of strings says so in its Go type: decoding refuses anything else
	for _, p := range s.Properties {
		if slices.Equal(p.Types, []string{"null", "array"}) {
			p.Types, p.Type = nil, "array"
		}
	}
	return s
}

// inferred is the schema the SDK infers for T; T is one of this package's
// types, so a failure is a bug here.
func inferred[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err))
	}
	return s
}

// stringLists writes each nullable list of strings among s's properties
// as just "array".
func stringLists(s *jsonschema.Schema) {
	for _, p := range s.Properties {
		if slices.Equal(p.Types, []string{"null", "array"}) && p.Items != nil && p.Items.Type == "string" {
			p.Types, p.Type, p.Items = nil, "array", nil
		}
	}
}

// Serve runs s on newline-delimited JSON-RPC over in and out (stdin and
// stdout for `itr mcp`) until the client closes in or ctx ends. When in
// ends, the requests read so far are answered first, so a client may write
// its requests and close at once (`itr mcp < requests.jsonl`).
func Serve(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d := newDrain(ctx, in, out)
	// drain hands over no line longer than maxLine, the SDK's own limit:
	// the SDK's count of a frame's bytes may take in the newline and what
	// its decoder read ahead, so its cap is lifted rather than met twice.
	return s.Run(ctx, &mcp.IOTransport{Reader: d, Writer: d.writer(), MaxLineLength: -1})
}
