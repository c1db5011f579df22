// Package cdppipe drives a headless Chromium over the Chrome DevTools
// Protocol on the pipe --remote-debugging-pipe opens (file descriptors 3
// and 4, messages ended by a NUL byte): no port, no WebSocket, no
// dependency. It knows the few commands the browser tests of itr serve
// and its screenshots need: open a page at a size, evaluate an
// expression, take a screenshot, and the URLs the page requested and the
// problems it logged.
package cdppipe

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"
)

// message is one message of the protocol: an answer (ID) or an event
// (Method).
type message struct {
	ID        int                       `json:"id,omitempty"`
	Method    string                    `json:"method,omitempty"`
	Params    json.RawMessage           `json:"params,omitempty"`
	Result    json.RawMessage           `json:"result,omitempty"`
	Error     *struct{ Message string } `json:"error,omitempty"`
	SessionID string                    `json:"sessionId,omitempty"`
}

// Browser is a running headless Chromium.
type Browser struct {
	cmd *exec.Cmd
	w   *os.File

	mu      sync.Mutex
	next    int
	waiting map[int]chan message
	pages   map[string]*Page
	done    chan struct{}
	stderr  bytes.Buffer
}

// Start starts chromium headless with a fresh profile in userDir, no name
// resolution but 127.0.0.1 (every other host is NOTFOUND: nothing can be
// fetched from elsewhere) and the DevTools pipe.
func Start(chromium, userDir string) (*Browser, error) {
	if runtime.GOOS == "windows" {
		return nil, errors.New("the DevTools pipe needs file descriptors 3 and 4, which Windows does not pass")
	}
	toChrome, ours, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	theirs, fromChrome, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	args := []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		`--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1`, "--remote-debugging-pipe",
		"--user-data-dir=" + userDir, "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-background-networking", "--disable-sync",
		"--hide-scrollbars", "--force-device-scale-factor=1", "about:blank"}
	b := &Browser{cmd: exec.Command(chromium, args...), w: ours, waiting: map[int]chan message{}, pages: map[string]*Page{}, done: make(chan struct{})}
	b.cmd.ExtraFiles = []*os.File{toChrome, fromChrome}
	b.cmd.Stderr = &lockedBuffer{b: &b.stderr, mu: &b.mu}
	if err := b.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", chromium, err)
	}
	toChrome.Close()
	fromChrome.Close()
	go b.read(theirs)
	return b, nil
}

type lockedBuffer struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// read dispatches the browser's messages until the pipe closes.
func (b *Browser) read(r *os.File) {
	defer close(b.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m message
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch := b.waiting[m.ID]; ch != nil {
				delete(b.waiting, m.ID)
				ch <- m
			}
		} else if p := b.pages[m.SessionID]; p != nil {
			p.event(m)
		}
		b.mu.Unlock()
	}
}

// call sends one command (to a page's session, or to the browser when
// session is "") and decodes its result into out (when not nil).
func (b *Browser) call(session, method string, params, out any) error {
	ch := make(chan message, 1)
	b.mu.Lock()
	b.next++
	id := b.next
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if params == nil {
		msg["params"] = map[string]any{}
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.w.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-b.done:
		return fmt.Errorf("%s: the browser exited; its log:\n%s", method, b.Log())
	case <-time.After(60 * time.Second):
		return fmt.Errorf("%s: no answer in 60s", method)
	}
}

// Log is what the browser wrote on stderr.
func (b *Browser) Log() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stderr.String()
}

// Close asks the browser to quit, and kills it if it does not.
func (b *Browser) Close() error {
	_ = b.call("", "Browser.close", nil, nil)
	b.w.Close()
	waited := make(chan error, 1)
	go func() { waited <- b.cmd.Wait() }()
	select {
	case err := <-waited:
		return ignoreExit(err)
	case <-time.After(10 * time.Second):
		_ = b.cmd.Process.Kill()
		return ignoreExit(<-waited)
	}
}

// ignoreExit drops the exit status of a browser told to close or killed.
func ignoreExit(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil
	}
	return err
}

// Page is one tab.
type Page struct {
	b       *Browser
	session string
	// under b.mu:
	requests []string
	problems []string
}

// Open opens a tab of width×height CSS pixels at url and waits until it
// has loaded.
func (b *Browser) Open(url string, width, height int) (*Page, error) {
	var target struct{ TargetID string }
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var att struct{ SessionID string }
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: att.SessionID}
	b.mu.Lock()
	b.pages[p.session] = p
	b.mu.Unlock()
	for _, c := range []struct {
		method string
		params any
	}{
		{"Network.enable", nil}, {"Runtime.enable", nil}, {"Log.enable", nil}, {"Page.enable", nil},
		{"Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}},
		{"Page.navigate", map[string]any{"url": url}},
	} {
		if err := b.call(p.session, c.method, c.params, nil); err != nil {
			return nil, err
		}
	}
	return p, p.WaitFor(`document.readyState === "complete"`, 30*time.Second)
}

// event records what a page requested and the problems it logged.
func (p *Page) event(m message) {
	switch m.Method {
	case "Network.requestWillBeSent":
		var e struct{ Request struct{ URL string } }
		if json.Unmarshal(m.Params, &e) == nil {
			p.requests = append(p.requests, e.Request.URL)
		}
	case "Network.loadingFailed":
		var e struct {
			ErrorText     string
			BlockedReason string
			Canceled      bool
		}
		if json.Unmarshal(m.Params, &e) == nil && !e.Canceled {
			p.problems = append(p.problems, "load failed: "+e.ErrorText+" "+e.BlockedReason)
		}
	case "Runtime.exceptionThrown":
		p.problems = append(p.problems, "exception: "+string(m.Params))
	case "Runtime.consoleAPICalled":
		p.problems = append(p.problems, "console: "+string(m.Params))
	case "Log.entryAdded":
		p.problems = append(p.problems, "log: "+string(m.Params))
	}
}

// Requests are the URLs the page requested so far, in order.
func (p *Page) Requests() []string {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Problems are the console messages, exceptions, log entries (a load the
// Content-Security-Policy blocked, a failed request) and failed loads of
// the page so far.
func (p *Page) Problems() []string {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// Eval evaluates a JavaScript expression in the page (awaiting a
// promise) and decodes its value into out.
func (p *Page) Eval(expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct{ Text string } `json:"exceptionDetails"`
	}
	if err := p.b.call(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("evaluate %q: %s", expr, r.ExceptionDetails.Text)
	}
	if out == nil || len(r.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// WaitFor polls a boolean expression every 50 ms until it is true.
func (p *Page) WaitFor(expr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		err := p.Eval(expr, &ok)
		if err == nil && ok {
			return nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = errors.New("still false")
			}
			return fmt.Errorf("wait for %s: %w after %s", expr, err, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Screenshot is a PNG of the whole page at the tab's width.
func (p *Page) Screenshot() ([]byte, error) {
	var m struct {
		CSSContentSize struct{ Width, Height float64 } `json:"cssContentSize"`
	}
	if err := p.b.call(p.session, "Page.getLayoutMetrics", nil, &m); err != nil {
		return nil, err
	}
	var shot struct{ Data string }
	clip := map[string]any{"x": 0, "y": 0, "width": m.CSSContentSize.Width, "height": m.CSSContentSize.Height, "scale": 1}
	if err := p.b.call(p.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true, "clip": clip}, &shot); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(shot.Data)
}
