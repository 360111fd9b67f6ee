package llmthinking

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	zapobserver "go.uber.org/zap/zaptest/observer"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/handoff"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/policy"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// newTestHandler provisions a handler outside Caddy, with its own registry.
func newTestHandler(tb testing.TB, backend string) *Handler {
	tb.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	tb.Cleanup(cancel)
	off := false
	h := &Handler{Backend: backend, Registry: tb.Name(), Persist: &off}
	if err := h.Provision(ctx); err != nil {
		tb.Fatal(err)
	}
	if err := h.Validate(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.Cleanup() })
	return h
}

// originOf returns the backend the handler's registry names as the
// producer of the thinking block with the given text and signature, or "".
func originOf(h *Handler, text, signature string) string {
	var hasher block.Hasher
	hasher.Write([]byte(text))
	k := hasher.Thinking([]byte(signature))
	return h.policy.Registry.Admit(registry.Request{Keys: []block.Key{k}}).Origins[0]
}

// request builds a Messages request carrying Caddy's replacer, with the
// request placeholders ({http.request.header.*}) that Caddy's server adds.
func request(body string) *http.Request {
	r := httptest.NewRequest("POST", "/v1/messages?beta=true", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Claude-Code-Session-Id", "s1")
	return r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddyhttp.NewTestReplacer(r)))
}

// A stream with one signed thinking block, as Anthropic sends it.
const sseReply = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[]}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"plan \\u003cb\\u003e\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"c2ln\"}}\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

func sseUpstream(w http.ResponseWriter, r *http.Request) error {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, event := range strings.SplitAfter(sseReply, "\n\n") {
		io.WriteString(w, event)
	}
	return nil
}

func TestServeHTTPLearnsFromTheStream(t *testing.T) {
	h := newTestHandler(t, "anthropic")
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, request(`{"messages":[{"role":"user","content":"hi"}],"stream":true}`), caddyhttp.HandlerFunc(sseUpstream)); err != nil {
		t.Fatal(err)
	}
	if w.Body.String() != sseReply {
		t.Fatalf("client got a different stream:\n%q", w.Body.String())
	}
	if origin := originOf(h, "plan <b>", "c2ln"); origin != "anthropic" {
		t.Fatalf("block origin = %q; want anthropic", origin)
	}
}

func TestServeHTTPPassesOtherRequestsUntouched(t *testing.T) {
	h := newTestHandler(t, "anthropic")
	r := httptest.NewRequest("POST", "/v1/models", strings.NewReader("not json"))
	var got *http.Request
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error { got = r; return nil })
	if err := h.ServeHTTP(httptest.NewRecorder(), r, next); err != nil {
		t.Fatal(err)
	}
	if got != r {
		t.Fatal("a request to another endpoint was replaced")
	}
}

func TestServeHTTPNeverSwallowsErrAbortHandler(t *testing.T) {
	h := newTestHandler(t, "anthropic")
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseReply[:100])
		panic(http.ErrAbortHandler)
	})
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Fatalf("panic = %v, want http.ErrAbortHandler to propagate", v)
		}
		if s := h.policy.Registry.Stats(); s.Blocks != 0 {
			t.Fatalf("an aborted stream registered %d blocks", s.Blocks)
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), request(`{"messages":[],"stream":true}`), next)
}

// headerLog records every WriteHeader call and flush.
type headerLog struct {
	*httptest.ResponseRecorder
	statuses []int
}

func (l *headerLog) WriteHeader(code int) {
	l.statuses = append(l.statuses, code)
	l.ResponseRecorder.WriteHeader(code)
}

func TestObserverPassesThroughAndFlushes(t *testing.T) {
	h := newTestHandler(t, "anthropic")
	under := &headerLog{ResponseRecorder: httptest.NewRecorder()}
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, sseReply)
		rc := http.NewResponseController(w)
		if err := rc.Flush(); err != nil {
			return err
		}
		if w.(interface{ Unwrap() http.ResponseWriter }).Unwrap() != under {
			return fmt.Errorf("Unwrap does not return the wrapped writer")
		}
		return nil
	})
	if err := h.ServeHTTP(under, request(`{"messages":[],"stream":true}`), next); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(under.statuses) != "[103 200]" {
		t.Fatalf("statuses written = %v, want [103 200]", under.statuses)
	}
	if !under.Flushed {
		t.Fatal("Flush did not reach the client writer")
	}
	if originOf(h, "plan <b>", "c2ln") == "" {
		t.Fatal("block not registered after an informational status")
	}
}

// TestObserverSeesWhatIsCopiedIn: a handler further on that copies its
// answer with io.Copy reaches the observer's ReadFrom, which must not hand
// the bytes to the client's writer unobserved.
func TestObserverSeesWhatIsCopiedIn(t *testing.T) {
	h := newTestHandler(t, "anthropic")
	under := httptest.NewRecorder()
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "text/event-stream")
		if _, ok := w.(io.ReaderFrom); !ok {
			return fmt.Errorf("the observer is no io.ReaderFrom")
		}
		_, err := io.Copy(w, struct{ io.Reader }{strings.NewReader(sseReply)})
		return err
	})
	if err := h.ServeHTTP(under, request(`{"messages":[],"stream":true}`), next); err != nil {
		t.Fatal(err)
	}
	if under.Body.String() != sseReply {
		t.Fatalf("the client got %q", under.Body.String())
	}
	if originOf(h, "plan <b>", "c2ln") == "" {
		t.Fatal("a block copied in with io.Copy was not registered")
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		h    Handler
		want string
	}{
		{"bad mode", Handler{Backend: "a", Mode: "erase"}, `unknown mode "erase"`},
		{"negative max_blocks", Handler{Backend: "a", Mode: policy.ModeStrip, MaxBlocks: -1}, "max_blocks"},
		{"negative orphan_ttl", Handler{Backend: "a", Mode: policy.ModeStrip, OrphanTTL: -1}, "orphan_ttl"},
		{"negative max_body_size", Handler{Backend: "a", Mode: policy.ModeStrip, MaxBodySize: -1}, "max_body_size"},
		{"negative max_response_size", Handler{Backend: "a", MaxResponseSize: -1}, "max_response_size"},
		{"negative persist_interval", Handler{PersistInterval: -1}, "persist_interval"},
		{"negative memory_wait", Handler{MemoryWait: -1}, "memory_wait"},
	}
	for _, tt := range tests {
		if err := tt.h.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestUnreadableEncodingPassesUntouched(t *testing.T) {
	h := newTestHandler(t, "anthropic")
	core, logs := zapobserver.New(zap.InfoLevel)
	h.logger = zap.New(core)
	compressed := "\x1b\x0b\x00\xf8\xa5\x40\x42not really brotli, never decoded"
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "br")
		io.WriteString(w, compressed)
		return nil
	})
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, request(`{"messages":[{"role":"user","content":"hi"}]}`), next); err != nil {
		t.Fatal(err)
	}
	if w.Body.String() != compressed {
		t.Fatalf("client got %q", w.Body.String())
	}
	warned := logs.FilterMessage("thinking.unobserved_response").FilterField(zap.String("content_encoding", "br"))
	if warned.Len() != 1 {
		t.Fatalf("warnings = %v, want one unobserved_response naming br", logs.All())
	}
}

func TestBackendNamesAreBounded(t *testing.T) {
	h := newTestHandler(t, "{http.request.header.X-Backend}")
	r := request(`{"messages":[{"role":"user","content":"hi"}],"stream":true}`)
	r.Header.Set("X-Backend", strings.Repeat("b", 1<<20))
	if err := h.ServeHTTP(httptest.NewRecorder(), r, caddyhttp.HandlerFunc(sseUpstream)); err != nil {
		t.Fatal(err)
	}
	origin := originOf(h, "plan <b>", "c2ln")
	if len(origin) > policy.MaxID || !strings.HasPrefix(origin, "sha256:") {
		t.Fatalf("a 1 MiB backend name was kept as a %d-byte origin", len(origin))
	}
}

// TestServeHTTPCarriesTheThinkingConfigItTookOut: a tool loop whose first
// assistant message loses its leading thinking goes without thinking (the
// Messages API's rule), and the request carries the config it had, for a
// transport of another API (see handoff.Pass); a request
// that keeps its config carries none.
func TestServeHTTPCarriesTheThinkingConfigItTookOut(t *testing.T) {
	h := newTestHandler(t, "anthropic")
	// A block of another backend's: learned from its stream.
	other := newTestHandler(t, "glm")
	if err := other.ServeHTTP(httptest.NewRecorder(), request(`{"messages":[{"role":"user","content":"hi"}],"stream":true}`), caddyhttp.HandlerFunc(sseUpstream)); err != nil {
		t.Fatal(err)
	}
	const cfg = `{"type":"enabled","budget_tokens":2048}`
	loop := `{"model":"m","thinking":` + cfg + `,"messages":[{"role":"user","content":"[tool] hi"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"plan <b>","signature":"c2ln"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`
	var got *http.Request
	var body []byte
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		got = r
		var err error
		body, err = io.ReadAll(r.Body)
		return err
	})
	for _, tc := range []struct {
		h    *Handler
		want string
	}{{h, cfg}, {other, ""}} {
		if err := tc.h.ServeHTTP(httptest.NewRecorder(), request(loop), next); err != nil {
			t.Fatal(err)
		}
		if off := string(handoff.From(got.Context()).ThinkingOff); off != tc.want {
			t.Errorf("carried %q, want %q; the body went as %s", off, tc.want, body)
		}
		if hasThinking := strings.Contains(string(body), `"thinking":{`); hasThinking != (tc.want == "") {
			t.Errorf("the body went as %s", body)
		}
	}
}
