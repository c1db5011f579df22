package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/itr-dev/itr/internal/clip"
)

// quoteLittle is the server's last guard on what an error quotes: a tool
// call that fails, however (the SDK's check of the arguments against the
// schema, a path the operating system names, the workspace), comes back
// with every argument longer than clip.Max shortened in its text to its
// first 200 bytes, "…" and its size. The workspace already words its own
// refusals so; this catches the messages of code that does not know its
// input came from a request.
func quoteLittle(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if !ok || r == nil || !r.IsError {
			return res, err
		}
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || call.Params == nil {
			return res, err
		}
		var args any
		if json.Unmarshal(call.Params.Arguments, &args) != nil {
			return res, err
		}
		long := longStrings(args, nil)
		if len(long) == 0 {
			return res, err
		}
		for _, c := range r.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				t.Text = clip.Within(t.Text, long)
			}
		}
		return res, err
	}
}

// longStrings adds to out the strings of v (a decoded JSON value) longer
// than clip.Max.
func longStrings(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		if len(v) > clip.Max {
			out = append(out, v)
		}
	case []any:
		for _, e := range v {
			out = longStrings(e, out)
		}
	case map[string]any:
		for _, e := range v {
			out = longStrings(e, out)
		}
	}
	return out
}
