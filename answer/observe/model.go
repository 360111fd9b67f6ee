package observe

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// maxModel bounds the model name kept from a response.
const maxModel = 256

// appendModel appends to dst the decoded "model" string of the object obj,
// or of its member named in when in is not "" (message_start's "message").
// Anything unreadable, or longer than maxModel, appends nothing.
func appendModel(dst, obj []byte, in string) []byte {
	var buf [32]byte
	if in != "" {
		var inner []byte
		it := members(obj)
		for k, v, ok := it.Item(); ok; k, v, ok = it.Item() {
			if string(jsonscan.Name(k, &buf)) == in {
				inner = v
			}
		}
		if it.Err() != nil || len(inner) == 0 || inner[0] != '{' {
			return dst
		}
		obj = inner
	}
	var model []byte
	it := members(obj)
	for k, v, ok := it.Item(); ok; k, v, ok = it.Item() {
		if string(jsonscan.Name(k, &buf)) == "model" {
			model = v
		}
	}
	if it.Err() != nil {
		return dst
	}
	return appendModelValue(dst, model)
}

// appendModelValue appends to dst the decoded model string whose literal
// is model (nil when there is none); anything else, or longer than
// maxModel, appends nothing.
func appendModelValue(dst, model []byte) []byte {
	if len(model) < 2 || model[0] != '"' || len(model) > maxModel+2 {
		return dst
	}
	out, ok := jsonstr.Append(dst, model)
	if !ok || len(out)-len(dst) > maxModel {
		return dst
	}
	return out
}
