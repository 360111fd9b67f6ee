package llmtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SlowUpstream is a backend that reads request bodies slowly, chunk bytes
// per interval, and answers each POST with a small JSON message once it
// has read the whole body ("read N bytes"; a chat-completions answer to
// …/chat/completions, for transport openai). It keeps nothing of the bodies but their sizes:
// it plays an upstream that a flood of large uploads outpaces, so that a
// gateway in front must hold what the clients sent meanwhile. Its sockets
// take a small receive buffer, so that the kernel does not read ahead on
// its behalf. It is safe for concurrent use.
type SlowUpstream struct {
	chunk    int
	interval time.Duration
	srv      *http.Server
	addr     string
	done     chan struct{}

	mu       sync.Mutex
	requests int   // bodies being read or read
	complete int   // bodies read to their end
	bytes    int64 // body bytes read
}

// slowReceiveBuffer is the receive buffer of a SlowUpstream's sockets.
const slowReceiveBuffer = 64 << 10

// NewSlowUpstream starts a slow backend on 127.0.0.1 at a random port.
// Close it when done.
func NewSlowUpstream(chunk int, interval time.Duration) (*SlowUpstream, error) {
	lc := net.ListenConfig{Control: smallReceiveBuffer(slowReceiveBuffer)}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("llmtest: listening on 127.0.0.1: %w", err)
	}
	u := &SlowUpstream{chunk: chunk, interval: interval, addr: ln.Addr().String(), done: make(chan struct{})}
	u.srv = &http.Server{Handler: http.HandlerFunc(u.serveHTTP), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(u.done)
		if err := u.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			panic("llmtest: slow upstream stopped serving: " + err.Error())
		}
	}()
	return u, nil
}

// HostPort returns the listening address, "127.0.0.1:PORT".
func (u *SlowUpstream) HostPort() string { return u.addr }

// Close stops the server, cutting the requests in flight.
func (u *SlowUpstream) Close() {
	u.srv.Close()
	<-u.done
}

// Received returns how many requests came, how many of their bodies were
// read to the end, and how many body bytes were read in all.
func (u *SlowUpstream) Received() (requests, complete int, bytes int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.requests, u.complete, u.bytes
}

func (u *SlowUpstream) serveHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.requests++
	u.mu.Unlock()
	buf := make([]byte, u.chunk)
	tick := time.NewTicker(u.interval)
	defer tick.Stop()
	var n int64
	for {
		m, err := io.ReadFull(r.Body, buf)
		n += int64(m)
		u.mu.Lock()
		u.bytes += int64(m)
		u.mu.Unlock()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return // the gateway gave up on the request
		}
		select {
		case <-tick.C:
		case <-r.Context().Done():
			return
		}
	}
	u.mu.Lock()
	u.complete++
	u.mu.Unlock()
	reply := `{"id":"msg_slow","type":"message","role":"assistant","model":"slow","content":[{"type":"text","text":"read ` +
		strconv.FormatInt(n, 10) + ` bytes"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`
	if strings.HasSuffix(r.URL.Path, "/chat/completions") {
		// Behind transport openai: the answer of a chat-completions server.
		reply = `{"id":"chat_slow","object":"chat.completion","model":"slow","choices":[{"index":0,"message":{"role":"assistant","content":"read ` +
			strconv.FormatInt(n, 10) + ` bytes"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(reply)))
	io.WriteString(w, reply)
}
