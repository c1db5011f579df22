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
type drain struct {
	ctx     context.Context
	in      *bufio.Reader
	out     io.Writer
	buf     []byte // the rest of the line being handed over
	mu      sync.Mutex
	pending map[string]bool // ids of requests without a response
	idle    chan struct{}   // closed and replaced whenever pending empties
	eof     error
}

func newDrain(ctx context.Context, in io.Reader, out io.Writer) *drain {
	return &drain{ctx: ctx, in: bufio.NewReader(in), out: out, pending: map[string]bool{}, idle: make(chan struct{})}
}

// message is what drain reads of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
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
	if len(d.buf) == 0 && d.eof == nil {
		line, err := d.in.ReadBytes('\n')
		d.mu.Lock()
		for _, m := range messages(line) {
			if id := idKey(m.ID); m.Method != "" && id != "" {
				d.pending[id] = true
			}
		}
		d.mu.Unlock()
		d.buf, d.eof = line, err
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
	n, err := w.d.out.Write(p)
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
