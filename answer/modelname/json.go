package modelname

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// modelMember returns where the "model" string of the object obj lies and
// what it says; model[1] is 0 when there is none.
func modelMember(obj []byte) (model [2]int, name string) {
	var buf [32]byte
	it := jsonscan.Members(obj, jsonscan.SkipSpace(obj, 0))
	for k, v, ok := it.Next(); ok; k, v, ok = it.Next() {
		end, ok := it.Skip()
		if !ok {
			break
		}
		if string(jsonscan.Name(k, &buf)) == "model" {
			model = [2]int{v, end}
		}
	}
	if it.Err() != nil || model[1] == 0 || obj[model[0]] != '"' {
		return [2]int{}, ""
	}
	v, ok := jsonstr.Append(nil, obj[model[0]:model[1]])
	if !ok {
		return [2]int{}, ""
	}
	return model, string(v)
}

// RewriteJSON returns a JSON Messages response body naming the model
// requested, and the model the body named. A body that names none, or
// names the requested one already, comes back as it was.
func RewriteJSON(body []byte, requested string) (out []byte, upstream string) {
	model, upstream := modelMember(body)
	lit := literal(requested)
	if model[1] == 0 || bytes.Equal(body[model[0]:model[1]], lit) {
		return body, upstream
	}
	out = make([]byte, 0, len(body)-(model[1]-model[0])+len(lit))
	out = append(out, body[:model[0]]...)
	out = append(out, lit...)
	return append(out, body[model[1]:]...), upstream
}

// literal returns a model name as a JSON string.
func literal(model string) []byte { return jsonstr.Quote(nil, []byte(model)) }
