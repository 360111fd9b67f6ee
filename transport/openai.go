package transport

import (
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/chatcompletions"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/option"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

func init() {
	caddy.RegisterModule(OpenAI{})
}

// OpenAI is a reverse_proxy transport that speaks the OpenAI
// chat-completions API to the upstream and the Anthropic Messages API to
// the client: a request to …/v1/messages goes to …/v1/chat/completions
// translated, and the answer, streamed or not, comes back as a Messages
// answer, with the server's reasoning as a thinking block before the text.
// A request to …/v1/messages/count_tokens is answered by the transport
// itself with an estimate. Every other request passes as with the http
// transport, whose options all apply.
type OpenAI struct {
	reverseproxy.HTTPTransport

	// Models maps the models clients ask for to the ones the server serves
	// ({"match":"claude-*","model":"Qwen/Qwen3-32B"}); the first that
	// matches wins, and other models go as sent.
	Models Models `json:"models,omitempty"`

	// Reasoning says where the server wants its reasoning back on later
	// requests: "reasoning_content" (default: DeepSeek, Kimi, GLM, SGLang,
	// llama.cpp), "reasoning" (newer vLLM, Ollama, OpenRouter),
	// "reasoning_details" (OpenRouter's array: every part goes back as it
	// came, sealed in the envelope of its thinking block), "think_tags" (in
	// front of the content, for models that write tags) or "none". With a
	// field, every assistant message with tool calls carries it, a filler
	// written from the message when it has no reasoning, as DeepSeek and
	// Kimi demand.
	Reasoning string `json:"reasoning,omitempty"`

	// ThinkingSwitch says how a request's thinking on or off reaches the
	// server: "none" (default: the server's default), "reasoning_effort",
	// "chat_template_kwargs" (enable_thinking and thinking) or "thinking"
	// (DeepSeek's and Kimi's {"type":"enabled"}).
	ThinkingSwitch string `json:"thinking_switch,omitempty"`

	// ThinkTags says how <think> tags in the content are read, in the
	// words of llm_thinking's think_tags: "on" (default: content that
	// opens with <think> starts with reasoning), "open" (the model omits
	// the opening tag, DeepSeek-R1 style: the content starts inside the
	// section) or "off" (tags are text). The default differs from the
	// handler's, which reads tags in any backend's text: a chat server's
	// content is where such servers put their reasoning.
	ThinkTags string `json:"think_tags,omitempty"`

	// MaxTokens, when set, caps the max_tokens a request asks for: Claude
	// Code asks for 32000, more than some local servers' context holds.
	MaxTokens int `json:"max_tokens,omitempty"`

	// MaxTokensField names the field the output cap goes in:
	// "max_tokens" (default) or "max_completion_tokens", which OpenAI's
	// reasoning models (gpt-5, the o-series) demand. Behind llm_thinking,
	// a server's refusal of max_tokens is learned (the fact
	// max_completion_tokens), and the cap goes under the other name from
	// then on; this option saves that first refusal.
	MaxTokensField string `json:"max_tokens_field,omitempty"`

	// MaxResponseSize bounds a JSON answer held to be translated (default
	// 8 MiB; in the Caddyfile a size such as 8MiB); a larger one is an
	// error. Streams are never held.
	MaxResponseSize int64 `json:"max_response_size,omitempty"`

	// SigningKey, with reasoning "reasoning_details", is the secret the
	// envelopes of the server's reasoning_details parts are sealed with,
	// placeholders allowed; unset, the key kept in Caddy's storage that
	// transports gemini and responses use.
	SigningKey string `json:"signing_key,omitempty"`

	base
	key       *envelope.Key
	reasoning chatcompletions.Reasoning
	thinking  chatcompletions.ThinkingSwitch
}

// CaddyModule returns the Caddy module information.
func (OpenAI) CaddyModule() caddy.ModuleInfo {
	return moduleInfo("openai", func() caddy.Module { return new(OpenAI) })
}

// Provision sets up the http transport and reads the options.
func (t *OpenAI) Provision(ctx caddy.Context) error {
	return t.provision(ctx, "transport openai", t, &t.HTTPTransport, &t.MaxResponseSize, func() (err error) {
		t.reasoning, _ = chatcompletions.ParseReasoning(t.Reasoning)
		t.thinking, _ = chatcompletions.ParseThinkingSwitch(t.ThinkingSwitch)
		if t.reasoning == chatcompletions.ReasoningDetails {
			t.key, err = signingKey(ctx, t.SigningKey)
		}
		return err
	})
}

// details returns the Signer of the envelopes of upstream's
// reasoning_details parts: the zero Signer, which carries none, unless
// the server wants them back.
func (t *OpenAI) details(upstream string) envelope.Signer {
	if t.key == nil {
		return envelope.Signer{}
	}
	return chatcompletions.NewDetailsSigner(t.key, upstream)
}

// Cleanup lets go of the memory budget and the http transport's
// connections.
func (t *OpenAI) Cleanup() error { return t.cleanup(t, &t.HTTPTransport) }

// Validate checks the options.
func (t *OpenAI) Validate() error {
	if _, err := chatcompletions.ParseReasoning(t.Reasoning); err != nil {
		return fmt.Errorf("transport openai: %w", err)
	}
	if _, err := chatcompletions.ParseThinkingSwitch(t.ThinkingSwitch); err != nil {
		return fmt.Errorf("transport openai: %w", err)
	}
	if err := option.OneOf("think_tags", t.ThinkTags, "off", "on", "open"); err != nil {
		return fmt.Errorf("transport openai: %w", err)
	}
	if err := option.OneOf("max_tokens_field", t.MaxTokensField, "max_tokens", "max_completion_tokens"); err != nil {
		return fmt.Errorf("transport openai: %w", err)
	}
	if t.MaxTokens < 0 || t.MaxResponseSize < 0 {
		return fmt.Errorf("transport openai: max_tokens and max_response_size cannot be negative")
	}
	if err := t.Models.Check(); err != nil {
		return fmt.Errorf("transport openai: %w", err)
	}
	return nil
}

// RoundTrip translates a Messages request, sends it and translates the
// answer; any other request goes as the http transport sends it.
func (t *OpenAI) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.serve(req, &t.HTTPTransport, t.Models, t.MaxResponseSize, func() dialect { return &chatRound{t: t} })
}

// chatRound is one Messages request through transport openai.
type chatRound struct {
	t        *OpenAI
	tr       chatcompletions.Translated
	upstream string
}

func (c *chatRound) translate(src source) (body []byte, err error) {
	t, facts := c.t, src.handoff.Facts
	c.tr, err = chatcompletions.TranslateRequest(src.body, chatcompletions.RequestOptions{
		Model: src.model, Reasoning: t.reasoning, ThinkingSwitch: t.thinking, MaxTokens: t.MaxTokens,
		MaxCompletionTokens: t.MaxTokensField == "max_completion_tokens" || facts&registry.MaxCompletionTokens != 0,
		AlwaysThinks:        facts&registry.AlwaysThinks != 0,
		ThinkingOff:         src.handoff.ThinkingOff, Details: t.details(src.host), Grow: src.grow, Hold: src.hold})
	c.upstream = src.host
	return detach(&c.tr.Body), err
}

func (c *chatRound) prepare(out *http.Request, prefix string) {
	out.URL.Path, out.URL.RawPath = prefix+"/v1/chat/completions", ""
	out.URL.RawQuery = withoutBeta(out.URL.Query())
	chatHeaders(out.Header, c.tr.Stream)
}

func (c *chatRound) errorBody(status int, body []byte) []byte {
	return chatcompletions.ErrorBody(status, body)
}

func (c *chatRound) options() chatcompletions.AnswerOptions {
	return chatcompletions.AnswerOptions{Model: c.tr.Model, ToolNames: c.tr.ToolNames, AssumeOpen: c.t.ThinkTags == "open",
		NoTags: c.t.ThinkTags == "off", InputTokens: c.tr.InputTokens, Sign: chatcompletions.DefaultSign(c.upstream),
		Details: c.t.details(c.upstream)}
}

func (c *chatRound) stream(resp *http.Response) messagesapi.Translator {
	if messagesapi.MediaType(resp.Header) != messagesapi.EventStream {
		return nil
	}
	return chatcompletions.NewStream(c.options())
}

func (c *chatRound) answer(b []byte) ([]byte, error) {
	return chatcompletions.TranslateAnswer(b, c.options())
}

// UnmarshalCaddyfile reads the transport's block: every `transport http`
// subdirective, and
//
//	transport openai {
//	    model <pattern> <model>     # repeatable, first match wins
//	    reasoning reasoning_content|reasoning|reasoning_details|think_tags|none
//	    thinking_switch none|reasoning_effort|chat_template_kwargs|thinking
//	    think_tags off|on|open
//	    max_tokens <n>
//	    max_tokens_field max_tokens|max_completion_tokens
//	    max_response_size <size>
//	    signing_key <secret>        # placeholders allowed; for reasoning_details
//	}
func (t *OpenAI) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return unmarshal(d, &t.HTTPTransport, subdirectives{
		"model": &t.Models, "reasoning": &t.Reasoning, "thinking_switch": &t.ThinkingSwitch,
		"think_tags": &t.ThinkTags, "max_tokens": &t.MaxTokens,
		"max_tokens_field": &t.MaxTokensField, "max_response_size": &t.MaxResponseSize,
		"signing_key": &t.SigningKey,
	})
}

// Interface guards
var _ reverseProxyTransport = (*OpenAI)(nil)
