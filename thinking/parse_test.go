package thinking

import (
	"errors"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

func TestParseCapturedRequests(t *testing.T) {
	tests := []struct {
		file         string
		thinkingType string
		blocks       int
		sigPrefix    string
	}{
		{"capture-1-first-turn.json", "enabled", 0, ""},
		{"capture-2-tool-result-same-run.json", "enabled", 1, "Y2Nwcm9iZS1zaWc6YTptc2dfY2Nwcm9iZV8xNzk1MzEyNzg4XzE6"},
		{"capture-3-continue-replays-thinking.json", "enabled", 2, "Y2Nwcm9iZS1zaWc6YTptc2dfY2Nwcm9iZV8xNzk1MzEyNzg4XzE6"},
		{"capture-4-continue-model-switch-opus-4-6.json", "adaptive", 0, ""},
		{"capture-5-retry-after-thinking-400.json", "enabled", 0, ""},
		{"capture-6-interactive-title-side-request.json", "disabled", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			req, err := Parse(fixture(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := req.ThinkingType(); got != tt.thinkingType {
				t.Errorf("ThinkingType = %q, want %q", got, tt.thinkingType)
			}
			if !req.Stream() {
				t.Error("Stream = false for a streamed capture")
			}
			if !strings.Contains(req.UserID(), `"session_id":"`) {
				t.Errorf("UserID = %q, want the JSON user id", req.UserID())
			}
			blocks := req.Blocks()
			if len(blocks) != tt.blocks {
				t.Fatalf("%d blocks, want %d", len(blocks), tt.blocks)
			}
			if tt.blocks == 0 {
				return
			}
			b := blocks[0]
			if b.Kind != Thinking || b.Message != 1 || b.Index != 0 || !b.HasSignature {
				t.Errorf("first block = %+v", b)
			}
			if !strings.HasPrefix(string(b.Signature), tt.sigPrefix) {
				t.Errorf("signature %.40q, want prefix %.40q", b.Signature, tt.sigPrefix)
			}
			if !strings.HasPrefix(string(b.Thinking), "ccprobe thinking (backend a") {
				t.Errorf("thinking %.40q", b.Thinking)
			}
		})
	}
}

func TestParseBlocks(t *testing.T) {
	in := obj(messages(
		user("hi"),
		`{"role":"user","content":[{"type":"thinking","thinking":"not ours","signature":"u"}]}`,
		assistant(text("x"), `{"type":"thinking","thinking":"a\nb\u00e9","signature":"s\/1"}`, red("r1"), `{"type":"thinking","thinking":"unsigned"}`),
		`{"role":"assistant","content":"plain string"}`,
		`{"content":[{"type":"redacted_thinking","data":"d"}],"role":"assistant"}`,
	))
	req, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{Kind: Thinking, Message: 2, Index: 1, Thinking: []byte("a\nbé"), Signature: []byte("s/1"), HasSignature: true},
		{Kind: Redacted, Message: 2, Index: 2, Data: []byte("r1")},
		{Kind: Thinking, Message: 2, Index: 3, Thinking: []byte("unsigned")},
		{Kind: Redacted, Message: 4, Index: 0, Data: []byte("d")},
	}
	got := req.Blocks()
	if len(got) != len(want) {
		t.Fatalf("%d blocks, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Kind != w.Kind || g.Message != w.Message || g.Index != w.Index || g.HasSignature != w.HasSignature ||
			string(g.Thinking) != string(w.Thinking) || string(g.Signature) != string(w.Signature) || string(g.Data) != string(w.Data) {
			t.Errorf("block %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		notMsgs bool
	}{
		{"not an object", `[1,2]`, true},
		{"no messages", `{"model":"x"}`, true},
		{"empty", ``, true},
		{"truncated", `{"messages":[{"role":"assistant","content":[{"type":"thinking"`, false},
		{"trailing garbage", `{"messages":[]} x`, false},
		{"missing colon", `{"messages" []}`, false},
		{"thinking text not a string", `{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":1,"signature":"s"}]}]}`, false},
		{"bad escape in a signature", `{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"\q"}]}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatal("Parse accepted it")
			}
			if got := errors.Is(err, ErrNotMessages); got != tt.notMsgs {
				t.Fatalf("err = %v; ErrNotMessages %v, want %v", err, got, tt.notMsgs)
			}
			if !tt.notMsgs && !errors.Is(err, jsonscan.ErrSyntax) {
				t.Fatalf("err = %v, want a syntax error", err)
			}
		})
	}
}
