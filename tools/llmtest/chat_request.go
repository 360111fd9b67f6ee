package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// chatRequest is a chat-completions request as a ChatUpstream reads it.
type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []chatMessage `json:"messages"`
	Stream        bool          `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens         json.RawMessage `json:"max_tokens"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	ParallelToolCalls *bool           `json:"parallel_tool_calls"`
	ReasoningEffort   *string         `json:"reasoning_effort"`
	Tools             []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// chatMessage is one message of a chat-completions request.
type chatMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ToolCalls        []chatToolCall  `json:"tool_calls"`
	ToolCallID       string          `json:"tool_call_id"`
	ReasoningContent *string         `json:"reasoning_content"`
	Reasoning        *string         `json:"reasoning"`
	raw              map[string]json.RawMessage
}

type chatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// chatFields are the request fields the servers know; anything else (every
// field only the Messages API defines) is refused, as OpenAI refuses it.
var chatFields = map[string]bool{
	"model": true, "messages": true, "max_tokens": true, "max_completion_tokens": true, "temperature": true,
	"top_p": true, "stop": true, "user": true, "tools": true, "tool_choice": true, "parallel_tool_calls": true,
	"stream": true, "stream_options": true, "reasoning_effort": true, "chat_template_kwargs": true,
}

// chatMessageFields are the fields a message may carry.
var chatMessageFields = map[string]bool{
	"role": true, "content": true, "tool_calls": true, "tool_call_id": true, "name": true,
	"reasoning_content": true, "reasoning": true, "reasoning_details": true,
}

// parseChatRequest parses a body and checks its shape; it returns the
// message of the 400 to answer, or "".
func parseChatRequest(body []byte) (*chatRequest, string) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, "We could not parse the JSON body of your request."
	}
	for k := range top {
		if !chatFields[k] {
			return nil, "Unrecognized request argument supplied: " + k
		}
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, "Invalid request: " + err.Error()
	}
	if req.Model == "" || len(req.Messages) == 0 {
		return nil, "you must provide a model parameter and at least one message"
	}
	var raws []map[string]json.RawMessage
	if err := json.Unmarshal(top["messages"], &raws); err != nil {
		return nil, "Invalid messages: " + err.Error()
	}
	for i := range req.Messages {
		req.Messages[i].raw = raws[i]
		for k := range raws[i] {
			if !chatMessageFields[k] {
				return nil, fmt.Sprintf("messages[%d]: Extra inputs are not permitted: %s", i, k)
			}
		}
		if msg := checkContent(i, req.Messages[i]); msg != "" {
			return nil, msg
		}
	}
	return &req, ""
}

// checkContent checks a message's content: a string, null on an
// assistant message with tool calls, or text, image_url and file parts.
func checkContent(i int, m chatMessage) string {
	c := bytes.TrimSpace(m.Content)
	switch {
	case len(c) == 0 || string(c) == "null":
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			return ""
		}
		return fmt.Sprintf("messages[%d]: content is required", i)
	case c[0] == '"':
		return ""
	case c[0] != '[':
		return fmt.Sprintf("messages[%d]: content must be a string or an array of parts", i)
	}
	var parts []map[string]json.RawMessage
	if err := json.Unmarshal(c, &parts); err != nil {
		return fmt.Sprintf("messages[%d]: %v", i, err)
	}
	for j, p := range parts {
		var typ string
		json.Unmarshal(p["type"], &typ)
		switch typ {
		case "text", "image_url":
		case "file":
			// OpenAI's file part: a filename and the file as a data URL
			// (https://platform.openai.com/docs/guides/pdf-files), as
			// OpenRouter takes it too.
			var f struct {
				Filename string `json:"filename"`
				FileData string `json:"file_data"`
			}
			if json.Unmarshal(p["file"], &f) != nil || f.Filename == "" || !strings.HasPrefix(f.FileData, "data:") || !strings.Contains(f.FileData, ";base64,") {
				return fmt.Sprintf("messages[%d].content[%d].file: want a filename and file_data as a base64 data URL", i, j)
			}
		default:
			return fmt.Sprintf("messages[%d].content[%d]: unknown part type %q", i, j, typ)
		}
	}
	return ""
}

// violation applies the servers' rules on the conversation; it returns
// the message of the 400 to answer, or "".
func (u *ChatUpstream) violation(req *chatRequest) string {
	var pending []string
	for i, m := range req.Messages {
		if m.Role != "tool" && len(pending) > 0 {
			return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(pending, ", ")
		}
		switch m.Role {
		case "system":
			if i > 0 {
				// As Qwen3's chat template refuses it.
				return "System message must be at the beginning."
			}
		case "user":
		case "tool":
			k := indexOf(pending, m.ToolCallID)
			if k < 0 {
				return "Messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
			}
			pending = append(pending[:k], pending[k+1:]...)
		case "assistant":
			for _, tc := range m.ToolCalls {
				if tc.Type != "function" || !json.Valid([]byte(tc.Function.Arguments)) {
					return fmt.Sprintf("messages[%d].tool_calls: invalid function call", i)
				}
				pending = append(pending, tc.ID)
			}
			if msg := u.reasoningBack(i, m, i == len(req.Messages)-1); msg != "" {
				return msg
			}
		default:
			return fmt.Sprintf("messages[%d]: unknown role %q", i, m.Role)
		}
	}
	if len(pending) > 0 {
		return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(pending, ", ")
	}
	return ""
}

// fillerHead starts the filler transport openai gives a message without
// the server's reasoning (see chatcompletions' filler.go): the mock takes
// it for what it is, a placeholder, not another backend's reasoning.
const fillerHead = "Step without its reasoning: "

// reasoningBack checks the reasoning an assistant message (the last one,
// a prefill, when last is set) brings back: the rules of DeepSeek and Kimi,
// and that it is this server's own, a blank placeholder or a filler.
func (u *ChatUpstream) reasoningBack(i int, m chatMessage, last bool) string {
	missing := m.ReasoningContent == nil
	switch {
	case u.flavor == DeepSeekStyle && len(m.ToolCalls) > 0 && missing:
		return fmt.Sprintf("Missing `reasoning_content` field in the assistant message at message index %d", i)
	case (u.flavor == KimiStyle || u.flavor == KimiCodeStyle) && len(m.ToolCalls) > 0 && missing:
		return fmt.Sprintf("thinking is enabled but reasoning_content is missing in assistant tool call message at index %d", i)
	case u.flavor == DeepSeekV4Style && !last && missing:
		return "The `reasoning_content` in the thinking mode must be passed back to the API."
	}
	for _, r := range []*string{m.ReasoningContent, m.Reasoning} {
		if r == nil || strings.TrimSpace(*r) == "" || strings.HasPrefix(*r, fillerHead) {
			continue
		}
		u.mu.Lock()
		own := u.reasoning[*r]
		u.mu.Unlock()
		if !own {
			return fmt.Sprintf("messages[%d]: reasoning this server never produced: %q", i, *r)
		}
	}
	return ""
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// lastText returns the text of the last message that is not a system
// message.
func (r *chatRequest) lastText() string {
	m := r.Messages[len(r.Messages)-1]
	for i := len(r.Messages) - 1; i >= 0 && m.Role == "system"; i-- {
		m = r.Messages[i]
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}
