package floor

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// The floor is only a floor if what it passes on is what it was given: the
// body the next handler reads and the stream the client reads are the
// bytes that came in, and each part it is told to do is done.
func TestFloorPassesBodyAndStreamUnchanged(t *testing.T) {
	body := `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}],"stream":true}`
	stream := "event: message_start\ndata: {\"type\":\"message_start\"}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	for _, parts := range [][]string{nil, {"none"}, {"copy"}, {"events"}, {"copy", "hash"}} {
		h := &Handler{Parts: parts}
		if err := h.Provision(caddy.Context{}); err != nil {
			t.Fatal(err)
		}
		hashedBefore, newlinesBefore := hashed.Load(), newlines.Load()
		var got []byte
		var length int64
		next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			var err error
			if got, err = io.ReadAll(r.Body); err != nil {
				return err
			}
			length = r.ContentLength
			w.Header().Set("Content-Type", "text/event-stream")
			for _, chunk := range strings.SplitAfter(stream, "\n\n") {
				if _, err := io.WriteString(w, chunk); err != nil {
					return err
				}
				if err := http.NewResponseController(w).Flush(); err != nil {
					return err
				}
			}
			return nil
		})
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(body))
		if err := h.ServeHTTP(rec, req, next); err != nil {
			t.Fatalf("%v: %v", parts, err)
		}
		if string(got) != body || length != int64(len(body)) {
			t.Errorf("%v: upstream got %q (length %d), want the body as sent", parts, got, length)
		}
		if rec.Body.String() != stream || !rec.Flushed {
			t.Errorf("%v: client got %q (flushed %v), want the stream as sent", parts, rec.Body.String(), rec.Flushed)
		}
		if wantHash := parts == nil || slices.Contains(parts, "hash"); (hashed.Load() != hashedBefore) != wantHash {
			t.Errorf("%v: body hashed %v, want %v", parts, hashed.Load() != hashedBefore, wantHash)
		}
		wantLines := int64(0)
		if parts == nil || slices.Contains(parts, "events") {
			wantLines = int64(strings.Count(stream, "\n"))
		}
		if n := newlines.Load() - newlinesBefore; n != wantLines {
			t.Errorf("%v: counted %d newlines, want %d", parts, n, wantLines)
		}
	}
}

// The bench's Caddyfile (llm_thinking with its own subdirectives) runs the
// floor unchanged, and floor names the parts; an unknown part is refused.
func TestFloorCaddyfile(t *testing.T) {
	d := caddyfile.NewTestDispenser(`llm_thinking {
		backend anthropic
		persist off
		floor copy events
	}`)
	mh, err := parseCaddyfile(httpcaddyfile.Helper{Dispenser: d})
	if err != nil {
		t.Fatal(err)
	}
	h := mh.(*Handler)
	if !slices.Equal(h.Parts, []string{"copy", "events"}) {
		t.Fatalf("parts %v, want [copy events]", h.Parts)
	}
	if err := h.Provision(caddy.Context{}); err != nil || !h.copy || h.hash || !h.events {
		t.Fatalf("provisioned copy %v hash %v events %v (%v), want copy and events", h.copy, h.hash, h.events, err)
	}
	for _, parts := range [][]string{{"hash"}, {"copy", "parse"}, {"none", "copy"}} {
		if err := (&Handler{Parts: parts}).Provision(caddy.Context{}); err == nil {
			t.Errorf("%v provisioned, want an error", parts)
		}
	}
}

// A body over the bound is refused with 413 and never reaches the next
// handler: the floor holds bodies, so it bounds them as llm_thinking does.
func TestFloorRefusesABodyOverTheBound(t *testing.T) {
	defer func(n int64) { maxBody = n }(maxBody)
	maxBody = 1 << 10
	h := &Handler{Parts: []string{"copy"}}
	if err := h.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	reached := false
	next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error {
		reached = true
		return nil
	})
	for _, size := range []int{1 << 10, 1<<10 + 1} {
		reached = false
		req := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(strings.Repeat("x", size)))
		err := h.ServeHTTP(httptest.NewRecorder(), req, next)
		var he caddyhttp.HandlerError
		over := size > 1<<10
		if over != (errors.As(err, &he) && he.StatusCode == http.StatusRequestEntityTooLarge) || reached == over {
			t.Errorf("%d bytes: error %v, next handler reached %v", size, err, reached)
		}
	}
}

// Bodies are held in pooled buffers that go back when the body is closed:
// under concurrent requests, each closing its body as a transport does,
// every next handler reads its own body whole, none another's, and the
// bodies hashed are those sent.
func TestFloorPooledBodiesUnderConcurrency(t *testing.T) {
	h := &Handler{Parts: []string{"copy", "hash"}}
	if err := h.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 50
	var failures atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				body := strings.Repeat(fmt.Sprintf("%d.%d,", w, i), 200+37*w+i)
				next := caddyhttp.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) error {
					got, err := io.ReadAll(r.Body)
					r.Body.Close()
					if err != nil || string(got) != body {
						failures.Add(1)
					}
					return nil
				})
				req := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(body))
				if err := h.ServeHTTP(httptest.NewRecorder(), req, next); err != nil {
					failures.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := failures.Load(); n != 0 {
		t.Fatalf("%d of %d requests reached the next handler with another body than their own", n, workers*each)
	}
}
