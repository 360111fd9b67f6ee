package responses

import "github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"

// The client tools go as function tools, strict off, each schema as given;
// server tools have no form here (see messagesapi.ClientTools).
// tool_choice: auto, required (any), a named function, or none; and
// parallel_tool_calls false when the client disables them.
var (
	toolForm   = messagesapi.ToolForm{Open: `,"tools":[`, Close: "]", Name: `{"type":"function","name":`, Schema: `,"parameters":`, End: `,"strict":false}`}
	choiceForm = messagesapi.ChoiceForm{Auto: `,"tool_choice":"auto"`, Any: `,"tool_choice":"required"`, None: `,"tool_choice":"none"`,
		Tool: `,"tool_choice":{"type":"function","name":`, ToolEnd: "}", Serial: `,"parallel_tool_calls":false`}
)
