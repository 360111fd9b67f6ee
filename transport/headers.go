package transport

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// chatHeaders makes a Messages request's headers a chat-completions
// request's: no Anthropic header, the API key as a bearer token unless
// an Authorization is set, and an answer asked for uncompressed, since it
// is read to be translated.
func chatHeaders(h http.Header, stream bool) {
	key := h.Get("X-Api-Key")
	translatedHeaders(h, stream)
	if key != "" && h.Get("Authorization") == "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

// translatedHeaders makes the headers of a Messages request those of a
// request of another API: no x-api-key or Anthropic header, JSON, and an
// answer asked for uncompressed, since it is read to be translated.
func translatedHeaders(h http.Header, stream bool) {
	h.Del("X-Api-Key")
	for name := range h {
		if strings.HasPrefix(name, "Anthropic-") {
			delete(h, name)
		}
	}
	h.Set("Content-Type", "application/json")
	h.Set("Accept-Encoding", "identity")
	if stream {
		h.Set("Accept", "text/event-stream")
	} else {
		h.Set("Accept", "application/json")
	}
}

// apiHeaders makes a Messages request's headers those of another API that
// takes its key in a header of its own: no Anthropic header, no x-api-key
// or Authorization, an answer asked for uncompressed, since it is read to
// be translated. It returns the key for that header: configured
// (placeholders replaced), else the client's x-api-key, else its bearer
// token.
func apiHeaders(r *http.Request, configured string, stream bool) string {
	h := r.Header
	key := h.Get("X-Api-Key")
	if bearer, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer "); ok && key == "" {
		key = bearer
	}
	if configured != "" {
		if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
			key = repl.ReplaceAll(configured, "")
		} else {
			key = configured
		}
	}
	h.Del("Authorization")
	translatedHeaders(h, stream)
	return key
}

// withoutBeta drops Claude Code's beta=true, which only the Messages API
// reads.
func withoutBeta(q url.Values) string {
	q.Del("beta")
	return q.Encode()
}

// modelOf returns the model a Messages request body asks for, or "".
func modelOf(body []byte) string {
	lit, _ := modelLiteral(body)
	v, _, ok := jsonstr.Value(nil, lit)
	if !ok {
		return ""
	}
	return string(v)
}

// modelLiteral returns the string literal of the body's top-level model
// member and where it starts, or nil.
func modelLiteral(body []byte) ([]byte, int) {
	var buf [32]byte
	i := jsonscan.SkipSpace(body, 0)
	it := jsonscan.Members(body, i)
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		if string(jsonscan.Name(key, &buf)) != "model" {
			continue
		}
		end, ok := it.Skip()
		if !ok || body[v] != '"' {
			return nil, 0
		}
		return body[v:end], v
	}
	return nil, 0
}
