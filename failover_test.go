package llmthinking

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// failoverHandler returns a handler whose backend is {vars.llm_backend},
// failing over from anthropic to zai to kimi.
func failoverHandler(t *testing.T) *Handler {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	off := false
	h := &Handler{Backend: "{http.vars.llm_backend}", Registry: t.Name(), Persist: &off,
		Failover: &Failover{Backends: []string{"anthropic", "zai", "kimi"}}}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Cleanup() })
	return h
}

// routedRequest is a request routed to backend, as `vars llm_backend`
// routes it, in conversation session.
func routedRequest(backend, session string) *http.Request {
	r := httptest.NewRequest("POST", "/v1/messages?beta=true", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Claude-Code-Session-Id", session)
	r = r.WithContext(context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{"llm_backend": backend}))
	return r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddyhttp.NewTestReplacer(r)))
}

// upstreams answers as the backend the request's variable routes it to:
// with status (and a Retry-After) when answers names it, else the stream
// of a thinking block; a backend mapped to 0 cannot be reached.
type upstreams struct {
	answers map[string]int
	asked   []string
	bodies  []string
}

func (u *upstreams) ServeHTTP(w http.ResponseWriter, r *http.Request) error {
	backend := caddyhttp.GetVar(r.Context(), "llm_backend").(string)
	body, _ := io.ReadAll(r.Body)
	u.asked, u.bodies = append(u.asked, backend), append(u.bodies, string(body))
	status, ok := u.answers[backend]
	switch {
	case ok && status == 0:
		return caddyhttp.Error(http.StatusBadGateway, errors.New("dial tcp 10.0.0.1:443: connect: connection refused"))
	case ok:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "600")
		w.Header().Set("X-From", backend)
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"rate_limit_error","message":"%s says no"}}`, backend)
		return nil
	}
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, sseReply)
	return nil
}

// TestFailoverGoesOnAndHolds: a 429 from anthropic sends the request on
// to zai, whose answer the client gets, without anthropic's headers; the
// conversation then holds on zai (anthropic's Retry-After of 10 minutes
// is longer than the default hold) and its next request goes there first.
func TestFailoverGoesOnAndHolds(t *testing.T) {
	h := failoverHandler(t)
	u := &upstreams{answers: map[string]int{"anthropic": http.StatusTooManyRequests}}
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, routedRequest("anthropic", "fo-1"), caddyhttp.HandlerFunc(u.ServeHTTP)); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusOK || w.Body.String() != sseReply || w.Header().Get("X-From") != "" || strings.Join(u.asked, " ") != "anthropic zai" {
		t.Fatalf("client got %d %q (X-From %q); asked %v", w.Code, w.Body.String(), w.Header().Get("X-From"), u.asked)
	}
	if originOf(h, "plan <b>", "c2ln") != "zai" {
		t.Fatal("the block zai produced is not registered as zai's")
	}
	w = httptest.NewRecorder()
	if err := h.ServeHTTP(w, routedRequest("anthropic", "fo-1"), caddyhttp.HandlerFunc(u.ServeHTTP)); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusOK || strings.Join(u.asked, " ") != "anthropic zai zai" {
		t.Fatalf("the next request: %d, asked %v", w.Code, u.asked)
	}
	// Another conversation holds on nothing.
	u.asked = nil
	h.ServeHTTP(httptest.NewRecorder(), routedRequest("anthropic", "fo-2"), caddyhttp.HandlerFunc(u.ServeHTTP))
	if strings.Join(u.asked, " ") != "anthropic zai" {
		t.Fatalf("another conversation: asked %v", u.asked)
	}
}

// TestFailoverEveryBackendFails: the client gets the last backend's
// answer as it came, Retry-After kept; a last backend that cannot be
// reached answers in Anthropic's envelope.
func TestFailoverEveryBackendFails(t *testing.T) {
	h := failoverHandler(t)
	u := &upstreams{answers: map[string]int{"anthropic": 529, "zai": http.StatusServiceUnavailable, "kimi": http.StatusTooManyRequests}}
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, routedRequest("anthropic", "fo-3"), caddyhttp.HandlerFunc(u.ServeHTTP)); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "600" || w.Header().Get("X-From") != "kimi" ||
		!strings.Contains(w.Body.String(), "kimi says no") || strings.Join(u.asked, " ") != "anthropic zai kimi" {
		t.Fatalf("client got %d %s %q; asked %v", w.Code, w.Header(), w.Body.String(), u.asked)
	}
	u = &upstreams{answers: map[string]int{"anthropic": 529, "zai": 529, "kimi": 0}}
	w = httptest.NewRecorder()
	if err := h.ServeHTTP(w, routedRequest("anthropic", "fo-4"), caddyhttp.HandlerFunc(u.ServeHTTP)); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusBadGateway || !strings.Contains(w.Body.String(), `"type":"api_error"`) || strings.Contains(w.Body.String(), "10.0.0.1") {
		t.Fatalf("client got %d %q", w.Code, w.Body.String())
	}
}

// TestFailoverFromAConnectionThatFails: a backend that cannot be reached
// (reverse_proxy's 502 before anything was written) moves on too.
func TestFailoverFromAConnectionThatFails(t *testing.T) {
	h := failoverHandler(t)
	u := &upstreams{answers: map[string]int{"anthropic": 0}}
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, routedRequest("anthropic", "fo-5"), caddyhttp.HandlerFunc(u.ServeHTTP)); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusOK || strings.Join(u.asked, " ") != "anthropic zai" {
		t.Fatalf("client got %d; asked %v", w.Code, u.asked)
	}
}
