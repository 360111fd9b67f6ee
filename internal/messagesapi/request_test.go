package messagesapi

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// TestReadRequest: every member lands in its own field, as the body wrote
// it, the last of a member given twice; members of other names are passed
// over.
func TestReadRequest(t *testing.T) {
	body := `{"service_tier":"auto","output_config":{"effort":"low"}, "thinking" : {"type":"enabled","budget_tokens":2048},
		"metadata":{"user_id":"u"},"stop_sequences":["x"],"top_k":5,"top_p":0.9,"temperature":0.5,
		"max_tokens":1,"max_tokens":32000,"tool_choice":{"type":"auto"},"tools":[{"name":"t"}],
		"system":"be brief","messages":[{"role":"user","content":"hi"}],"stream":true,"model":"claude-opus-4-6"}`
	r, err := ReadRequest([]byte(body), []byte(`{"type":"disabled"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		got  jsonscan.Value
		want string
	}{
		{"model", r.Model, `"claude-opus-4-6"`},
		{"stream", r.Stream, `true`},
		{"messages", r.Messages, `[{"role":"user","content":"hi"}]`},
		{"system", r.System, `"be brief"`},
		{"tools", r.Tools, `[{"name":"t"}]`},
		{"tool_choice", r.ToolChoice, `{"type":"auto"}`},
		{"max_tokens", r.MaxTokens, `32000`},
		{"temperature", r.Temperature, `0.5`},
		{"top_p", r.TopP, `0.9`},
		{"top_k", r.TopK, `5`},
		{"stop_sequences", r.StopSequences, `["x"]`},
		{"metadata", r.Metadata, `{"user_id":"u"}`},
		{"thinking", r.Thinking, `{"type":"enabled","budget_tokens":2048}`},
		{"output_config", r.OutputConfig, `{"effort":"low"}`},
	} {
		if string(f.got) != f.want {
			t.Errorf("%s: %s, want %s", f.name, f.got, f.want)
		}
	}
}

// TestReadRequestAbsent: a member the body does not have is absent.
func TestReadRequestAbsent(t *testing.T) {
	r, err := ReadRequest([]byte(`{"messages":[]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Messages) != "[]" || r.Model != nil || r.Stream != nil || r.Thinking != nil || r.Tools != nil {
		t.Errorf("%+q", r)
	}
}

// TestReadRequestThinkingOff: the config llm_thinking took out stands in
// for a thinking config the body lacks, and only then; one that is not
// JSON is none.
func TestReadRequestThinkingOff(t *testing.T) {
	for _, tc := range []struct{ body, off, want string }{
		{`{"messages":[]}`, `{"type":"enabled","budget_tokens":1024}`, `{"type":"enabled","budget_tokens":1024}`},
		{`{"messages":[],"thinking":{"type":"disabled"}}`, `{"type":"enabled","budget_tokens":1024}`, `{"type":"disabled"}`},
		{`{"messages":[],"thinking":null}`, `{"type":"enabled","budget_tokens":1024}`, `null`},
		{`{"messages":[]}`, ``, ``},
		{`{"messages":[]}`, `{"type":`, ``},
	} {
		r, err := ReadRequest([]byte(tc.body), []byte(tc.off))
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Thinking) != tc.want {
			t.Errorf("%s with %s: thinking %s, want %s", tc.body, tc.off, r.Thinking, tc.want)
		}
	}
}

// TestReadRequestNotMessages: only a JSON object with a messages array is
// a Messages request.
func TestReadRequestNotMessages(t *testing.T) {
	for _, body := range []string{
		``, `null`, `[]`, `"messages"`, `{}`, `{"model":"m"}`, `{"messages":{}}`, `{"messages":null}`,
		`{"messages":[]`, `{"messages":[]} {}`, `{"messages":[]}x`, `[{"messages":[]}]`,
	} {
		r, err := ReadRequest([]byte(body), []byte(`{"type":"disabled"}`))
		if !errors.Is(err, ErrNotMessages) || r.Messages != nil || r.Thinking != nil {
			t.Errorf("%q: %v, %+q", body, err, r)
		}
	}
	if ErrNotMessages.Error() != "not a Messages request: want a JSON object with a messages array" {
		t.Errorf("the message clients get changed: %q", ErrNotMessages)
	}
}

// TestInputTokens: the estimate of the request's system prompt, tools and
// messages.
func TestInputTokens(t *testing.T) {
	r, err := ReadRequest([]byte(`{"system":"0123456789","tools":[],"messages":[{"role":"user","content":[{"type":"image"},{"type":"text","text":"abcdef"}]}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	// (12 + 2 + 8) / 4 + 1600
	if got := r.InputTokens(); got != 1605 {
		t.Errorf("InputTokens %d, want 1605", got)
	}
}

// TestCappedMaxTokens: a cap above 0 bounds max_tokens and stands in for
// one that is missing or not above 0; without a cap max_tokens is as given.
func TestCappedMaxTokens(t *testing.T) {
	for _, tc := range []struct {
		maxTokens string
		limit     int
		want      int64
	}{
		{`32000`, 0, 32000},
		{`32000`, 8192, 8192},
		{`1`, 8192, 1},
		{`0`, 8192, 8192},
		{`-5`, 8192, 8192},
		{``, 8192, 8192},
		{``, 0, 0},
		{`"100"`, 0, 0},
		{`100.9`, 0, 100},
	} {
		r := Request{MaxTokens: jsonscan.Value(tc.maxTokens)}
		if got := r.CappedMaxTokens(tc.limit); got != tc.want {
			t.Errorf("max_tokens %s capped at %d: %d, want %d", tc.maxTokens, tc.limit, got, tc.want)
		}
	}
}

// BenchmarkReadRequest: the members of each Claude Code request of the
// captures, as every translation reads them first.
func BenchmarkReadRequest(b *testing.B) {
	paths, err := filepath.Glob("../../testdata/claude-code-2.1.328/capture-[0-9]-*.json")
	if err != nil || len(paths) == 0 {
		b.Fatal(paths, err)
	}
	for _, path := range paths {
		body, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strings.TrimSuffix(filepath.Base(path), ".json"), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ReadRequest(body, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
