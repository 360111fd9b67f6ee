package messagesapi

import (
	"iter"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// Tool is a client tool of a Messages request: one the client runs, which
// the model calls with input its schema describes.
type Tool struct {
	// Name is the tool's name, a string literal as the request gives it.
	Name jsonscan.Value
	// Description is the string literal of its description, absent when it
	// has none.
	Description jsonscan.Value
	// InputSchema is the JSON Schema of its input, an object.
	InputSchema jsonscan.Value
}

var toolMembers = []string{"name", "description", "input_schema"}

// ClientTools yields the client tools of a request's tools, in order, each
// read in one walk over it. Server tools (web search and the like, which
// have a type and no input_schema) run at Anthropic and have no form in
// another API: they are passed over.
func ClientTools(tools jsonscan.Value) iter.Seq[Tool] {
	return func(yield func(Tool) bool) {
		var v [3]jsonscan.Value
		for t := range tools.Elements() {
			t.Pick(toolMembers, v[:])
			if v[2].Kind() != jsonscan.Object {
				continue
			}
			if v[1].Kind() != jsonscan.String {
				v[1] = nil
			}
			if !yield(Tool{Name: v[0], Description: v[1], InputSchema: v[2]}) {
				return
			}
		}
	}
}

// A ToolForm is how another API writes a request's client tools (see
// WriteTools): the pieces written around the list and around each tool's
// name, description and input schema.
type ToolForm struct {
	// Open and Close are written around the list, when it has a tool.
	Open, Close string
	// Name opens a tool, before its name; Schema comes before its input
	// schema, after its description; End closes the tool.
	Name, Schema, End string
}

// WriteTools writes the client tools of a request's tools in form (see
// ClientTools), and returns how many: each its name, written by name (the
// writer's Str, for the name as given), its description when it has one,
// and its input schema, written by schema (nil: as given).
func WriteTools(w *jsonout.Writer, tools jsonscan.Value, form *ToolForm, name, schema func(jsonscan.Value)) int {
	list := jsonout.List{Open: form.Open, Close: form.Close}
	for t := range ClientTools(tools) {
		w.Next(&list)
		w.Raw(form.Name)
		name(t.Name)
		if t.Description.Exists() {
			w.Raw(`,"description":`)
			w.Str(t.Description)
		}
		w.Raw(form.Schema)
		if schema != nil {
			schema(t.InputSchema)
		} else {
			w.RawBytes(t.InputSchema)
		}
		w.Raw(form.End)
	}
	w.End(&list)
	return list.Len()
}

// ToolChoice is a request's tool_choice: which tool the model may or must
// call, and how many at a time.
type ToolChoice struct {
	// Type is what the model may call.
	Type ToolChoiceType
	// Name is the string literal of the tool's name when Type is ChoiceTool.
	Name jsonscan.Value
	// DisableParallelToolUse says the model calls one tool at a time.
	DisableParallelToolUse bool
}

// ToolChoiceType is the type of a tool_choice.
type ToolChoiceType uint8

// The types of tool_choice.
const (
	// ChoiceUnset is a request without tool_choice, or with one of a type
	// not known here: the upstream's default applies.
	ChoiceUnset ToolChoiceType = iota
	// ChoiceAuto ("auto"): the model decides.
	ChoiceAuto
	// ChoiceAny ("any"): the model calls a tool, any.
	ChoiceAny
	// ChoiceTool ("tool"): the model calls the tool named.
	ChoiceTool
	// ChoiceNone ("none"): the model calls none.
	ChoiceNone
)

var toolChoiceMembers = []string{"type", "name", "disable_parallel_tool_use"}

// ReadToolChoice reads a request's tool_choice; one that is not an object
// is ChoiceUnset.
func ReadToolChoice(tc jsonscan.Value) ToolChoice {
	var v [3]jsonscan.Value
	tc.Pick(toolChoiceMembers, v[:])
	c := ToolChoice{DisableParallelToolUse: v[2].Bool()}
	var name [32]byte
	switch string(v[0].Name(&name)) {
	case "auto":
		c.Type = ChoiceAuto
	case "any":
		c.Type = ChoiceAny
	case "tool":
		c.Type, c.Name = ChoiceTool, v[1]
	case "none":
		c.Type = ChoiceNone
	}
	return c
}

// A ChoiceForm is how another API writes a request's tool_choice (see
// ToolChoice.Write): the member each type becomes, the named tool's
// around its name, and the one that turns parallel calls off ("" for an
// API that has none).
type ChoiceForm struct {
	// Auto, Any and None are written for ChoiceAuto, ChoiceAny and
	// ChoiceNone.
	Auto, Any, None string
	// Tool and ToolEnd are written around the name of ChoiceTool's tool.
	Tool, ToolEnd string
	// Serial is written when the client disables parallel tool use.
	Serial string
}

// Write writes c in form, the named tool's name by name (as WriteTools
// does); ChoiceUnset writes nothing but Serial.
func (c ToolChoice) Write(w *jsonout.Writer, form *ChoiceForm, name func(jsonscan.Value)) {
	switch c.Type {
	case ChoiceAuto:
		w.Raw(form.Auto)
	case ChoiceAny:
		w.Raw(form.Any)
	case ChoiceNone:
		w.Raw(form.None)
	case ChoiceTool:
		w.Raw(form.Tool)
		name(c.Name)
		w.Raw(form.ToolEnd)
	}
	if c.DisableParallelToolUse && form.Serial != "" {
		w.Raw(form.Serial)
	}
}
