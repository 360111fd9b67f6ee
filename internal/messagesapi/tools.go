package messagesapi

import (
	"iter"

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
