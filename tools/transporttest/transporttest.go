// Package transporttest helps the tests that take a transport of the
// plugin alone, with no Caddy around it: it provisions one as Caddy would,
// sends a Messages request through it, and has the official Anthropic Go
// SDK go round a tool loop through it, as SDK-based clients do. The SDK
// judges and the integration tests share it; it is test code only, and
// lives in the tools module so that the SDK never enters the plugin's
// dependencies.
package transporttest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/caddyserver/caddy/v2"
)

// Transport is a transport of the plugin: a round tripper Caddy provisions.
type Transport interface {
	http.RoundTripper
	Provision(caddy.Context) error
}

// Provision provisions tr as Caddy would, and cleans it up when the test
// ends.
func Provision(t testing.TB, tr Transport) {
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

// Post sends body through tr to url with the Anthropic API's headers, and
// returns the answer and its body.
func Post(t testing.TB, tr http.RoundTripper, url, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("X-Api-Key", "sk-test")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("Anthropic-Beta", "interleaved-thinking-2025-05-14")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// Client returns an Anthropic SDK client with key whose requests go
// through tr, provisioned here, to baseURL. The SDK retries nothing, so
// that every answer is the one the test judges.
func Client(t testing.TB, tr Transport, baseURL, key string) anthropic.Client {
	t.Helper()
	Provision(t, tr)
	return anthropic.NewClient(option.WithBaseURL(baseURL), option.WithAPIKey(key), option.WithMaxRetries(0),
		option.WithHTTPClient(&http.Client{Transport: tr}))
}

// Bash is the tool the turns offer, Claude Code's shell tool reduced to its
// command.
var Bash = anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{Name: "Bash", Description: anthropic.String("Run a command"),
	InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"command": map[string]any{"type": "string"}}, Required: []string{"command"}}}}

// Turn makes one turn of msgs, with thinking and Bash, streamed
// (accumulated by the SDK) or not, and fails the test if the SDK refuses
// the answer.
func Turn(t testing.TB, c anthropic.Client, stream bool, msgs []anthropic.MessageParam) anthropic.Message {
	t.Helper()
	params := anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 1024, Messages: msgs,
		Tools: []anthropic.ToolUnionParam{Bash}, Thinking: anthropic.ThinkingConfigParamOfEnabled(2048)}
	if !stream {
		m, err := c.Messages.New(context.Background(), params)
		if err != nil {
			t.Fatalf("the SDK refused the answer: %v", err)
		}
		return *m
	}
	s := c.Messages.NewStreaming(context.Background(), params)
	var m anthropic.Message
	for s.Next() {
		if err := m.Accumulate(s.Current()); err != nil {
			t.Fatalf("the SDK could not accumulate the stream: %v", err)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("the SDK refused the stream: %v", err)
	}
	return m
}
