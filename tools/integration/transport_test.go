package integration

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

// The transport_*_test.go files take a transport alone, with no Caddy
// around it, round a tool loop against a strict mock.

// message is a Messages answer as the tests read it.
type message struct {
	Content []struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
	Model      string `json:"model"`
}

// provisioned provisions tr as Caddy would, and cleans it up when the
// test ends.
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

// post sends body through rt to url with Claude Code's API headers, and
// returns the answer and its body.
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
