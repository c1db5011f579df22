package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// FuzzScreen: whatever a line holds, screening it never panics, and what
// it answers by itself is one JSON-RPC error per line, with a code.
func FuzzScreen(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`this is not json`, `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, `42`, `{"jsonrpc":"2.0","id":9}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/list"}`, `{"id":{"a":1},"method":"x"}`, ``, `[]`, `{"result":1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var out bytes.Buffer
		d := newDrain(context.Background(), bytes.NewReader(nil), &out)
		pass := d.screen(line)
		for _, l := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte{'\n'}) {
			if len(l) == 0 {
				continue
			}
			if pass {
				t.Fatalf("the line was both answered and passed on: %q", line)
			}
			var resp struct {
				JSONRPC string `json:"jsonrpc"`
				Error   struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(l, &resp); err != nil || resp.JSONRPC != "2.0" || resp.Error.Code == 0 {
				t.Fatalf("answer %q to %q is not a JSON-RPC error: %v", l, line, err)
			}
		}
	})
}
