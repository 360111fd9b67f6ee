package messagesapi

import (
	"strconv"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// DetailMessage returns the message of a FastAPI / pydantic validation
// error's detail, as such servers answer a request they refuse (422):
// either a string, or a list of errors, each with the path of the field
// ("loc", the request body's "body" left out) and what is wrong ("msg"),
// written as the Messages API writes its own: "thinking.type: Input should
// be 'enabled' or 'disabled'", several joined by "; ". It returns "" for
// any other value.
//
//	{"detail":[{"type":"literal_error","loc":["body","thinking","type"],
//	  "msg":"Input should be 'enabled' or 'disabled'","input":"adaptive"}]}
func DetailMessage(detail jsonscan.Value) string {
	if detail.Kind() == jsonscan.String {
		return detail.Str()
	}
	if detail.Kind() != jsonscan.Array {
		return ""
	}
	var b strings.Builder
	for e := range detail.Elements() {
		msg := e.Get("msg")
		if msg.Kind() != jsonscan.String {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		path, i := 0, -1
		for l := range e.Get("loc").Elements() {
			i++
			var seg string
			switch l.Kind() {
			case jsonscan.String:
				seg = l.Str()
			case jsonscan.Number:
				seg = strconv.FormatInt(l.Int(), 10)
			default:
				continue
			}
			if i == 0 && seg == "body" {
				continue
			}
			if path > 0 {
				b.WriteByte('.')
			}
			b.WriteString(seg)
			path++
		}
		if path > 0 {
			b.WriteString(": ")
		}
		b.WriteString(msg.Str())
	}
	return b.String()
}
