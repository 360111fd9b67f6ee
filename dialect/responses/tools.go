package responses

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// tools writes the client tools as function tools, strict off, each schema
// as given; server tools have no form here (see messagesapi.ClientTools).
func (w *requestWriter) tools(tools jsonscan.Value) {
	list := jsonout.List{Open: `,"tools":[`, Close: "]"}
	for t := range messagesapi.ClientTools(tools) {
		w.Next(&list)
		w.Raw(`{"type":"function","name":`)
		w.Str(t.Name)
		if t.Description.Exists() {
			w.Raw(`,"description":`)
			w.Str(t.Description)
		}
		w.Raw(`,"parameters":`)
		w.RawBytes(t.InputSchema)
		w.Raw(`,"strict":false}`)
	}
	w.End(&list)
}

// toolChoice writes tool_choice: auto, required (any), a named function,
// or none; and parallel_tool_calls false when the client disables them.
func (w *requestWriter) toolChoice(tc messagesapi.ToolChoice) {
	switch tc.Type {
	case messagesapi.ChoiceAuto:
		w.Raw(`,"tool_choice":"auto"`)
	case messagesapi.ChoiceAny:
		w.Raw(`,"tool_choice":"required"`)
	case messagesapi.ChoiceNone:
		w.Raw(`,"tool_choice":"none"`)
	case messagesapi.ChoiceTool:
		w.Raw(`,"tool_choice":{"type":"function","name":`)
		w.Str(tc.Name)
		w.Raw("}")
	}
	if tc.DisableParallelToolUse {
		w.Raw(`,"parallel_tool_calls":false`)
	}
}
