package messagesapi

import (
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// TestClientTools: the client tools in order, each member as the request
// wrote it (the last of one given twice); server tools, tools whose schema
// is no object and what is no tool are passed over; a description that is
// no string is none.
func TestClientTools(t *testing.T) {
	tools := `[
		{"name":"Bash","description":"Run a command","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}},
		{"type":"web_search_20250305","name":"web_search","max_uses":5},
		{"input_schema":{"type":"object","properties":{}},"name":"Read\u0021"},
		{"name":"Edit","description":42,"input_schema":{"type":"object"}},
		{"name":"Null","input_schema":null},
		{"name":"Twice","description":"first","description":"second","input_schema":{}},
		"Write",
		{"name":"Array","input_schema":[]}
	]`
	var got []string
	for tool := range ClientTools(jsonscan.Value(tools)) {
		got = append(got, string(tool.Name)+" "+string(tool.Description)+" "+string(tool.InputSchema))
	}
	want := []string{
		`"Bash" "Run a command" {"type":"object"}`,
		`"Read\u0021"  {"type":"object","properties":{}}`,
		`"Edit"  {"type":"object"}`,
		`"Twice" "second" {}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, none := range []string{``, `null`, `{}`, `[]`, `{"name":"x","input_schema":{}}`} {
		for tool := range ClientTools(jsonscan.Value(none)) {
			t.Errorf("%s: yielded %q", none, tool)
		}
	}
}

// TestClientToolsStops: a loop that breaks gets no tool after.
func TestClientToolsStops(t *testing.T) {
	n := 0
	for range ClientTools(jsonscan.Value(`[{"name":"a","input_schema":{}},{"name":"b","input_schema":{}}]`)) {
		n++
		break
	}
	if n != 1 {
		t.Errorf("%d tools after a break", n)
	}
}

// TestReadToolChoice: the four types, the name only for a named tool,
// disable_parallel_tool_use whatever the type; anything else unset.
func TestReadToolChoice(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ToolChoice
		name string
	}{
		{`{"type":"auto"}`, ToolChoice{Type: ChoiceAuto}, ``},
		{`{"type":"any","disable_parallel_tool_use":true}`, ToolChoice{Type: ChoiceAny, DisableParallelToolUse: true}, ``},
		{`{"type":"none","name":"Bash"}`, ToolChoice{Type: ChoiceNone}, ``},
		{`{"name":"Bash","type":"tool","disable_parallel_tool_use":false}`, ToolChoice{Type: ChoiceTool}, `"Bash"`},
		{`{"type":"t\u006fol","name":"Bash"}`, ToolChoice{Type: ChoiceTool}, `"Bash"`},
		{`{"type":"tool"}`, ToolChoice{Type: ChoiceTool}, ``},
		{`{"type":"auto","type":"any"}`, ToolChoice{Type: ChoiceAny}, ``},
		{`{"type":"required","disable_parallel_tool_use":true}`, ToolChoice{DisableParallelToolUse: true}, ``},
		{`{"disable_parallel_tool_use":"true"}`, ToolChoice{}, ``},
		{`"auto"`, ToolChoice{}, ``},
		{`null`, ToolChoice{}, ``},
		{``, ToolChoice{}, ``},
	} {
		got := ReadToolChoice(jsonscan.Value(tc.in))
		if got.Type != tc.want.Type || got.DisableParallelToolUse != tc.want.DisableParallelToolUse || string(got.Name) != tc.name {
			t.Errorf("%s: %+v %s, want %+v %s", tc.in, got, got.Name, tc.want, tc.name)
		}
	}
}
