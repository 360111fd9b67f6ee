// Package llmthinking is a Caddy HTTP handler that makes switching LLM
// backends in the middle of a Claude Code conversation invisible.
//
// Thinking blocks carry signatures that only the backend that produced them
// accepts. The llm_thinking handler sits before reverse_proxy, learns from
// every response which backend produced which block, and on each request
// removes or converts the blocks the target backend did not produce, keeping
// the request valid for the Messages API. See README.md.
package llmthinking

import (
	"fmt"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/registry"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/thinking"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Defaults for fields left unset.
const (
	DefaultRegistry    = "default"
	DefaultMaxBodySize = 32 << 20
)

// Modes for blocks the target backend did not produce.
const (
	ModeStrip         = "strip"
	ModeConvertToText = "convert_to_text"
	ModeConvertToTags = "convert_to_tags"
	ModeDropSignature = "drop_signature"
)

var modeActions = map[string]thinking.Action{
	ModeStrip:         thinking.Strip,
	ModeConvertToText: thinking.ConvertToText,
	ModeConvertToTags: thinking.ConvertToTags,
	ModeDropSignature: thinking.DropSignature,
}

// Handler rewrites the thinking blocks of Anthropic Messages requests for the
// backend they are going to, and learns from responses which backend produced
// each block. It handles POST requests to paths ending in /v1/messages and
// /v1/messages/count_tokens; everything else passes through untouched.
type Handler struct {
	// Backend names the backend this request goes to. Placeholders are
	// evaluated per request, so one handler can serve several backends, e.g.
	// "{vars.llm_backend}" or "{http.request.header.X-Backend}". Blocks go to
	// a backend unchanged exactly when that backend produced them. Required.
	Backend string `json:"backend,omitempty"`

	// Mode says what becomes of blocks the target backend did not produce:
	// "strip" (default) removes them; "convert_to_text" turns their text
	// into a text block; "convert_to_tags" into a text block wrapped in
	// <think></think>; "drop_signature" keeps them as thinking without a
	// signature, for backends that accept unsigned thinking. Redacted blocks,
	// and blocks whose text was omitted, are always stripped.
	Mode string `json:"mode,omitempty"`

	// Registry names the registry of block origins. Handlers naming the same
	// registry share it; it survives config reloads. Default "default".
	Registry string `json:"registry,omitempty"`

	// MaxBlocks bounds the registry; the least recently used blocks are
	// forgotten first. Default 100000.
	MaxBlocks int `json:"max_blocks,omitempty"`

	// OrphanTTL is how long a block that no request has replayed yet is
	// kept once its conversation goes on without it. Default 5m.
	OrphanTTL caddy.Duration `json:"orphan_ttl,omitempty"`

	// MaxBodySize bounds the request bodies read, in bytes. Larger bodies
	// are refused with 413 in the Anthropic error format. Default 32 MiB.
	MaxBodySize int64 `json:"max_body_size,omitempty"`

	action thinking.Action
	reg    *registry.Registry
	logger *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.llm_thinking",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision sets defaults and attaches the handler to its registry, creating
// the registry or applying the new limits to the one that survived a reload.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if h.Mode == "" {
		h.Mode = ModeStrip
	}
	if h.Registry == "" {
		h.Registry = DefaultRegistry
	}
	if h.MaxBodySize == 0 {
		h.MaxBodySize = DefaultMaxBodySize
	}
	h.action = modeActions[h.Mode]
	reg, err := acquireRegistry(h.Registry, h.registryConfig())
	if err != nil {
		return err
	}
	h.reg = reg
	return nil
}

func (h *Handler) registryConfig() registry.Config {
	return registry.Config{MaxBlocks: h.MaxBlocks, OrphanTTL: time.Duration(h.OrphanTTL)}
}

// Validate checks the configuration.
func (h *Handler) Validate() error {
	if h.Backend == "" {
		return fmt.Errorf("llm_thinking: backend is required (a name or a placeholder such as {vars.llm_backend})")
	}
	if _, ok := modeActions[h.Mode]; !ok {
		return fmt.Errorf("llm_thinking: unknown mode %q (want strip, convert_to_text, convert_to_tags or drop_signature)", h.Mode)
	}
	if h.MaxBlocks < 0 {
		return fmt.Errorf("llm_thinking: max_blocks must not be negative, got %d", h.MaxBlocks)
	}
	if h.OrphanTTL < 0 {
		return fmt.Errorf("llm_thinking: orphan_ttl must not be negative, got %s", time.Duration(h.OrphanTTL))
	}
	if h.MaxBodySize < 0 {
		return fmt.Errorf("llm_thinking: max_body_size must not be negative, got %d", h.MaxBodySize)
	}
	return nil
}

// Cleanup releases the handler's hold on its registry. Requests still in
// flight keep using it safely; the registry itself lives on while any
// handler of the running config names it.
func (h *Handler) Cleanup() error {
	if h.reg == nil {
		return nil
	}
	return releaseRegistry(h.Registry)
}

// ServeHTTP rewrites the request's thinking blocks for its backend, then
// passes it on, observing the response.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	ep := endpointOf(r)
	if ep == otherEndpoint {
		return next.ServeHTTP(w, r)
	}
	repl := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	backend := boundedID(repl.ReplaceAll(h.Backend, ""))
	if backend == "" {
		h.logger.Debug("thinking.passthrough", zap.String("reason", "backend placeholder is empty"), zap.String("backend", h.Backend))
		return next.ServeHTTP(w, r)
	}
	if reason := unreadable(r); reason != "" {
		h.logger.Debug("thinking.passthrough", zap.String("reason", reason))
		return next.ServeHTTP(w, r)
	}

	in, err := readBody(r, h.MaxBodySize)
	if err != nil {
		return h.refuseBody(w, err)
	}
	defer in.release()
	x := h.prepare(r, in.bytes(), backend, ep)
	x.apply(w, r, repl, in)
	if ep != messagesEndpoint {
		return next.ServeHTTP(w, r)
	}
	narrowAcceptEncoding(r, x.stream)
	ow := h.newObserver(w, x)
	completed := false
	defer func() { ow.finish(!completed) }()
	err = next.ServeHTTP(ow, r)
	completed = err == nil
	return err
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
