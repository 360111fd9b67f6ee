package responses

import "github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"

// tools writes the client tools as function tools, strict off, each schema
// as given. Server tools (web search and the like, which have no
// input_schema) have no form here and are left out.
func (w *requestWriter) tools(tools jsonscan.Value) {
	n := 0
	for t := range tools.Elements() {
		schema := t.Get("input_schema")
		if schema.Kind() != jsonscan.Object {
			continue
		}
		if n == 0 {
			w.Raw(`,"tools":[`)
		} else {
			w.Raw(",")
		}
		n++
		w.Raw(`{"type":"function","name":`)
		w.Str(t.Get("name"))
		if d := t.Get("description"); d.Kind() == jsonscan.String {
			w.Raw(`,"description":`)
			w.Str(d)
		}
		w.Raw(`,"parameters":`)
		w.RawBytes(schema)
		w.Raw(`,"strict":false}`)
	}
	if n > 0 {
		w.Raw("]")
	}
}

// toolChoice writes tool_choice: auto, required (any), a named function,
// or none; and parallel_tool_calls false when the client disables them.
func (w *requestWriter) toolChoice(tc jsonscan.Value) {
	if tc.Kind() != jsonscan.Object {
		return
	}
	var name [32]byte
	switch string(tc.Get("type").Name(&name)) {
	case "auto":
		w.Raw(`,"tool_choice":"auto"`)
	case "any":
		w.Raw(`,"tool_choice":"required"`)
	case "none":
		w.Raw(`,"tool_choice":"none"`)
	case "tool":
		w.Raw(`,"tool_choice":{"type":"function","name":`)
		w.Str(tc.Get("name"))
		w.Raw("}")
	}
	if tc.Get("disable_parallel_tool_use").Bool() {
		w.Raw(`,"parallel_tool_calls":false`)
	}
}
