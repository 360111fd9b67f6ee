package thinking

import (
	"errors"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

func TestParseCapturedRequests(t *testing.T) {
	tests := []struct {
		file         string
		thinkingType string
		blocks       int
	}{
		{"capture-1-first-turn.json", "enabled", 0},
		{"capture-2-tool-result-same-run.json", "enabled", 1},
		{"capture-3-continue-replays-thinking.json", "enabled", 2},
		{"capture-4-continue-model-switch-opus-4-6.json", "adaptive", 0},
		{"capture-5-retry-after-thinking-400.json", "enabled", 0},
		{"capture-6-interactive-title-side-request.json", "disabled", 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			req := mustParse(t, fixture(t, tt.file))
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
			if b.Kind != block.Thinking || b.Message != 1 || b.Index != 0 {
				t.Errorf("first block = %+v", b)
			}
			if b.Key != blockKey(t, fixture(t, tt.file), 1, 0) {
				t.Errorf("key %v is not the key of the block's text and signature", b.Key)
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
		assistant(th("from tags", "llmthinking.v1.mac"), text("answer")),
	))
	req := mustParse(t, []byte(in))
	want := []Block{
		{Kind: block.Thinking, Message: 2, Index: 1, Key: thinkingKey("a\nbé", "s/1")},
		{Kind: block.Redacted, Message: 2, Index: 2, Key: redactedKey("r1")},
		{Kind: block.Thinking, Message: 2, Index: 3, Key: thinkingKey("unsigned", "")},
		{Kind: block.Redacted, Message: 4, Index: 0, Key: redactedKey("d")},
		{Kind: block.Thinking, Message: 5, Index: 0, Key: thinkingKey("from tags", "llmthinking.v1.mac"), Synthesized: true},
	}
	got := req.Blocks()
	if len(got) != len(want) {
		t.Fatalf("%d blocks, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g != w {
			t.Errorf("block %d = %+v, want %+v", i, g, w)
		}
	}
}

func thinkingKey(text, signature string) block.Key {
	return oracleBlock{kind: block.Thinking, text: text, signature: signature}.key()
}

func redactedKey(data string) block.Key {
	return oracleBlock{kind: block.Redacted, data: data}.key()
}

// blockKey is the key of the block at messages[msg].content[index] of body,
// as encoding/json reads it.
func blockKey(t *testing.T, body []byte, msg, index int) block.Key {
	t.Helper()
	blocks, ok := oracleBlocks(body)
	if !ok {
		t.Fatal("encoding/json cannot read the body")
	}
	for _, b := range blocks {
		if b.msg == msg && b.index == index {
			return b.key()
		}
	}
	t.Fatalf("no block at messages.%d.content.%d", msg, index)
	return block.Key{}
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

// TestParseTakesConfigsThatAreNotObjects: a thinking, metadata or
// context_management member of another type is a request the API refuses,
// not malformed JSON; it is read as configuring nothing and goes on as it
// came (FuzzRewrite found "thinking":true rejected as a syntax error).
func TestParseTakesConfigsThatAreNotObjects(t *testing.T) {
	for _, v := range []string{`true`, `null`, `1`, `"enabled"`, `[{"type":"enabled"}]`} {
		for _, member := range []string{"thinking", "metadata", "context_management"} {
			body := `{"` + member + `":` + v + `,"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"}]}]}`
			req, err := Parse([]byte(body))
			if err != nil {
				t.Fatalf("%s: %v", body, err)
			}
			if len(req.Blocks()) != 1 || req.ThinkingType() != "" || req.UserID() != "" || req.contextEdits != (span{}) {
				t.Fatalf("%s: %d blocks, thinking type %q, user %q, edits %v", body, len(req.Blocks()), req.ThinkingType(), req.UserID(), req.contextEdits)
			}
			req.Release()
		}
	}
}

func TestModel(t *testing.T) {
	for body, want := range map[string]string{
		`{"model":"claude-sonnet-4-5","messages":[]}`:      "claude-sonnet-4-5",
		`{"messages":[],"model":"glm-4.6"}`:                "glm-4.6",
		`{"model":"qwen3:8b\u0021","messages":[]}`:         "qwen3:8b!",
		`{"model":"a","messages":[],"model":"b"}`:          "b",
		`{"model":"a","model":7,"messages":[]}`:            "",
		`{"messages":[{"role":"user","content":"model"}]}`: "",
	} {
		req, err := Parse([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if got := req.Model(); got != want {
			t.Errorf("%s: Model() = %q, want %q", body, got, want)
		}
		req.Release()
	}
}
