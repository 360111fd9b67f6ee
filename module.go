// Package llmthinking is a Caddy HTTP handler that makes switching LLM
// backends in the middle of a Claude Code conversation invisible.
//
// Thinking blocks carry signatures that only the backend that produced them
// accepts. The llm_thinking handler sits before reverse_proxy, learns from
// every response which backend produced which block, and on each request
// removes or converts the blocks the target backend did not produce, keeping
// the request valid for the Messages API. See README.md.
//
// This package is the Caddy glue: configuration, ServeHTTP, the response
// writer that observes replies, the admin route and the registries that
// survive reloads. The rule itself lives in package policy.
package llmthinking

import (
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/option"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/pool"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/failover"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/policy"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Defaults for fields left unset.
const (
	DefaultRegistry        = registry.DefaultName
	DefaultMaxBodySize     = 32 << 20
	DefaultMaxResponseSize = 8 << 20
	DefaultMemoryWait      = 10 * time.Second
)

// Handler rewrites the thinking blocks of Anthropic Messages requests for the
// backend they are going to, and learns from responses which backend produced
// each block. It handles POST requests to paths ending in /v1/messages and
// /v1/messages/count_tokens; everything else passes through untouched.
type Handler struct {
	// Backend names the backend this request goes to. Placeholders are
	// evaluated per request, so one handler can serve several backends, e.g.
	// "{vars.llm_backend}" or "{http.request.header.X-Backend}". Blocks go to
	// a backend unchanged exactly when that backend produced them.
	//
	// Left unset, the backend is the upstream reverse_proxy dials, as
	// {http.reverse_proxy.upstream.hostport} names it: learned from each
	// response, and a request is rewritten for the upstream that last
	// answered its conversation. Switching is then only a matter of changing
	// reverse_proxy's upstreams; retry_on_reject covers the first request
	// after the change. Name the backend when several upstreams are one
	// provider (several hosts or keys of one account).
	Backend string `json:"backend,omitempty"`

	// Mode says what becomes of blocks the target backend did not produce:
	// "strip" (default) removes them; "convert_to_text" turns their text
	// into a text block; "convert_to_tags" into a text block wrapped in
	// <think></think>; "drop_signature" keeps them as thinking without a
	// signature, for backends that accept unsigned thinking. Redacted blocks,
	// and blocks whose text was omitted, are always stripped.
	Mode string `json:"mode,omitempty"`

	// ThinkingModels lists the models that can take thinking, as glob
	// patterns matched against the request's model ("*" any run of
	// characters, "?" one): a request for any other model has every
	// thinking and redacted_thinking block removed, whoever produced them,
	// and the response says thinking_dropped, until its backend answers it
	// with thinking (the gateway learns that, and that a model cannot
	// think, from the answers and refusals it sees). Unset, every model
	// can. Use it per backend, with a matcher or a route of its own, for
	// backends that serve models without thinking (Ollama, vLLM).
	ThinkingModels []string `json:"thinking_models,omitempty"`

	// ThinkTags turns reasoning that a backend writes into its text between
	// <think> and </think> (llama.cpp with --reasoning-format none, some
	// vLLM, SGLang and LM Studio set-ups, a locally deployed GLM) into a
	// thinking block before the text, in streams as they pass and in JSON
	// answers: "off" (default), "on", or "open" for models that omit the
	// opening tag (DeepSeek-R1 style: the answer starts inside a think
	// section). Such blocks carry this module's signature and register
	// like any other: no other backend gets them.
	ThinkTags string `json:"think_tags,omitempty"`

	// ThinkTagsReplay says how the backend that wrote think tags gets the
	// blocks made from them back: "tags" (default) as the text it wrote,
	// "<think>...</think>" included, or "thinking" as thinking blocks, for
	// backends that read those.
	ThinkTagsReplay string `json:"think_tags_replay,omitempty"`

	// ResponseModel is the model a successful answer names: "upstream"
	// (default) leaves it as the backend wrote it, byte for byte;
	// "requested" makes it the model the client asked for. Claude Code
	// replays thinking only from answers recorded under the model it asks
	// for, so a backend that answers under its own name (a gateway mapping
	// claude-* to glm-*) loses its reasoning on every turn unless this is
	// "requested". Either way, a conversation's first mismatch is logged
	// as thinking.model_mismatch.
	ResponseModel string `json:"response_model,omitempty"`

	// BackendProfiles declare what backends' models take (thinking back on
	// their messages, one thinking type), as the handler learns it from
	// their refusals, so that not even the first request is refused. See
	// BackendProfile.
	BackendProfiles []BackendProfile `json:"backend_profiles,omitempty"`

	// Registry names the registry of block origins. Handlers naming the same
	// registry share it; it survives config reloads. Default "default".
	Registry string `json:"registry,omitempty"`

	// MaxBlocks bounds the registry; the least recently used blocks are
	// forgotten first. Default (or 0) 100000.
	MaxBlocks int `json:"max_blocks,omitempty"`

	// OrphanTTL is how long a block that no request has replayed yet is
	// kept once its conversation goes on without it. Default (or 0) 5m.
	OrphanTTL caddy.Duration `json:"orphan_ttl,omitempty"`

	// MaxBodySize bounds the request bodies read, in bytes. Larger bodies
	// are refused with 413 in the Anthropic error format. Default (or 0)
	// 32 MiB.
	MaxBodySize int64 `json:"max_body_size,omitempty"`

	// MaxResponseSize bounds, in bytes, the JSON (non-streamed) response
	// bodies held to read their blocks after they passed to the client. A
	// larger response still reaches the client whole; its blocks stay
	// unknown. Streams are never held. Default (or 0) 8 MiB.
	MaxResponseSize int64 `json:"max_response_size,omitempty"`

	// RetryOnReject, on by default, makes a thinking 400 that still comes
	// back (a backend that no longer accepts its own signatures, an upstream
	// the route switched to) invisible: the request is repaired, keeping only
	// the blocks proven to be the target's, and sent once more through the
	// rest of the route. Only a small JSON 400 is held back to be read;
	// every other answer passes at once.
	RetryOnReject *bool `json:"retry_on_reject,omitempty"`

	// Persist, on by default, keeps the registry in Caddy's storage (the
	// file system unless another storage module is configured), so that it
	// survives restarts, and so that several Caddy instances sharing one
	// storage act as one registry. Set when the registry is created: a
	// reload can turn it on or off.
	Persist *bool `json:"persist,omitempty"`

	// PersistInterval bounds how long what the registry learns waits before
	// it is written to storage, and so how late another instance can learn
	// it. Default (or 0) 1s.
	PersistInterval caddy.Duration `json:"persist_interval,omitempty"`

	// MemoryWait bounds, in all, how long a request of this handler waits
	// for room in the memory budget; past it the client gets a 529
	// overloaded_error with Retry-After, which Claude Code and the SDKs
	// retry, and nothing of the request goes upstream. An answer never
	// waits: one that finds no room passes to the client as it came,
	// unread. Default (or 0) 10s.
	MemoryWait caddy.Duration `json:"memory_wait,omitempty"`

	// Failover, when set, sends a request the backend turns away (429,
	// 529, 5xx, a connection that could not be made) before any byte of
	// its answer reached the client on to the next backend of a list,
	// its thinking planned for that backend (see Failover).
	Failover *Failover `json:"failover,omitempty"`

	policy     *policy.Policy
	budget     *budget.Budget
	logger     *zap.Logger
	failover   *failover.List
	backendVar failover.Variable
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
// It validates first, so that a config that will be refused never touches
// the registry the running config uses.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if h.Registry == "" {
		h.Registry = DefaultRegistry
	}
	if h.MaxBodySize == 0 {
		h.MaxBodySize = DefaultMaxBodySize
	}
	if h.MaxResponseSize == 0 {
		h.MaxResponseSize = DefaultMaxResponseSize
	}
	if h.MemoryWait == 0 {
		h.MemoryWait = caddy.Duration(DefaultMemoryWait)
	}
	if err := h.Validate(); err != nil {
		return err
	}
	h.budget = budget.Process.Join(h)
	if h.Failover != nil {
		l := h.Failover.list()
		h.failover = &l
		h.backendVar, _ = failover.VariableOf(h.Backend)
	}
	if err := registerMetrics(ctx); err != nil {
		return err
	}
	foreign, _ := policy.ParseMode(h.Mode)
	profiles, _ := h.profiles()
	pr, err := pool.Acquire(h.Registry, registry.Config{MaxBlocks: h.MaxBlocks, OrphanTTL: time.Duration(h.OrphanTTL)})
	if err != nil {
		return err
	}
	pr.Persist(ctx, h.persist(), time.Duration(h.PersistInterval), h.logger)
	h.policy = &policy.Policy{Registry: pr.Registry, Foreign: foreign, Models: policy.Models(h.ThinkingModels),
		SynthesizedAsTags: h.ThinkTagsReplay != thinkTagsReplayThinking, Profiles: profiles,
		Threads: pr.Threads, Heads: pr.Heads, Mismatches: pr.Mismatches, Refresh: pr.Refresh}
	return nil
}

// retryOnReject reports whether a thinking 400 is replayed.
func (h *Handler) retryOnReject() bool { return h.RetryOnReject == nil || *h.RetryOnReject }

// persist reports whether the registry lives in storage.
func (h *Handler) persist() bool { return h.Persist == nil || *h.Persist }

// Validate checks the configuration. The Caddyfile parser only reads
// values, so a value gets the same error from the Caddyfile and from JSON.
func (h *Handler) Validate() error {
	if _, err := policy.ParseMode(h.Mode); err != nil {
		return fmt.Errorf("llm_thinking: %w", err)
	}
	if err := policy.CheckModels(h.ThinkingModels); err != nil {
		return fmt.Errorf("llm_thinking: thinking_models: %w", err)
	}
	if _, err := h.profiles(); err != nil {
		return fmt.Errorf("llm_thinking: %w", err)
	}
	if err := h.checkFailover(); err != nil {
		return fmt.Errorf("llm_thinking: %w", err)
	}
	for _, v := range []struct {
		name, value string
		allowed     []string
	}{
		{"think_tags", h.ThinkTags, []string{thinkTagsOff, thinkTagsOn, thinkTagsOpen}},
		{"think_tags_replay", h.ThinkTagsReplay, []string{thinkTagsReplayTags, thinkTagsReplayThinking}},
		{"response_model", h.ResponseModel, []string{responseModelUpstream, responseModelRequested}},
	} {
		if err := option.OneOf(v.name, v.value, v.allowed...); err != nil {
			return fmt.Errorf("llm_thinking: %w", err)
		}
	}
	switch {
	case h.MaxBlocks < 0:
		return fmt.Errorf("llm_thinking: max_blocks must not be negative, got %d", h.MaxBlocks)
	case h.OrphanTTL < 0:
		return fmt.Errorf("llm_thinking: orphan_ttl must not be negative, got %s", time.Duration(h.OrphanTTL))
	case h.MaxBodySize < 0:
		return fmt.Errorf("llm_thinking: max_body_size must not be negative, got %d", h.MaxBodySize)
	case h.MaxResponseSize < 0:
		return fmt.Errorf("llm_thinking: max_response_size must not be negative, got %d", h.MaxResponseSize)
	case h.PersistInterval < 0:
		return fmt.Errorf("llm_thinking: persist_interval must not be negative, got %s", time.Duration(h.PersistInterval))
	case h.MemoryWait < 0:
		return fmt.Errorf("llm_thinking: memory_wait must not be negative, got %s", time.Duration(h.MemoryWait))
	}
	return nil
}

// Cleanup releases the handler's hold on its registry, and its say in the
// memory budget. Requests still in flight keep using it safely; the
// registry itself lives on while any handler of the running config names
// it.
func (h *Handler) Cleanup() error {
	budget.Process.Leave(h)
	if h.policy == nil {
		return nil
	}
	return pool.Release(h.Registry)
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
