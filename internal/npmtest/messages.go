package npmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Messages is a local stand-in for Anthropic's Messages API, for the real
// clients the tests drive (Claude Code, Cline): it keeps every request, as
// "METHOD PATH\nBODY", and answers each POST to a path ending in /messages
// with Reply, streamed as server-sent events when the request asks for a
// stream. A client's base URL may end in /v1 or not: both paths answer.
type Messages struct {
	Reply string

	mu     sync.Mutex
	bodies []string
}

// ServeHTTP records the request and answers it.
func (s *Messages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	s.mu.Lock()
	s.bodies = append(s.bodies, r.Method+" "+r.URL.Path+"\n"+string(body))
	s.mu.Unlock()
	switch {
	case strings.HasSuffix(r.URL.Path, "/count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"input_tokens": 100}`)
		return
	case r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/messages"):
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	text, _ := json.Marshal(s.Reply)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"msg_standin","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":%s}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}`, req.Model, text)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	events := []struct{ name, data string }{
		{"message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_standin","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}`, req.Model)},
		{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":` + string(text) + `}}`},
		{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}`},
		{"message_stop", `{"type":"message_stop"}`},
	}
	for _, e := range events {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, e.data)
	}
}

// Requests returns every request received so far, as "METHOD PATH\nBODY".
func (s *Messages) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// StandInReply is what the stand-in model of the agents' tests says.
const StandInReply = "Stand-in model: nothing to do."

// Program is the program name that npm installed from pkg into the folder
// env names (see Dir), or the test skips, saying why.
func Program(t testing.TB, env, pkg, name string) string {
	t.Helper()
	dir, _ := Dir(t, env, pkg)
	bin := filepath.Join(dir, "node_modules", ".bin", name)
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no %s program in %s: %v", name, dir, err)
	}
	return bin
}

// Run runs bin with args in dir, with env added to this process's, for
// at most timeout, and returns its output, stdout and stderr together.
func Run(t testing.TB, timeout time.Duration, bin, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
