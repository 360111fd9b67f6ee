package chatcompletions

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// An error inside a 200 stream ({"error":{"message","code"}}, as
// OpenRouter and vLLM send one when generation fails midway) becomes an
// error event.

// chunkErrorType reads the HTTP status a chunk's error names in its code,
// when it names one.
func chunkErrorType(v []byte) string {
	if v[0] != '{' {
		return "api_error"
	}
	var buf [32]byte
	it := jsonscan.Members(v, 0)
	for key, v, ok := it.Item(); ok; key, v, ok = it.Item() {
		switch string(jsonscan.Name(key, &buf)) {
		case "code", "status":
			if n := count(v); n >= 400 && n < 600 {
				return messagesapi.ErrorType(n)
			}
		}
	}
	return "api_error"
}

// chunkErrorMessage reads the message of a chunk's error.
func chunkErrorMessage(v []byte) string {
	var lit []byte
	switch v[0] {
	case '"':
		lit = v
	case '{':
		var buf [32]byte
		it := jsonscan.Members(v, 0)
		for key, v, ok := it.Item(); ok; key, v, ok = it.Item() {
			if string(jsonscan.Name(key, &buf)) == "message" {
				lit = stringLit(v)
			}
		}
	}
	msg, _, ok := jsonstr.Value(nil, lit)
	if !ok {
		msg = nil
	}
	if m := withProviderError(string(msg), jsonscan.Value(v).Get("metadata", "raw")); m != "" {
		return messagesapi.ErrorMessage(0, m)
	}
	return "the upstream failed while answering"
}
