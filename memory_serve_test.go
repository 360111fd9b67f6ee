package llmthinking

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	zapobserver "go.uber.org/zap/zaptest/observer"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/gctest"
)

// A JSON answer with one signed thinking block.
const jsonReply = `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[` +
	`{"type":"thinking","thinking":"plan","signature":"c2ln"},{"type":"text","text":"hi"}],"stop_reason":"end_turn"}`

// The sizes of buffers package budget caches.
const (
	minBuffer       = 4 << 10
	maxCachedBuffer = 4 << 20
)

// tightHandler returns a handler whose budget has room for nothing but a
// small request: a hog holds all the rest. It returns the budget, and the
// hog's buffers, to let go of at will.
func tightHandler(t *testing.T, room int) (*Handler, *budget.Budget, func()) {
	h := newTestHandler(t, "anthropic")
	h.budget = budget.New(budget.MinLimit)
	h.MemoryWait = caddy.Duration(20 * time.Millisecond)
	hog := h.budget.Ticket(context.Background(), 0)
	hog.Finishing() // which may fill the whole budget
	var held [][]byte
	for size := budget.MinLimit / 2; size >= room; size /= 2 {
		buf, err := hog.Buffer(size, size, false)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, buf)
	}
	return h, h.budget, func() {
		for _, buf := range held {
			hog.Put(buf)
		}
		held = nil
	}
}

// squeeze takes all the room left in b but leave bytes, and returns a
// function that gives it back.
func squeeze(b *budget.Budget, leave int) func() {
	hog := b.Ticket(context.Background(), 0)
	hog.Finishing() // which may fill the whole budget
	var held [][]byte
	for size := maxCachedBuffer; size >= minBuffer; size /= 2 {
		for b.Stats().InUse+int64(size)+int64(leave) <= b.Stats().Budget {
			buf, err := hog.Buffer(size, size, false)
			if err != nil {
				break
			}
			held = append(held, buf)
		}
	}
	return func() {
		for _, buf := range held {
			hog.Put(buf)
		}
	}
}

// jsonUpstream answers body, leaving only leave bytes of room in b while it
// does when b is not nil.
func jsonUpstream(body []byte, encoding string) caddyhttp.HandlerFunc {
	return squeezedUpstream(body, encoding, nil, 0)
}

func squeezedUpstream(body []byte, encoding string, b *budget.Budget, leave int) caddyhttp.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		if b != nil {
			defer squeeze(b, leave)()
		}
		w.Header().Set("Content-Type", "application/json")
		if encoding != "" {
			w.Header().Set("Content-Encoding", encoding)
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, err := w.Write(body)
		return err
	}
}

// TestRequestWithoutRoomGetsA529: nothing of it goes upstream, the client
// gets the API's overloaded_error with Retry-After, and it is logged and
// counted.
func TestRequestWithoutRoomGetsA529(t *testing.T) {
	h, b, free := tightHandler(t, minBuffer)
	defer free()
	core, logs := zapobserver.New(zap.InfoLevel)
	h.logger = zap.New(core)
	hog := b.Ticket(context.Background(), 0)
	last, err := hog.Buffer(minBuffer, minBuffer, false) // the last room
	if err != nil {
		t.Fatal(err)
	}
	defer hog.Put(last)
	upstream := false
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error { upstream = true; return nil })
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, request(`{"messages":[{"role":"user","content":"hi"}]}`), next); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded: the gateway's memory for requests is in use (llm_thinking memory_budget); retry later."}}`
	if w.Code != statusOverloaded || w.Body.String() != want || w.Header().Get("Retry-After") != "1" || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("got %d %v %q", w.Code, w.Header(), w.Body.String())
	}
	// The body was read to its end before the answer: the connection can
	// serve the client's retry.
	if w.Header().Get("Connection") != "" {
		t.Fatalf("Connection: %q after a body read whole", w.Header().Get("Connection"))
	}
	if upstream {
		t.Fatal("the request went upstream")
	}
	if s := b.Stats(); s.Overloaded != 1 || s.Waits != 1 || s.InUse != budget.MinLimit {
		t.Fatalf("stats %+v", s)
	}
	if got := logs.FilterMessage(overloadedLogEvent).Len(); got != 1 {
		t.Fatalf("%d %s events: %v", got, overloadedLogEvent, logs.All())
	}
}

// TestAnswerWithoutRoomPassesUnread: a JSON answer the budget has no room
// for reaches the client whole and as it came, unread, and is counted.
func TestAnswerWithoutRoomPassesUnread(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, jsonReply)
	zw.Close()
	for _, c := range []struct {
		name, encoding string
		reply          []byte
		room           int // what the upstream leaves as it answers
	}{
		{"identity", "", []byte(jsonReply), 0},
		{"gzip, no room to decompress", "gzip", gz.Bytes(), minBuffer},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, b, free := tightHandler(t, 2*minBuffer)
			defer free()
			w := httptest.NewRecorder()
			if err := h.ServeHTTP(w, request(`{"messages":[{"role":"user","content":"hi"}]}`), squeezedUpstream(c.reply, c.encoding, b, c.room)); err != nil {
				t.Fatal(err)
			}
			if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), c.reply) {
				t.Fatalf("client got %d %q", w.Code, w.Body.String())
			}
			if originOf(h, "plan", "c2ln") != "" {
				t.Fatal("an answer without room was read")
			}
			free()
			if s := b.Stats(); s.Unobserved != 1 || s.InUse != 0 {
				t.Fatalf("stats %+v", s)
			}
		})
	}
}

// TestAnswerToRewriteWithoutRoomPassesAsItCame: with response_model
// requested, a JSON answer the budget has no room to hold, to hold whole or
// to rewrite passes as the upstream sent it, with its own length if any.
func TestAnswerToRewriteWithoutRoomPassesAsItCame(t *testing.T) {
	long := []byte(`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"` +
		strings.Repeat("x", 40<<10) + `"}]}`)
	for _, c := range []struct {
		name     string
		reply    []byte
		room     int
		chunked  bool
		observed bool
	}{
		{"no room to hold it", []byte(jsonReply), 0, false, false},
		{"no room to rewrite it", []byte(jsonReply), minBuffer, false, true},
		{"no room to hold all of it", long, minBuffer, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, b, free := tightHandler(t, 2*minBuffer)
			defer free()
			h.ResponseModel = responseModelRequested
			next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				io.Copy(io.Discard, r.Body)
				r.Body.Close()
				defer squeeze(b, c.room)()
				w.Header().Set("Content-Type", "application/json")
				if !c.chunked {
					w.Header().Set("Content-Length", strconv.Itoa(len(c.reply)))
				}
				half := len(c.reply) / 2
				if _, err := w.Write(c.reply[:half]); err != nil {
					return err
				}
				_, err := w.Write(c.reply[half:])
				return err
			})
			w := httptest.NewRecorder()
			if err := h.ServeHTTP(w, request(`{"model":"asked","messages":[{"role":"user","content":"hi"}]}`), next); err != nil {
				t.Fatal(err)
			}
			wantLength := strconv.Itoa(len(c.reply))
			if c.chunked {
				wantLength = ""
			}
			if !bytes.Equal(w.Body.Bytes(), c.reply) || w.Header().Get("Content-Length") != wantLength {
				t.Fatalf("client got %v, %d bytes", w.Header(), w.Body.Len())
			}
			if observed := originOf(h, "plan", "c2ln") != ""; observed != c.observed {
				t.Fatalf("answer read: %v, want %v", observed, c.observed)
			}
			free()
			if s := b.Stats(); s.Unobserved != 1 || s.InUse != 0 {
				t.Fatalf("stats %+v", s)
			}
		})
	}
}

// TestServeHTTPGivesEveryByteBack: requests of every kind, answered and
// replayed, leave nothing in use: at once, but for the request body of an
// upstream that never closed it, which comes back once Go collects its
// reader.
func TestServeHTTPGivesEveryByteBack(t *testing.T) {
	h := newTestHandler(t, "anthropic")
	h.budget = budget.New(64 << 20)
	h.ResponseModel = responseModelRequested
	refused := false
	refusing := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		if !refused {
			refused = true
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, err := io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: Invalid `+"`signature`"+` in `+"`thinking`"+` block"}}`)
			return err
		}
		return jsonUpstream([]byte(jsonReply), "")(w, r)
	})
	history := `{"model":"asked","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"old","signature":"b2xk"},{"type":"text","text":"x"}]},{"role":"user","content":"go on"}]}`
	serve := func(next caddyhttp.Handler) {
		t.Helper()
		w := httptest.NewRecorder()
		if err := h.ServeHTTP(w, request(history), next); err != nil {
			t.Fatal(err)
		}
		if w.Code != http.StatusOK {
			t.Fatalf("status %d: %s", w.Code, w.Body.String())
		}
	}
	for i, next := range []caddyhttp.Handler{jsonUpstream([]byte(jsonReply), ""), refusing} {
		serve(next)
		if n := h.budget.Stats().InUse; n != 0 {
			t.Fatalf("request %d left %d bytes in use", i, n)
		}
	}
	if !refused {
		t.Fatal("no refusal was replayed")
	}
	serve(caddyhttp.HandlerFunc(sseUpstream)) // never closes the request body
	gctest.Until(t, func() bool { return h.budget.Stats().InUse == 0 },
		func() string { return fmt.Sprintf("%d bytes in use 10s after every request", h.budget.Stats().InUse) })
}

// TestReplayWithoutRoomGetsA529: a refusal that the budget has room to hold
// but none to replay never reaches the client either: it gets a 529 to
// retry, and the upstream no second request.
func TestReplayWithoutRoomGetsA529(t *testing.T) {
	h := newTestHandler(t, "anthropic")
	h.budget = budget.New(budget.MinLimit)
	h.MemoryWait = caddy.Duration(20 * time.Millisecond)
	b := h.budget
	// Room for the body and its copy (32 KiB each), and 16 KiB more, of
	// the 896 KiB large requests may fill.
	hog := b.Ticket(context.Background(), 0)
	hog.Finishing() // which may fill the whole budget
	var held [][]byte
	for _, size := range []int{512 << 10, 256 << 10, 32 << 10, 16 << 10} {
		buf, err := hog.Buffer(size, size, false)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, buf)
	}
	free := func() {
		for _, buf := range held {
			hog.Put(buf)
		}
		held = nil
	}
	defer free()
	calls := 0
	var squeezed func()
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		calls++
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, err := io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: Invalid `+"`signature`"+` in `+"`thinking`"+` block"}}`)
		squeezed = squeeze(b, 0) // the refusal is held: no room is left to copy the body for a replay
		return err
	})
	history := `{"messages":[{"role":"user","content":"` + strings.Repeat("x", 20<<10) + `"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"old","signature":"b2xk"},{"type":"text","text":"x"}]},{"role":"user","content":"go on"}]}`
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, request(history), next); err != nil {
		t.Fatal(err)
	}
	if squeezed == nil {
		t.Fatal("the upstream was never called")
	}
	squeezed()
	if w.Code != statusOverloaded || calls != 1 || strings.Contains(w.Body.String(), "invalid_request_error") {
		t.Fatalf("client got %d %q after %d upstream calls", w.Code, w.Body.String(), calls)
	}
	free()
	if s := b.Stats(); s.InUse != 0 || s.Overloaded != 1 {
		t.Fatalf("stats %+v", s)
	}
}
