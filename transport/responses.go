package transport

import (
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/responses"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

func init() {
	caddy.RegisterModule(Responses{})
}

// Responses is a reverse_proxy transport that speaks OpenAI's Responses
// API to the upstream (api.openai.com, or vLLM, Ollama, LM Studio,
// OpenRouter) and the Anthropic Messages API to the client: a request to
// …/v1/messages goes to …/v1/responses with store false, translated (see
// package responses), and the answer comes back as a Messages answer
// under the model the client asked for, each reasoning item a thinking
// block whose signature carries the item's id and encrypted content in
// the gateway's envelope, so that the client's history brings it back. A
// request to …/v1/messages/count_tokens is answered by the transport
// itself with an estimate. Every other request passes as with the http
// transport, whose options all apply.
type Responses struct {
	reverseproxy.HTTPTransport

	// Models maps the models clients ask for to the ones the upstream
	// serves ({"match":"claude-*","model":"gpt-5"}); the first that
	// matches wins, and other models go as sent.
	Models Models `json:"models,omitempty"`

	// APIKey is the key the upstream gets as a bearer token, placeholders
	// allowed ("{env.OPENAI_API_KEY}"); without it, the client's
	// x-api-key, or its bearer token.
	APIKey string `json:"api_key,omitempty"`

	// ReasoningSummary is the summary asked for when a request thinks:
	// auto (default), concise, detailed, or none (thinking blocks then
	// have no text; the reasoning is still carried, encrypted). An
	// organization OpenAI has not verified is refused summaries: none
	// avoids even the first refusal, which llm_thinking otherwise absorbs
	// and learns (no_reasoning_summary), and a backend_profile can declare.
	ReasoningSummary string `json:"reasoning_summary,omitempty"`

	// MaxTokens, when set, caps the max_tokens a request asks for; no
	// fewer than 16, the least max_output_tokens the API takes (a request
	// that asks for fewer gets 16).
	MaxTokens int `json:"max_tokens,omitempty"`

	// SigningKey, when set, is the secret the envelopes of reasoning items
	// are sealed with, placeholders allowed; unset, a key the transports
	// keep in Caddy's storage (made on first use), which replicas that
	// share the storage share.
	SigningKey string `json:"signing_key,omitempty"`

	// MaxResponseSize bounds a JSON answer held to be translated (default
	// 8 MiB); a larger one is an error. Streams are never held.
	MaxResponseSize int64 `json:"max_response_size,omitempty"`

	base
	key *envelope.Key
}

// CaddyModule returns the Caddy module information.
func (Responses) CaddyModule() caddy.ModuleInfo {
	return moduleInfo("responses", func() caddy.Module { return new(Responses) })
}

// Provision sets up the http transport, reads the options and gets the
// signing key.
func (t *Responses) Provision(ctx caddy.Context) error {
	return t.provision(ctx, "transport responses", t, &t.HTTPTransport, &t.MaxResponseSize, func() (err error) {
		t.key, err = signingKey(ctx, t.SigningKey)
		return err
	})
}

// Cleanup lets go of the memory budget and the http transport's
// connections.
func (t *Responses) Cleanup() error { return t.cleanup(t, &t.HTTPTransport) }

// Validate checks the options.
func (t *Responses) Validate() error {
	return checkOptions("transport responses", t.Models, t.MaxTokens, t.MaxResponseSize, func() error {
		if t.MaxTokens > 0 && t.MaxTokens < responses.MinOutputTokens {
			return fmt.Errorf("transport responses: max_tokens %d: the Responses API takes no fewer than %d", t.MaxTokens, responses.MinOutputTokens)
		}
		switch t.ReasoningSummary {
		case "", responses.SummaryAuto, responses.SummaryConcise, responses.SummaryDetailed, responses.SummaryNone:
			return nil
		}
		return fmt.Errorf("transport responses: reasoning_summary %q: want auto, concise, detailed or none", t.ReasoningSummary)
	})
}

// RoundTrip translates a Messages request, sends it and translates the
// answer; any other request goes as the http transport sends it.
func (t *Responses) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.serve(req, &t.HTTPTransport, t.Models, t.MaxResponseSize, func() dialect { return &responsesRound{signedRound: signedBy(&responsesAnswers), t: t} })
}

// responsesRound is one Messages request through transport responses.
type responsesRound struct {
	signedRound
	t *Responses
}

func (r *responsesRound) translate(src source) (body []byte, err error) {
	r.signer = responses.NewSigner(r.t.key, src.host)
	summary := r.t.ReasoningSummary
	if src.handoff.Facts&registry.NoReasoningSummary != 0 {
		// An organization that is not verified is refused any summary;
		// the reasoning itself still comes, encrypted, and goes back.
		summary = responses.SummaryNone
	}
	r.tr, err = responses.TranslateRequest(src.body, responses.RequestOptions{Model: src.model, Signer: r.signer,
		Summary: summary, MaxTokens: r.t.MaxTokens, ThinkingOff: src.handoff.ThinkingOff, Grow: src.grow, Hold: src.hold})
	return detach(&r.tr.Body), err
}

func (r *responsesRound) prepare(out *http.Request, prefix string) {
	out.URL.Path = prefix + "/v1/responses"
	out.URL.RawPath, out.URL.RawQuery = "", ""
	if key := apiHeaders(out, r.t.APIKey, r.tr.Stream); key != "" {
		out.Header.Set("Authorization", "Bearer "+key)
	}
}

// UnmarshalCaddyfile reads the transport's block: every `transport http`
// subdirective, and
//
//	transport responses {
//	    model <pattern> <model>     # repeatable, first match wins
//	    api_key <key>               # placeholders allowed
//	    reasoning_summary auto|concise|detailed|none   # none: an unverified organization
//	    max_tokens <n>              # 16 or more
//	    signing_key <secret>        # placeholders allowed
//	    max_response_size <size>
//	}
func (t *Responses) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return unmarshal(d, &t.HTTPTransport, subdirectives{
		"model": &t.Models, "api_key": &t.APIKey, "reasoning_summary": &t.ReasoningSummary,
		"max_tokens": &t.MaxTokens, "signing_key": &t.SigningKey,
		"max_response_size": &t.MaxResponseSize,
	})
}

// Interface guards
var _ reverseProxyTransport = (*Responses)(nil)
