package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// drain sits between the transport and stdin/stdout and remembers the
// requests read that have no response yet. The SDK cancels every request in
// flight when its input ends; drain holds the end of the input back until
// they are all answered (or ctx ends), so nothing asked is lost.
//
// It also keeps the SDK from ever seeing a line that would end the session
// (the SDK stops serving at the first line it cannot take): a line that is
// not JSON gets a parse error (-32700), a batch under a protocol that has
// none (2025-06-18 and later) and a message that is neither a request, a
// notification nor a response get an invalid-request error (-32600), and a
// request before initialize gets -32600 saying so, and a line longer than
// the SDK takes (maxLine) gets -32600 with its size and the limit (and its
// id, when one could be read from it); the session goes on. A long line is
// read through without being kept (see lineReader).
type drain struct {
	ctx     context.Context
	in      *lineReader
	out     io.Writer
	buf     []byte // the rest of the line being handed over
	mu      sync.Mutex
	pending map[string]bool // ids of requests without a response
	idle    chan struct{}   // closed and replaced whenever pending empties
	eof     error
	wmu     sync.Mutex // one message at a time on out
	// protocol is the version the client asked for in initialize; ""
	// until then.
	protocol string
}

func newDrain(ctx context.Context, in io.Reader, out io.Writer) *drain {
	return &drain{ctx: ctx, in: &lineReader{r: bufio.NewReaderSize(in, 64<<10), max: maxLine}, out: out, pending: map[string]bool{}, idle: make(chan struct{})}
}

// message is what drain reads of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"params"`
}

// JSON-RPC error codes drain answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// firstBatchless is the first MCP protocol version without JSON-RPC
// batches.
const firstBatchless = "2025-06-18"

// refuse writes an error response for id (null when nil).
func (d *drain) refuse(id json.RawMessage, code int, msg string) error {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	if err != nil {
		return err
	}
	d.wmu.Lock()
	defer d.wmu.Unlock()
	_, err = d.out.Write(append(data, '\n'))
	return err
}

// screen decides what becomes of one line of input: handed to the SDK
// (true), or answered here and dropped (false).
func (d *drain) screen(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return false
	}
	if !json.Valid(t) {
		var v any
		err := json.Unmarshal(t, &v)
		_ = d.refuse(nil, codeParseError, fmt.Sprintf("parse error: %v; each line must hold one JSON-RPC message", err))
		return false
	}
	switch t[0] {
	case '[':
		d.mu.Lock()
		proto := d.protocol
		d.mu.Unlock()
		if proto == "" || proto >= firstBatchless {
			v := proto
			if v == "" {
				v = "this session (not initialized)"
			}
			_ = d.refuse(nil, codeInvalidRequest, "invalid request: JSON-RPC batches are not part of MCP protocol "+v+"; send one message per line")
			return false
		}
		return true
	case '{':
	default:
		_ = d.refuse(nil, codeInvalidRequest, "invalid request: a JSON-RPC message is an object")
		return false
	}
	var m message
	if err := json.Unmarshal(t, &m); err != nil {
		_ = d.refuse(nil, codeInvalidRequest, fmt.Sprintf("invalid request: %v", err))
		return false
	}
	isResponse := len(m.Result) > 0 || len(m.Error) > 0
	if m.Method == "" && !isResponse {
		_ = d.refuse(m.ID, codeInvalidRequest, "invalid request: neither a method nor a result")
		return false
	}
	d.mu.Lock()
	if m.Method == "initialize" {
		d.protocol = m.Params.ProtocolVersion
	}
	initialized := d.protocol != ""
	d.mu.Unlock()
	if initialized || m.Method == "" || m.Method == "initialize" || m.Method == "ping" {
		return true
	}
	if idKey(m.ID) != "" {
		_ = d.refuse(m.ID, codeInvalidRequest, "invalid request: the session is not initialized; send initialize first")
	} // a notification before initialize: nothing to say
	return false
}

// messages decodes a line holding one message or a batch of them; what does
// not decode is left to the SDK to report.
func messages(line []byte) []message {
	line = bytes.TrimSpace(line)
	var batch []message
	if len(line) > 0 && line[0] == '[' {
		_ = json.Unmarshal(line, &batch)
		return batch
	}
	var m message
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return []message{m}
}

// idKey names a request id however its JSON is spelled (1, 1.0, "1" is
// another id); "" for none.
func idKey(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil || v == nil {
		return ""
	}
	return fmt.Sprintf("%T:%v", v, v)
}

// Read hands the input over line by line, noting each request's id, and
// returns the input's end only once no request is pending.
func (d *drain) Read(p []byte) (int, error) {
	for len(d.buf) == 0 && d.eof == nil {
		line, long, err := d.in.next()
		d.eof = err
		if long != nil {
			_ = d.refuse(long.id, codeInvalidRequest, fmt.Sprintf("invalid request: the line holds %d bytes, over the limit of %d bytes for one message; it was not read, and the session goes on", long.size, d.in.max))
			continue
		}
		if !d.screen(line) {
			continue
		}
		d.mu.Lock()
		for _, m := range messages(line) {
			if id := idKey(m.ID); m.Method != "" && id != "" {
				d.pending[id] = true
			}
		}
		d.mu.Unlock()
		d.buf = line
	}
	if len(d.buf) > 0 {
		n := copy(p, d.buf)
		d.buf = d.buf[n:]
		return n, nil
	}
	for {
		d.mu.Lock()
		n, idle := len(d.pending), d.idle
		d.mu.Unlock()
		if n == 0 {
			return 0, d.eof
		}
		select {
		case <-idle:
		case <-d.ctx.Done():
			return 0, d.eof
		}
	}
}

// Close implements io.Closer; stdin stays open.
func (d *drain) Close() error { return nil }

// writer returns the output side, which strikes off each response's id.
func (d *drain) writer() io.WriteCloser { return drainWriter{d} }

type drainWriter struct{ d *drain }

// Write writes one message (the SDK writes each in one call) and strikes
// off the requests it answers.
func (w drainWriter) Write(p []byte) (int, error) {
	w.d.wmu.Lock()
	n, err := w.d.out.Write(p)
	w.d.wmu.Unlock()
	w.d.mu.Lock()
	defer w.d.mu.Unlock()
	for _, m := range messages(p) {
		if m.Method == "" {
			delete(w.d.pending, idKey(m.ID))
		}
	}
	if len(w.d.pending) == 0 {
		close(w.d.idle)
		w.d.idle = make(chan struct{})
	}
	return n, err
}

// Close implements io.Closer; stdout stays open.
func (drainWriter) Close() error { return nil }
