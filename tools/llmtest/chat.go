package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// ChatFlavor is the kind of OpenAI-compatible chat-completions server a
// ChatUpstream plays: where its reasoning is, and what it demands back.
type ChatFlavor int

const (
	// DeepSeekStyle answers reasoning in reasoning_content and, like the
	// DeepSeek API, refuses a request whose assistant message with
	// tool_calls lacks reasoning_content, with its exact 400.
	DeepSeekStyle ChatFlavor = iota + 1
	// VLLMStyle answers reasoning in reasoning (vLLM since the rename,
	// Ollama) and reads reasoning or reasoning_content back.
	VLLMStyle
	// ThinkTagged writes its reasoning into content between <think> and
	// </think>, as the locally deployed GLM of seed 004 does, with
	// reasoning_content null.
	ThinkTagged
	// OpenRouterStyle answers reasoning in reasoning and, with the same
	// text, in reasoning_details.
	OpenRouterStyle
	// KimiStyle answers reasoning in reasoning_content and, like Kimi,
	// refuses an assistant message with tool_calls without it, in Kimi's
	// words; a blank one will do.
	KimiStyle
	// DeepSeekV4Style answers reasoning in reasoning_content and, like
	// DeepSeek V4, refuses any earlier assistant message without it, in
	// its words; a blank one will do.
	DeepSeekV4Style
	// OpenRouterGemini plays OpenRouter serving a Gemini 3 model: its
	// reasoning in reasoning and reasoning_details, Gemini's thought
	// signature as a reasoning.encrypted part of them, and OpenRouter's
	// refusal of a tool call sent back without it (see chat_openrouter.go).
	OpenRouterGemini
	// OpenAIStyle plays OpenAI's chat completions for its reasoning
	// models: no reasoning in the answer, and max_tokens refused for
	// gpt-5 and o-series models (see chat_rules.go).
	OpenAIStyle
	// KimiCodeStyle answers as KimiStyle and refuses reasoning_effort
	// "none", as Kimi Code does (see chat_rules.go).
	KimiCodeStyle
)

// ChatFlavors are every flavor, for tests that run each.
var ChatFlavors = []ChatFlavor{DeepSeekStyle, VLLMStyle, ThinkTagged, OpenRouterStyle}

// Reasoning returns the `reasoning` option of transport openai that gives
// the flavor's server its reasoning back where it reads it.
func (f ChatFlavor) Reasoning() string {
	switch f {
	case VLLMStyle:
		return "reasoning"
	case ThinkTagged:
		return "think_tags"
	case OpenRouterStyle, OpenRouterGemini:
		return "reasoning_details"
	case OpenAIStyle:
		return "none"
	}
	return "reasoning_content"
}

// String returns the flavor's name.
func (f ChatFlavor) String() string {
	switch f {
	case DeepSeekStyle:
		return "DeepSeekStyle"
	case VLLMStyle:
		return "VLLMStyle"
	case ThinkTagged:
		return "ThinkTagged"
	case OpenRouterStyle:
		return "OpenRouterStyle"
	case KimiStyle:
		return "KimiStyle"
	case DeepSeekV4Style:
		return "DeepSeekV4Style"
	case OpenRouterGemini:
		return "OpenRouterGemini"
	case OpenAIStyle:
		return "OpenAIStyle"
	case KimiCodeStyle:
		return "KimiCodeStyle"
	}
	return fmt.Sprintf("ChatFlavor(%d)", int(f))
}

// ChatUpstream is a mock OpenAI-compatible server on 127.0.0.1 that
// answers POST /v1/chat/completions, streamed or not, and validates like
// the real ones: unknown request fields (every field only the Messages API
// defines) are refused, every tool call must be answered by tool messages
// right after it, a tool message must answer a call, the bearer key must
// match when one is set, and reasoning sent back must be its own (or the
// placeholder for a call it did not make). Errors use the OpenAI envelope.
// Replies are scripted like Upstream's: "[tool]" in the last message's text
// asks for a Bash tool call, "[read <path>]" for a call of Claude Code's
// Read tool on that file, anything else gets "{name} answer {n}.", each
// after the reasoning "{name} reasoning {n}.". It is safe for concurrent
// use.
type ChatUpstream struct {
	mock
	name   string
	flavor ChatFlavor

	// Guarded by mu.
	responses int
	reasoning map[string]bool // reasoning texts it answered
	observe   func(Received)
	// signatures are the thought signatures an OpenRouterGemini issued,
	// with the call each was issued for ("" for an answer without one);
	// issuedDetails the reasoning_details of each answer, part by part
	// (see canonicalJSON).
	signatures    map[string]string
	issuedDetails [][]string
}

// scriptedFailure is an error the next request gets.
type scriptedFailure struct {
	status int
	body   string
}

// NewChatUpstream starts a mock chat-completions server of flavor f; name
// appears in its ids and texts. Close it when done.
func NewChatUpstream(name string, f ChatFlavor) *ChatUpstream {
	u := &ChatUpstream{name: name, flavor: f, reasoning: make(map[string]bool), signatures: make(map[string]string)}
	u.start(u.serveHTTP)
	return u
}

// OnAnswered calls f with every request, and the answer it got, once
// answered; a program that runs the mock uses it to show what arrived.
func (u *ChatUpstream) OnAnswered(f func(Received)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.observe = f
}

// answered passes a request, answered now, to the observer.
func (u *ChatUpstream) answered(rec *Received) {
	u.mu.Lock()
	f := u.observe
	var r Received
	if f != nil {
		r = rec.clone()
	}
	u.mu.Unlock()
	if f != nil {
		f(r)
	}
}

// Reasoning returns the reasoning of the n-th answer (from 1).
func (u *ChatUpstream) Reasoning(n int) string { return fmt.Sprintf("%s reasoning %d.", u.name, n) }

func (u *ChatUpstream) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body := readUpload(r)
	rec, failure, key, model := u.receive(r, body)
	defer u.answered(rec)
	reply := func(status int, ctype string, b []byte) { u.reply(w, rec, status, ctype, b) }
	fail := func(status int, typ, msg string) {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
		u.mu.Lock()
		rec.ErrorMessage = msg
		u.mu.Unlock()
		reply(status, "application/json", b)
	}
	switch {
	case r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions":
		fail(http.StatusNotFound, "invalid_request_error", "Unknown request URL: "+r.Method+" "+r.URL.Path)
		return
	case failure != nil:
		reply(failure.status, "application/json", []byte(failure.body))
		return
	case key != "" && r.Header.Get("Authorization") != "Bearer "+key:
		fail(http.StatusUnauthorized, "invalid_request_error", "Incorrect API key provided.")
		return
	}
	req, msg := parseChatRequest(body)
	if msg == "" {
		msg = u.violation(req)
	}
	if msg != "" {
		fail(http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	if ref := u.refusal(req); ref != nil {
		u.mu.Lock()
		rec.ErrorMessage = ref.message
		u.mu.Unlock()
		reply(ref.status, "application/json", ref.body)
		return
	}
	if model != "" && req.Model != model {
		fail(http.StatusNotFound, "not_found_error", fmt.Sprintf("model %q not found", req.Model))
		return
	}
	u.mu.Lock()
	u.responses++
	rep := u.compose(req, u.responses)
	u.reasoning[rep.reasoning] = true
	u.issue(rep, req.Stream)
	u.mu.Unlock()
	if req.Stream {
		u.stream(w, rec, rep, req.StreamOptions.IncludeUsage)
		return
	}
	reply(http.StatusOK, "application/json", rep.json())
}

// refusal returns the refusal of a request the flavor's server refuses
// for its parameters or the reasoning it brings back, in that server's
// envelope, or nil.
func (u *ChatUpstream) refusal(req *chatRequest) *chatRefusal {
	if r := u.paramRefusal(req); r != nil {
		return r
	}
	return u.detailsRefusal(req)
}
