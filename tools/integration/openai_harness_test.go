package integration

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// withChat adds a chat-completions upstream named name, reached through
// reverse_proxy with the given block ("transport openai {...}").
func withChat(name string, f llmtest.ChatFlavor, block string) func(*gateway) {
	return func(g *gateway) {
		u := llmtest.NewChatUpstream(name, f)
		g.t.Cleanup(u.Close)
		if g.chats == nil {
			g.chats = make(map[string]*llmtest.ChatUpstream)
		}
		g.chats[name] = u
		g.Upstreams[name] = u.HostPort()
		if g.Blocks == nil {
			g.Blocks = make(map[string]string)
		}
		g.Blocks[name] = block
	}
}

// newChatGateway returns a gateway whose only backend, name, is a
// chat-completions server of flavor f reached through reverse_proxy with
// block, and that server.
func newChatGateway(t *testing.T, name string, f llmtest.ChatFlavor, block string) (*gateway, *llmtest.ChatUpstream) {
	g := newGateway(t, nil, name, withChat(name, f, block))
	return g, g.chats[name]
}

// wantEstimate fails the test unless count_tokens for c's conversation
// is answered with a positive input_tokens, as a transport estimates it.
func wantEstimate(t *testing.T, c *llmtest.Conversation) {
	t.Helper()
	turn, err := c.CountTokens()
	if err != nil {
		t.Fatal(err)
	}
	var counted struct {
		InputTokens int `json:"input_tokens"`
	}
	if turn.Status != http.StatusOK || json.Unmarshal(turn.Body, &counted) != nil || counted.InputTokens <= 0 {
		t.Errorf("count_tokens: %d %s", turn.Status, turn.Body)
	}
}

// withBlock gives the named upstream's reverse_proxy a block.
func withBlock(name, block string) func(*gateway) {
	return func(g *gateway) {
		if g.Blocks == nil {
			g.Blocks = make(map[string]string)
		}
		g.Blocks[name] = block
	}
}

// chatMessage is a message of a chat-completions request, as a test reads it.
type chatMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent *string         `json:"reasoning_content"`
	Reasoning        *string         `json:"reasoning"`
	ReasoningDetails json.RawMessage `json:"reasoning_details"`
	ToolCallID       string          `json:"tool_call_id"`
	ToolCalls        []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// chatRequest reads a chat-completions request body.
func chatRequest(t *testing.T, body []byte) (top map[string]json.RawMessage, msgs []chatMessage) {
	t.Helper()
	if err := json.Unmarshal(body, &top); err != nil {
		t.Fatalf("upstream body is not JSON: %v\n%s", err, body)
	}
	if err := json.Unmarshal(top["messages"], &msgs); err != nil {
		t.Fatalf("upstream messages: %v", err)
	}
	return top, msgs
}

// contentBlock is a block of an assistant message the client assembled.
type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

// blocksOf reads the content of an assistant message.
func blocksOf(t *testing.T, msg []byte) []contentBlock {
	t.Helper()
	var m struct {
		Content []contentBlock `json:"content"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatalf("assistant message: %v\n%s", err, msg)
	}
	return m.Content
}
