package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// chatReply is what a ChatUpstream answers.
type chatReply struct {
	flavor    ChatFlavor
	id, model string
	reasoning string
	text      string // "" for a tool call
	call      chatToolCall
	prompt    int
	sig       string // an OpenRouterGemini's thought signature
}

func (u *ChatUpstream) compose(req *chatRequest, n int) chatReply {
	rep := chatReply{flavor: u.flavor, id: fmt.Sprintf("chatcmpl-%s-%d", u.name, n), model: req.Model,
		reasoning: u.Reasoning(n), prompt: 100 + 10*len(req.Messages)}
	if u.flavor == OpenRouterGemini {
		rep.sig = newSignature()
	}
	if path, ok := readPath(req.lastText()); ok && req.hasTool("Read") {
		rep.call = chatToolCall{ID: fmt.Sprintf("call_%s_%d", u.name, n), Type: "function"}
		rep.call.Function.Name = "Read"
		args, _ := json.Marshal(map[string]string{"file_path": path})
		rep.call.Function.Arguments = string(args)
		return rep
	}
	if strings.Contains(req.lastText(), "[tool]") && len(req.Tools) > 0 {
		rep.call.ID = fmt.Sprintf("call_%s_%d", u.name, n)
		rep.call.Type = "function"
		// Claude Code offers many tools: Bash when it is one.
		rep.call.Function.Name = req.Tools[0].Function.Name
		for _, t := range req.Tools {
			if t.Function.Name == "Bash" {
				rep.call.Function.Name = "Bash"
			}
		}
		rep.call.Function.Arguments = fmt.Sprintf(`{"command":"echo %s"}`, u.name)
		return rep
	}
	rep.text = fmt.Sprintf("%s answer %d.", u.name, n)
	return rep
}

func (r chatReply) finish() string {
	if r.text == "" {
		return "tool_calls"
	}
	return "stop"
}

// message returns the answer's message object.
func (r chatReply) message() map[string]any {
	m := map[string]any{"role": "assistant", "content": r.text}
	switch r.flavor {
	case DeepSeekStyle, KimiCodeStyle:
		m["reasoning_content"] = r.reasoning
	case VLLMStyle:
		m["reasoning"] = r.reasoning
	case ThinkTagged:
		m["content"] = "<think>\n" + r.reasoning + "\n</think>\n\n" + r.text
		m["reasoning_content"] = nil
	case OpenRouterStyle, OpenRouterGemini:
		m["reasoning"] = r.reasoning
		m["reasoning_details"] = r.details(false)
	}
	if r.text == "" {
		if r.flavor != ThinkTagged {
			m["content"] = nil
		}
		m["tool_calls"] = []chatToolCall{r.call}
	}
	return m
}

func (r chatReply) usage() map[string]any {
	return map[string]any{"prompt_tokens": r.prompt, "completion_tokens": 20, "total_tokens": r.prompt + 20,
		"prompt_tokens_details": map[string]any{"cached_tokens": 40}}
}

// json returns the whole answer.
func (r chatReply) json() []byte {
	b, _ := json.Marshal(map[string]any{"id": r.id, "object": "chat.completion", "created": 1, "model": r.model,
		"choices": []any{map[string]any{"index": 0, "message": r.message(), "finish_reason": r.finish()}}, "usage": r.usage()})
	return b
}

// deltas returns the answer as the deltas of a stream: reasoning and text
// in pieces of a few characters, tool arguments in fragments.
func (r chatReply) deltas() []map[string]any {
	out := []map[string]any{{"role": "assistant", "content": ""}}
	for _, p := range pieces(r.reasoning, 7) {
		switch r.flavor {
		case DeepSeekStyle, KimiCodeStyle:
			out = append(out, map[string]any{"reasoning_content": p, "content": nil})
		case VLLMStyle:
			out = append(out, map[string]any{"reasoning": p})
		case OpenRouterStyle, OpenRouterGemini:
			part := r.details(true)[0]
			part["text"] = p
			out = append(out, map[string]any{"reasoning": p, "reasoning_details": []any{part}})
		}
	}
	// Gemini's signature of a call comes in a chunk of its own before the
	// call, that of an answer without calls after its text.
	signature := map[string]any{"content": "", "role": "assistant", "reasoning": nil, "reasoning_details": []any{r.encryptedPart(true)}}
	if r.flavor == OpenRouterGemini && r.text == "" {
		out = append(out, signature)
	}
	if r.flavor == ThinkTagged {
		for _, p := range pieces("<think>\n"+r.reasoning+"\n</think>\n\n", 5) {
			out = append(out, map[string]any{"content": p, "reasoning_content": nil})
		}
	}
	for _, p := range pieces(r.text, 6) {
		out = append(out, map[string]any{"content": p})
	}
	if r.flavor == OpenRouterGemini && r.text != "" {
		out = append(out, signature)
	}
	if r.text == "" {
		first := map[string]any{"index": 0, "id": r.call.ID, "type": "function", "function": map[string]any{"name": r.call.Function.Name, "arguments": ""}}
		out = append(out, map[string]any{"tool_calls": []any{first}})
		for _, p := range pieces(r.call.Function.Arguments, 5) {
			out = append(out, map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": p}}}})
		}
	}
	return out
}

// pieces cuts s into pieces of n bytes, never inside a character.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && s[k]&0xC0 == 0x80 {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// stream writes the answer as a chat-completions event stream, one chunk
// per write and flush; the usage chunk comes after the finish reason when
// the request asked for it, then [DONE].
func (u *ChatUpstream) stream(w http.ResponseWriter, rec *Received, r chatReply, usage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	write := func(b []byte) { u.streamEvent(w, rec, b) }
	chunk := func(choices []any, extra map[string]any) {
		c := map[string]any{"id": r.id, "object": "chat.completion.chunk", "created": 1, "model": r.model, "choices": choices}
		for k, v := range extra {
			c[k] = v
		}
		b, _ := json.Marshal(c)
		write([]byte("data: " + string(b) + "\n\n"))
	}
	for _, d := range r.deltas() {
		chunk([]any{map[string]any{"index": 0, "delta": d, "finish_reason": nil}}, nil)
	}
	chunk([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": r.finish()}}, nil)
	if usage {
		chunk([]any{}, map[string]any{"usage": r.usage()})
	}
	write([]byte("data: [DONE]\n\n"))
}

// readPath returns the path of a "[read <path>]" in text: a request for a
// call of Claude Code's Read tool on that file.
func readPath(text string) (string, bool) {
	_, rest, ok := strings.Cut(text, "[read ")
	if !ok {
		return "", false
	}
	path, _, ok := strings.Cut(rest, "]")
	return path, ok && path != ""
}

// hasTool reports whether the request offers a tool of that name.
func (r *chatRequest) hasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}
