package transport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

// recorder is an upstream that records what it received and answers with
// a fixed status and body.
type recorder struct {
	mu     sync.Mutex
	got    []*http.Request
	bodies []string
	status int
	ctype  string
	body   string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.got = append(r.got, req)
	r.bodies = append(r.bodies, string(b))
	r.mu.Unlock()
	w.Header().Set("Content-Type", r.ctype)
	w.WriteHeader(r.status)
	io.WriteString(w, r.body)
}

func provisioned(t testing.TB, tr interface{ Provision(caddy.Context) error }) {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := tr.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if c, ok := tr.(caddy.CleanerUpper); ok {
		t.Cleanup(func() { c.Cleanup() })
	}
}

func post(t *testing.T, rt http.RoundTripper, url, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("X-Api-Key", "sk-test")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("Anthropic-Beta", "interleaved-thinking-2025-05-14")
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func TestOpenAIRoundTrip(t *testing.T) {
	up := &recorder{status: 200, ctype: "application/json",
		body: `{"id":"c1","choices":[{"message":{"content":"hi","reasoning_content":"think"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2}}`}
	srv := httptest.NewServer(up)
	defer srv.Close()
	o := &OpenAI{Models: Models{{"claude-*", "qwen3"}}}
	provisioned(t, o)

	resp, body := post(t, o, srv.URL+"/api/v1/messages?beta=true", `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hello"}]}`)
	if resp.StatusCode != 200 || !strings.Contains(body, `"model":"claude-sonnet-4-5"`) || !strings.Contains(body, `{"type":"thinking","thinking":"think","signature":"llmthinking.v1.reasoning.`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	got := up.got[0]
	if got.URL.Path != "/api/v1/chat/completions" || got.URL.RawQuery != "" || got.Header.Get("Authorization") != "Bearer sk-test" ||
		got.Header.Get("X-Api-Key") != "" || got.Header.Get("Anthropic-Version") != "" || got.Header.Get("Anthropic-Beta") != "" {
		t.Errorf("upstream got %s?%s with %v", got.URL.Path, got.URL.RawQuery, got.Header)
	}
	if want := `{"model":"qwen3","messages":[{"role":"user","content":"hello"}],"max_tokens":10}`; up.bodies[0] != want {
		t.Errorf("upstream body\n got %s\nwant %s", up.bodies[0], want)
	}

	// count_tokens: answered here, the upstream is not asked.
	resp, body = post(t, o, srv.URL+"/v1/messages/count_tokens", `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hello there, how are you?"}]}`)
	if resp.StatusCode != 200 || body != `{"input_tokens":6}` || len(up.got) != 1 {
		t.Errorf("count_tokens: %d %s, upstream asked %d times", resp.StatusCode, body, len(up.got))
	}

	// Any other request passes as it came.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/models?x=1", nil)
	req.Header.Set("X-Api-Key", "k")
	if _, err := o.RoundTrip(req); err != nil || up.got[1].URL.Path != "/v1/models" || up.got[1].Header.Get("X-Api-Key") != "k" {
		t.Errorf("GET /v1/models: %v %v", err, up.got[1].URL)
	}

	// A body that is not a Messages request: the API's 400.
	resp, body = post(t, o, srv.URL+"/v1/messages", `[1,2]`)
	if resp.StatusCode != 400 || !strings.Contains(body, `"type":"invalid_request_error"`) {
		t.Errorf("bad body: %d %s", resp.StatusCode, body)
	}
}

func TestOpenAIRoundTripErrors(t *testing.T) {
	for _, tt := range []struct {
		status      int
		ctype, body string
		wantStatus  int
		want        string
	}{
		{401, "application/json", `{"error":{"message":"bad key"}}`, 401, `{"type":"error","error":{"type":"authentication_error","message":"bad key"}}`},
		{200, "application/json", `not json`, 502, `{"type":"error","error":{"type":"api_error","message":"not a chat-completions answer: want a JSON object with choices"}}`},
		{200, "application/json", `{"choices":[{"message":{"content":"` + strings.Repeat("x", 2000) + `"}}]}`, 502, `{"type":"error","error":{"type":"api_error","message":"the upstream's answer is larger than max_response_size"}}`},
	} {
		srv := httptest.NewServer(&recorder{status: tt.status, ctype: tt.ctype, body: tt.body})
		o := &OpenAI{MaxResponseSize: 1024}
		provisioned(t, o)
		resp, body := post(t, o, srv.URL+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"x"}]}`)
		if resp.StatusCode != tt.wantStatus || body != tt.want || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%d %s:\n got %d %s\nwant %d %s", tt.status, tt.body[:min(20, len(tt.body))], resp.StatusCode, body, tt.wantStatus, tt.want)
		}
		srv.Close()
	}
}

func TestAnthropicRoundTrip(t *testing.T) {
	up := &recorder{status: 200, ctype: "text/event-stream",
		body: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"qwen3-coder\",\"content\":[]}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"}
	srv := httptest.NewServer(up)
	defer srv.Close()
	a := &Anthropic{Models: Models{{"*", "qwen3-coder"}}}
	provisioned(t, a)
	resp, body := post(t, a, srv.URL+"/v1/messages?beta=true", `{"model":"claude-sonnet-4-5","messages":[],"stream":true}`)
	if resp.StatusCode != 200 || !strings.Contains(body, `"model":"claude-sonnet-4-5"`) || strings.Contains(body, "qwen3-coder") {
		t.Errorf("answer: %s", body)
	}
	if up.bodies[0] != `{"model":"qwen3-coder","messages":[],"stream":true}` || up.got[0].URL.RawQuery != "beta=true" || up.got[0].Header.Get("X-Api-Key") != "sk-test" {
		t.Errorf("upstream got %s %v", up.bodies[0], up.got[0].URL)
	}
}
