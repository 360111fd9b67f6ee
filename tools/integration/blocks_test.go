package integration

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// thinkingBlocks returns the thinking and redacted_thinking blocks of a
// request body's assistant messages, exactly as they appear in it.
func thinkingBlocks(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	blocks, err := llmtest.RequestThinkingBlocks(body)
	if err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	return blocks
}

// historyBlocks returns the thinking blocks of a conversation's history, as
// the client replays them.
func historyBlocks(c *llmtest.Conversation) []json.RawMessage {
	return llmtest.ThinkingBlocks(c.Messages)
}

// assertBlocks checks that the upstream received exactly want, byte for
// byte and in order.
func assertBlocks(t *testing.T, got, want []json.RawMessage) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("upstream received %d thinking blocks, want %d:\n got %s\nwant %s", len(got), len(want), got, want)
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("thinking block %d changed on its way:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// signaturesOf returns the signatures of thinking blocks, "" for a
// redacted one.
func signaturesOf(t *testing.T, blocks []json.RawMessage) []string {
	t.Helper()
	sigs := make([]string, 0, len(blocks))
	for _, b := range blocks {
		var v struct {
			Signature string `json:"signature"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		sigs = append(sigs, v.Signature)
	}
	return sigs
}

// topLevel returns the top-level members of a request body.
func topLevel(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	return m
}

// hashedSession is the conversation a session id names in logs, stats and
// storage: its hash, never the id.
func hashedSession(id string) string {
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + hex.EncodeToString(sum[:16])
}
