package llmthinking

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/registry"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/thinking"
)

// endpoint is the Messages API endpoint a request targets.
type endpoint uint8

const (
	otherEndpoint endpoint = iota
	messagesEndpoint
	countTokensEndpoint
)

// endpointOf matches by path suffix, so a gateway can serve the API under a
// prefix; the query (Claude Code sends ?beta=true) does not matter.
func endpointOf(r *http.Request) endpoint {
	if r.Method != http.MethodPost {
		return otherEndpoint
	}
	switch p := strings.TrimSuffix(r.URL.Path, "/"); {
	case strings.HasSuffix(p, "/v1/messages"):
		return messagesEndpoint
	case strings.HasSuffix(p, "/v1/messages/count_tokens"):
		return countTokensEndpoint
	}
	return otherEndpoint
}

// unreadable says why a request body cannot be a plain JSON Messages body,
// or returns "".
func unreadable(r *http.Request) string {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, _ := strings.Cut(ct, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
		if mt != "application/json" && !strings.HasSuffix(mt, "+json") {
			return "content type is not JSON"
		}
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return "request body is encoded"
	}
	return ""
}

// exchange is what the handler decided about one request.
type exchange struct {
	body         []byte // what goes upstream
	changed      bool
	backend      string
	conversation string
	result       thinking.Result
	stream       bool
}

// prepare rewrites body for backend. It never fails: a body it cannot read
// goes upstream untouched, and a panic in the rewrite (a bug) is logged and
// the original body forwarded.
func (h *Handler) prepare(r *http.Request, body []byte, backend string, ep endpoint) (x exchange) {
	x = exchange{body: body, backend: backend}
	defer func() {
		if v := recover(); v != nil {
			h.logger.Error("thinking.internal_error", zap.Any("panic", v), zap.String("backend", backend))
			x.body, x.changed, x.result = body, false, thinking.Result{}
		}
	}()
	req, err := thinking.Parse(body)
	if err != nil {
		h.logger.Debug("thinking.passthrough", zap.String("reason", "body is not a Messages request"), zap.Error(err))
		return x
	}
	defer req.Release()
	x.stream = req.Stream()
	x.conversation = conversationID(r.Header, req.UserID)

	blocks := req.Blocks()
	keys := blockKeys(blocks)
	mode := req.ThinkingType()
	adm := h.reg.Admit(registry.Request{
		Conversation: x.conversation,
		Backend:      backend,
		Keys:         keys,
		// Token counting only reads; requests without any thinking (title
		// generation, safety checks) never move the lifecycle.
		Track: ep == messagesEndpoint && (len(blocks) > 0 || mode == "enabled" || mode == "adaptive"),
	})
	if adm.Switched {
		h.logger.Info("thinking.backend_switch",
			zap.String("from", adm.Previous), zap.String("to", backend), zap.String("conversation", x.conversation))
	}

	actions := make([]thinking.Action, len(blocks))
	for i, b := range blocks {
		actions[i] = h.decide(adm.Origins[i], backend, adm.Mixed)
		if ce := h.logger.Check(zap.DebugLevel, "thinking.block_decision"); ce != nil {
			ce.Write(zap.String("backend", backend), zap.String("conversation", x.conversation),
				zap.Int("message", b.Message), zap.Int("index", b.Index), zap.Stringer("kind", b.Kind),
				zap.String("origin", adm.Origins[i]), zap.Bool("kept", actions[i] == thinking.Keep),
				zap.Stringer("key", keys[i]))
		}
	}
	out, res, err := req.Rewrite(actions)
	if err != nil {
		h.logger.Debug("thinking.passthrough", zap.String("reason", "body cannot be edited"), zap.Error(err))
	}
	x.body, x.result, x.changed = out, res, res.Changed()
	if x.changed {
		h.logger.Info("thinking.block_handled",
			zap.String("backend", backend), zap.String("conversation", x.conversation),
			zap.Int("kept", res.Kept), zap.Int("stripped", res.Stripped), zap.Int("converted", res.Converted),
			zap.Bool("dropped_thinking_config", res.DroppedThinkingConfig))
	}
	return x
}

// decide returns the action for a block produced by origin ("" when
// unknown). A block goes unchanged to the backend that produced it; an
// unknown one only while its conversation has known no other backend.
func (h *Handler) decide(origin, backend string, mixed bool) thinking.Action {
	if origin == backend || origin == "" && !mixed {
		return thinking.Keep
	}
	return h.action
}

// blockKeys computes the registry key of every block.
func blockKeys(blocks []thinking.Block) []registry.Key {
	keys := make([]registry.Key, len(blocks))
	if len(blocks) == 0 {
		return keys
	}
	hasher := registry.NewThinkingHasher()
	for i, b := range blocks {
		if b.Kind == thinking.Redacted {
			keys[i] = registry.RedactedKey(b.Data)
			continue
		}
		hasher.Reset()
		hasher.Write(b.Thinking)
		keys[i] = hasher.Key(b.Signature)
	}
	return keys
}

// Placeholder names set on every handled request.
const (
	placeholderKept      = "http.llm_thinking.kept"
	placeholderStripped  = "http.llm_thinking.stripped"
	placeholderConverted = "http.llm_thinking.converted"
	placeholderBackend   = "http.llm_thinking.backend"
)

// WarningHeader is the response header that tells clients their thinking
// blocks were removed or converted.
const WarningHeader = "X-LLM-Thinking-Warning"

// apply puts the decided body on the request (the original, unchanged, is
// read from in) and publishes the outcome in placeholders and the warning
// header.
func (x exchange) apply(w http.ResponseWriter, r *http.Request, repl *caddy.Replacer, in *body) {
	if x.changed {
		out := x.body
		r.Body = io.NopCloser(bytes.NewReader(out))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
		r.Header.Set("Content-Length", strconv.Itoa(len(out)))
	} else {
		r.Body = in.reader()
		r.GetBody = func() (io.ReadCloser, error) { return in.reader(), nil }
	}
	r.ContentLength = int64(len(x.body))
	repl.Set(placeholderKept, x.result.Kept)
	repl.Set(placeholderStripped, x.result.Stripped)
	repl.Set(placeholderConverted, x.result.Converted)
	repl.Set(placeholderBackend, x.backend)
	if x.result.Stripped > 0 {
		w.Header().Add(WarningHeader, "thinking_dropped")
	}
	if x.result.Converted > 0 {
		w.Header().Add(WarningHeader, "thinking_converted")
	}
}
