package llmtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
)

// defaultClient is used by a Conversation whose Client is nil.
var defaultClient = &http.Client{Timeout: 10 * time.Second}

// Conversation is a Claude-Code-like client: it sends the request bodies and
// headers Claude Code 2.1.328 sends, keeps the history and replays every
// assistant message exactly as it assembled it. A Conversation is not safe
// for concurrent use; run one per goroutine.
type Conversation struct {
	// BaseURL is the gateway (or upstream), e.g. "http://127.0.0.1:PORT".
	BaseURL string
	// SessionID is sent as X-Claude-Code-Session-Id and inside
	// metadata.user_id.
	SessionID string
	// Anonymous sends no session at all, neither the header nor metadata,
	// as AI SDK apps and agents other than Claude Code do.
	Anonymous bool
	// CacheMark marks the last content block of the last message for
	// prompt caching, as Claude Code does: the mark moves on with the
	// history, so the message it was on is sent again without it.
	CacheMark bool
	// AgentID, when set, is sent as X-Claude-Code-Agent-Id.
	AgentID string
	// Model is the model asked for; "" means "claude-sonnet-4-5".
	Model string
	// Thinking is the thinking mode: "enabled" (the default when ""),
	// "adaptive" or "disabled".
	Thinking string
	// ShowThinking leaves out "display":"omitted", so thinking blocks come
	// back with their text.
	ShowThinking bool
	// Stream asks for a server-sent event stream.
	Stream bool
	// Header holds extra headers for every request (a routing header, say);
	// they replace default headers of the same name.
	Header http.Header
	// Client sends the requests; nil means one with a 10 s timeout.
	Client *http.Client
	// Messages is the history, exactly as it will be replayed.
	Messages []json.RawMessage
	// ModelBoundThinking replays the thinking of an assistant message only
	// when the model the client recorded with it (see RecordedModel) is the
	// model it asks for now, as Claude Code does: the thinking of an answer
	// recorded under another model name is left out of every later request.
	ModelBoundThinking bool
	// OnFirstByte, when set, is called once per request as soon as the
	// first byte of the response body arrives, before the rest is read.
	// Setting it to the release function of Upstream.HoldStream proves that
	// the stream was not buffered on its way.
	OnFirstByte func()

	models []string // the model recorded with each history message, by position
}

// NewConversation returns a streaming conversation with thinking enabled, as
// Claude Code starts one on claude-sonnet-4-5.
func NewConversation(baseURL, sessionID string) *Conversation {
	return &Conversation{
		BaseURL:   baseURL,
		SessionID: sessionID,
		Model:     defaultModel,
		Thinking:  "enabled",
		Stream:    true,
		CacheMark: true,
		Header:    http.Header{},
		Client:    &http.Client{Timeout: 10 * time.Second},
	}
}

// Say appends a user text message and sends the history. On a 200 the
// assistant message is appended too; on anything else the history keeps the
// user message, so Send retries.
func (c *Conversation) Say(text string) (*Turn, error) {
	msg := claudecode.AppendString([]byte(`{"role":"user","content":[{"type":"text","text":`), text)
	c.Messages = append(c.Messages, append(msg, "}]}"...))
	return c.Send()
}

// ToolResult appends a user message answering every tool_use of the last
// assistant message with content, and sends the history.
func (c *Conversation) ToolResult(content string) (*Turn, error) {
	ids, err := c.pendingToolUses()
	if err != nil {
		return nil, err
	}
	msg := []byte(`{"role":"user","content":[`)
	for i, id := range ids {
		if i > 0 {
			msg = append(msg, ',')
		}
		msg = claudecode.AppendString(append(msg, `{"tool_use_id":`...), id)
		msg = claudecode.AppendString(append(msg, `,"type":"tool_result","content":`...), content)
		msg = append(msg, `,"is_error":false}`...)
	}
	c.Messages = append(c.Messages, append(msg, "]}"...))
	return c.Send()
}

func (c *Conversation) pendingToolUses() ([]string, error) {
	if len(c.Messages) == 0 {
		return nil, errors.New("llmtest: ToolResult on an empty history")
	}
	var last struct {
		Role    string `json:"role"`
		Content []struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		} `json:"content"`
	}
	if err := json.Unmarshal(c.Messages[len(c.Messages)-1], &last); err != nil || last.Role != "assistant" {
		return nil, errors.New("llmtest: ToolResult needs an assistant message last in the history")
	}
	var ids []string
	for _, b := range last.Content {
		if b.Type == "tool_use" {
			ids = append(ids, b.ID)
		}
	}
	if len(ids) == 0 {
		return nil, errors.New("llmtest: the last assistant message holds no tool_use")
	}
	return ids, nil
}

// Send posts the history as it is to /v1/messages?beta=true. On a 200 it
// appends the assistant message; a stream that carries an error event is
// reported in ErrorType and ErrorMessage and appends nothing. A non-200 is
// not an error: the Turn says what happened. Transport failures and
// malformed responses are, returned with the Turn when one was read.
func (c *Conversation) Send() (*Turn, error) {
	turn, err := c.post("/v1/messages?beta=true", c.body(true))
	if err != nil || turn.Status != http.StatusOK {
		return turn, err
	}
	var content []byte
	if strings.HasPrefix(turn.Header.Get("Content-Type"), "text/event-stream") {
		m, err := claudecode.Assemble(turn.Body)
		if err != nil {
			return turn, fmt.Errorf("llmtest: stream from %s: %w", c.BaseURL, err)
		}
		if m.ErrorType != "" {
			turn.ErrorType, turn.ErrorMessage = m.ErrorType, m.ErrorMessage
			return turn, nil
		}
		content, turn.StopReason, turn.Model = m.Content, m.StopReason, m.Model
	} else {
		var m struct {
			Model      string          `json:"model"`
			Content    json.RawMessage `json:"content"`
			StopReason string          `json:"stop_reason"`
		}
		if err := json.Unmarshal(turn.Body, &m); err != nil {
			return turn, fmt.Errorf("llmtest: message from %s: %w", c.BaseURL, err)
		}
		if content, err = claudecode.Stringify(m.Content); err != nil {
			return turn, fmt.Errorf("llmtest: content from %s: %w", c.BaseURL, err)
		}
		turn.StopReason, turn.Model = m.StopReason, m.Model
	}
	msg := append([]byte(`{"role":"assistant","content":`), content...)
	turn.Message = append(msg, '}')
	c.Messages = append(c.Messages, turn.Message)
	c.record(len(c.Messages)-1, turn.Model)
	return turn, nil
}

// CountTokens posts the body Send would post, less "stream", to
// /v1/messages/count_tokens?beta=true. The history is not changed.
func (c *Conversation) CountTokens() (*Turn, error) {
	return c.post("/v1/messages/count_tokens?beta=true", c.body(false))
}

// Body returns the JSON body the next Send would post.
func (c *Conversation) Body() []byte {
	return c.body(true)
}

func (c *Conversation) post(path string, body []byte) (*Turn, error) {
	client := c.Client
	if client == nil {
		client = defaultClient
	}
	return roundTrip(client, strings.TrimSuffix(c.BaseURL, "/")+path, body, func(h http.Header) {
		session := c.SessionID
		if c.Anonymous {
			session = ""
		}
		setClaudeCodeHeaders(h, session, c.AgentID, c.Header)
	}, c.OnFirstByte)
}

// body builds the request with Claude Code's key order; withStream adds the
// "stream" key.
func (c *Conversation) body(withStream bool) []byte {
	model, mode := c.Model, c.Thinking
	if model == "" {
		model = defaultModel
	}
	if mode == "" {
		mode = "enabled"
	}
	b := claudecode.AppendString([]byte(`{"model":`), model)
	b = append(b, `,"messages":[`...)
	for i, m := range c.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		if c.ModelBoundThinking && c.answeredByOther(i, model) {
			m = withoutThinking(m)
		}
		if c.CacheMark && i == len(c.Messages)-1 {
			m = withCacheMark(m)
		}
		b = append(b, m...)
	}
	b = append(b, `],"system":`+claudeCodeSystem+`,"tools":`+claudeCodeTools...)
	if !c.Anonymous {
		b = claudecode.AppendString(append(b, `,"metadata":{"user_id":`...), userID(c.SessionID))
		b = append(b, '}')
	}
	b = append(b, `,"max_tokens":`+claudeCodeMaxTokens+`,"thinking":`...)
	b = append(b, thinkingConfig(mode, c.ShowThinking)...)
	if mode == "enabled" || mode == "adaptive" {
		b = append(b, `,"context_management":`+claudeCodeContextManagement...)
	}
	if mode == "adaptive" {
		b = append(b, `,"output_config":{"effort":"high"}`...)
	}
	if withStream {
		b = append(b, `,"stream":`...)
		b = append(b, fmt.Sprint(c.Stream)...)
	}
	return append(b, '}')
}
