package llmtest

import (
	"encoding/json"
	"strings"
)

// request is what an Upstream reads from a Messages API body. Fields the mock
// does not understand are ignored, as a lenient backend would.
type request struct {
	model            string
	stream           bool
	thinkingType     string
	thinkingDisplay  string
	contextEditTypes []string
	messages         []message
	fields           []string // the top-level members
	// system, tools and rawMessages are as they came, for the prefix a
	// signature is bound to (see prefixes).
	system, tools json.RawMessage
	rawMessages   []json.RawMessage
	maxTokens     int
	budgetTokens  *int   // thinking.budget_tokens, nil when absent
	effort        string // output_config.effort
}

// message is one entry of the request's messages array. Content is either a
// string (text) or an array of blocks (blocks); anything else counts as empty.
type message struct {
	role     string
	isString bool
	text     string
	blocks   []block
}

// block is one content block, kept as its raw fields so that the presence of
// a key (a "signature" of "" versus none) can be told apart.
type block struct {
	typ    string
	fields map[string]json.RawMessage
}

// parseRequest decodes body, or returns the message of the 400 it deserves.
func parseRequest(body []byte) (*request, string) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, "There was an error parsing the body of your request: " + err.Error()
	}
	rawMessages, ok := top["messages"]
	if !ok {
		return nil, "messages: Field required"
	}
	var rawList []json.RawMessage
	if err := json.Unmarshal(rawMessages, &rawList); err != nil || rawList == nil {
		return nil, "messages: Input should be a valid list"
	}
	req := &request{}
	for k := range top {
		req.fields = append(req.fields, k)
	}
	req.system, req.tools, req.rawMessages = top["system"], top["tools"], rawList
	json.Unmarshal(top["max_tokens"], &req.maxTokens)
	var oc struct {
		Effort string `json:"effort"`
	}
	if json.Unmarshal(top["output_config"], &oc) == nil {
		req.effort = oc.Effort
	}
	json.Unmarshal(top["model"], &req.model)
	json.Unmarshal(top["stream"], &req.stream)
	var thinking struct {
		Type         string `json:"type"`
		Display      string `json:"display"`
		BudgetTokens *int   `json:"budget_tokens"`
	}
	if json.Unmarshal(top["thinking"], &thinking) == nil {
		req.thinkingType, req.thinkingDisplay, req.budgetTokens = thinking.Type, thinking.Display, thinking.BudgetTokens
	}
	var cm struct {
		Edits []struct {
			Type string `json:"type"`
		} `json:"edits"`
	}
	if json.Unmarshal(top["context_management"], &cm) == nil {
		for _, e := range cm.Edits {
			req.contextEditTypes = append(req.contextEditTypes, e.Type)
		}
	}
	for _, raw := range rawList {
		req.messages = append(req.messages, parseMessage(raw))
	}
	return req, ""
}

func parseMessage(raw json.RawMessage) message {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal(raw, &m)
	msg := message{role: m.Role}
	if json.Unmarshal(m.Content, &msg.text) == nil && len(m.Content) > 0 && m.Content[0] == '"' {
		msg.isString = true
		return msg
	}
	var rawBlocks []json.RawMessage
	if json.Unmarshal(m.Content, &rawBlocks) != nil {
		return msg
	}
	for _, rb := range rawBlocks {
		b := block{fields: map[string]json.RawMessage{}}
		json.Unmarshal(rb, &b.fields)
		b.typ, _ = b.str("type")
		msg.blocks = append(msg.blocks, b)
	}
	return msg
}

// thinkingOn reports whether the request asks for thinking at all.
func (r *request) thinkingOn() bool {
	return r.thinkingType == "enabled" || r.thinkingType == "adaptive"
}

// lastTurnMessage returns the index of the last user or assistant message,
// or -1. Claude Code appends a "system" message for some models; it is not
// part of the conversation's turns.
func lastTurnMessage(msgs []message) int {
	i := len(msgs) - 1
	for i >= 0 && msgs[i].role != "user" && msgs[i].role != "assistant" {
		i--
	}
	return i
}

// scriptText is the text of the last user or assistant message, which
// scripts the reply: its string content, its text blocks and its tool
// results.
func (r *request) scriptText() string {
	i := lastTurnMessage(r.messages)
	if i < 0 {
		return ""
	}
	last := r.messages[i]
	if last.isString {
		return last.text
	}
	var sb strings.Builder
	for _, b := range last.blocks {
		switch b.typ {
		case "text":
			s, _ := b.str("text")
			sb.WriteString(s)
		case "tool_result":
			var s string
			if json.Unmarshal(b.fields["content"], &s) == nil {
				sb.WriteString(s)
				break
			}
			var parts []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			json.Unmarshal(b.fields["content"], &parts)
			for _, p := range parts {
				if p.Type == "text" {
					sb.WriteString(p.Text)
				}
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

func (m message) empty() bool {
	if m.isString {
		return m.text == ""
	}
	return len(m.blocks) == 0
}

func (m message) hasToolResult() bool {
	for _, b := range m.blocks {
		if b.typ == "tool_result" {
			return true
		}
	}
	return false
}

// str returns the string value of key, and whether the key holds a string.
func (b block) str(key string) (string, bool) {
	raw, ok := b.fields[key]
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func (b block) has(key string) bool {
	_, ok := b.fields[key]
	return ok
}

func isThinking(typ string) bool {
	return typ == "thinking" || typ == "redacted_thinking"
}
