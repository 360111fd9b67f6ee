package transport

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/gemini"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

func init() {
	caddy.RegisterModule(Gemini{})
}

// Gemini is a reverse_proxy transport that speaks the Gemini API to the
// upstream (generativelanguage.googleapis.com, or a server of the same
// API) and the Anthropic Messages API to the client: a request to
// …/v1/messages goes to …/{api_version}/models/{model}:generateContent, or
// :streamGenerateContent?alt=sse for a stream, translated (see package
// gemini), and the answer comes back as a Messages answer under the model
// the client asked for, Gemini's thoughts as thinking blocks and its
// thought signatures in their envelopes, sealed with the gateway's key.
// An answer the model failed to produce (no content, finishReason
// MALFORMED_FUNCTION_CALL and the like) is asked for again once, before the
// client's first byte. A request to …/v1/messages/count_tokens is answered
// by the transport itself with an estimate. Every other request passes as
// with the http transport, whose options all apply.
type Gemini struct {
	reverseproxy.HTTPTransport

	// Models maps the models clients ask for to the ones Gemini serves
	// ({"match":"claude-*","model":"gemini-3-pro-preview"}); the first
	// that matches wins, and other models go as sent.
	Models Models `json:"models,omitempty"`

	// APIKey is the key Gemini gets (x-goog-api-key), placeholders
	// allowed ("{env.GEMINI_API_KEY}"); without it, the client's x-api-key,
	// or its bearer token.
	APIKey string `json:"api_key,omitempty"`

	// APIVersion is the version in the upstream's paths (default v1beta).
	APIVersion string `json:"api_version,omitempty"`

	// Thinking says how the models take a thinking config: "auto"
	// (default: by the model's name, gemini-1* and gemini-2* by a
	// budget, any other by a level, until the model refuses a level,
	// which is learned), "level" (thinkingLevel: Gemini 3) or "budget"
	// (thinkingBudget: Gemini 2.5, an alias that serves it such as
	// gemini-flash-latest, Gemma). With "budget", the media of tool
	// results follow the function responses rather than go inside them,
	// which only Gemini 3 takes.
	Thinking string `json:"thinking,omitempty"`

	// MaxTokens, when set, caps the max_tokens a request asks for, as the
	// other translating transports' option does; maxOutputTokens never
	// goes over 65535, which every Gemini model takes.
	MaxTokens int `json:"max_tokens,omitempty"`

	// SigningKey, when set, is the secret the envelopes of thought
	// signatures are sealed with, placeholders allowed; unset, a key the
	// transport keeps in Caddy's storage (made on first use), which
	// replicas that share the storage share.
	SigningKey string `json:"signing_key,omitempty"`

	// MaxResponseSize bounds a JSON answer held to be translated (default
	// 8 MiB); a larger one is an error. Streams are never held.
	MaxResponseSize int64 `json:"max_response_size,omitempty"`

	base
	key      *envelope.Key
	thinking gemini.Thinking
}

// CaddyModule returns the Caddy module information.
func (Gemini) CaddyModule() caddy.ModuleInfo {
	return moduleInfo("gemini", func() caddy.Module { return new(Gemini) })
}

// Provision sets up the http transport, reads the options and gets the
// signing key.
func (t *Gemini) Provision(ctx caddy.Context) error {
	return t.provision(ctx, "transport gemini", t, &t.HTTPTransport, &t.MaxResponseSize, func() (err error) {
		if t.APIVersion == "" {
			t.APIVersion = "v1beta"
		}
		t.thinking, _ = gemini.ParseThinking(t.Thinking)
		t.key, err = signingKey(ctx, t.SigningKey)
		return err
	})
}

// Cleanup lets go of the memory budget and the http transport's
// connections.
func (t *Gemini) Cleanup() error { return t.cleanup(t, &t.HTTPTransport) }

// Validate checks the options.
func (t *Gemini) Validate() error {
	return checkOptions("transport gemini", t.Models, t.MaxTokens, t.MaxResponseSize, func() error {
		if _, err := gemini.ParseThinking(t.Thinking); err != nil {
			return fmt.Errorf("transport gemini: %w", err)
		}
		if strings.ContainsAny(t.APIVersion, "/?#") {
			return fmt.Errorf("transport gemini: api_version %q: want a path segment such as v1beta", t.APIVersion)
		}
		return nil
	})
}

// RoundTrip translates a Messages request, sends it and translates the
// answer; any other request goes as the http transport sends it.
func (t *Gemini) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.serve(req, &t.HTTPTransport, t.Models, t.MaxResponseSize, func() dialect { return &geminiRound{signedRound: signedBy(&geminiAnswers), t: t} })
}

// geminiRound is one Messages request through transport gemini.
type geminiRound struct {
	signedRound
	t        *Gemini
	upstream string // the model the upstream gets, which the path names
}

func (g *geminiRound) translate(src source) ([]byte, error) {
	g.signer = gemini.NewSigner(g.t.key, src.host)
	thinking := g.t.thinking
	if thinking == gemini.ThinkingAuto && src.handoff.Facts&registry.NoThinkingLevel != 0 {
		// The model refused a level (learned, or declared in a
		// backend_profile): a budget, as for Gemini 2.5.
		thinking = gemini.ThinkingBudget
	}
	tr, err := gemini.TranslateRequest(src.body, gemini.RequestOptions{Model: src.model, Signer: g.signer,
		ThinkingOff: src.handoff.ThinkingOff, Thinking: thinking, MaxTokens: g.t.MaxTokens, Grow: src.grow, Hold: src.hold})
	g.tr, g.upstream = tr.Translated, tr.Upstream
	return detach(&g.tr.Body), err
}

func (g *geminiRound) prepare(out *http.Request, prefix string) {
	method := ":generateContent"
	out.URL.RawQuery = ""
	if g.tr.Stream {
		method, out.URL.RawQuery = ":streamGenerateContent", "alt=sse"
	}
	out.URL.Path = prefix + "/" + g.t.APIVersion + "/models/" + url.PathEscape(strings.TrimPrefix(g.upstream, "models/")) + method
	out.URL.RawPath = ""
	g.t.geminiHeaders(out, g.tr.Stream)
}

// retries: Gemini answers 200 with no answer when the model failed to
// produce one (see gemini.NoAnswer), and the same request usually gets one.
func (g *geminiRound) retries() bool { return true }

// geminiHeaders makes a Messages request's headers a Gemini request's:
// the key as x-goog-api-key (see apiHeaders).
func (t *Gemini) geminiHeaders(r *http.Request, stream bool) {
	if key := apiHeaders(r, t.APIKey, stream); key != "" {
		r.Header.Set("X-Goog-Api-Key", key)
	}
}

// UnmarshalCaddyfile reads the transport's block: every `transport http`
// subdirective, and
//
//	transport gemini {
//	    model <pattern> <model>     # repeatable, first match wins
//	    api_key <key>               # placeholders allowed
//	    api_version <version>
//	    thinking auto|level|budget  # how the models take a thinking config
//	    max_tokens <n>              # cap on max_tokens (65535 at most anyway)
//	    signing_key <secret>        # placeholders allowed
//	    max_response_size <size>
//	}
func (t *Gemini) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return unmarshal(d, &t.HTTPTransport, subdirectives{
		"model": &t.Models, "api_key": &t.APIKey, "api_version": &t.APIVersion,
		"thinking": &t.Thinking, "max_tokens": &t.MaxTokens, "signing_key": &t.SigningKey,
		"max_response_size": &t.MaxResponseSize,
	})
}

// Interface guards
var _ reverseProxyTransport = (*Gemini)(nil)
