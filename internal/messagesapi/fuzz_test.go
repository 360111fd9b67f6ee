package messagesapi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// FuzzReadRequest: on any body, the request reader agrees with
// encoding/json: it refuses exactly what is no JSON object with a messages
// array, and reads every member, every client tool and tool_choice as
// encoding/json finds them (the last of a name given twice).
func FuzzReadRequest(f *testing.F) {
	f.Add([]byte(`{"model":"claude-opus-4-6","max_tokens":32000,"stream":true,"system":[{"type":"text","text":"x"}],"thinking":{"type":"adaptive"},` +
		`"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"tools":[{"name":"Bash","input_schema":{"type":"object"}}]}`))
	f.Add([]byte(`{"messages":[],"tools":[{"name":"a","description":1,"input_schema":{}},{"type":"web_search"},3],"tool_choice":{"type":"tool","name":"a","disable_parallel_tool_use":true}}`))
	f.Add([]byte(`{"m\u0065ssages":[] ,"messages":{},"tool_choice":{"type":"\u0061ny","type":"none"}}`))
	f.Add([]byte(`{"messages":[{}],"tools":{},"tool_choice":{"type":"any","name":"a"},"model":null,"model":"m"}`))
	f.Add([]byte(`[{"messages":[]}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ReadRequest(body, nil)
		var members map[string]json.RawMessage
		isMessages := json.Unmarshal(body, &members) == nil && bytes.HasPrefix(members["messages"], []byte("["))
		if isMessages != (err == nil) {
			t.Fatalf("%q: ReadRequest says %v, encoding/json a Messages request: %v", body, err, isMessages)
		}
		if err != nil {
			return
		}
		for i, v := range []jsonscan.Value{r.Model, r.Stream, r.Messages, r.System, r.Tools, r.ToolChoice, r.MaxTokens,
			r.Temperature, r.TopP, r.TopK, r.StopSequences, r.Metadata, r.Thinking, r.OutputConfig} {
			if want := members[requestMembers[i]]; !bytes.Equal(v, want) {
				t.Fatalf("%q: %s is %s, encoding/json reads %s", body, requestMembers[i], v, want)
			}
		}
		var got, want []Tool
		for tool := range ClientTools(r.Tools) {
			got = append(got, tool)
		}
		var tools []json.RawMessage
		json.Unmarshal(r.Tools, &tools)
		for _, raw := range tools {
			var tool map[string]json.RawMessage
			if raw[0] != '{' || json.Unmarshal(raw, &tool) != nil || !bytes.HasPrefix(tool["input_schema"], []byte("{")) {
				continue
			}
			d := jsonscan.Value(tool["description"])
			if d.Kind() != jsonscan.String {
				d = nil
			}
			want = append(want, Tool{Name: jsonscan.Value(tool["name"]), Description: d, InputSchema: jsonscan.Value(tool["input_schema"])})
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d client tools, encoding/json finds %d", body, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i].Name, want[i].Name) || !bytes.Equal(got[i].Description, want[i].Description) || !bytes.Equal(got[i].InputSchema, want[i].InputSchema) {
				t.Fatalf("%q: client tool %d is %q, encoding/json reads %q", body, i, got[i], want[i])
			}
		}
		choice := ReadToolChoice(r.ToolChoice)
		var tc map[string]json.RawMessage
		var typ string
		if bytes.HasPrefix(r.ToolChoice, []byte("{")) && json.Unmarshal(r.ToolChoice, &tc) == nil {
			json.Unmarshal(tc["type"], &typ)
		}
		wantType := map[string]ToolChoiceType{"auto": ChoiceAuto, "any": ChoiceAny, "tool": ChoiceTool, "none": ChoiceNone}[typ]
		var wantName json.RawMessage
		if wantType == ChoiceTool {
			wantName = tc["name"]
		}
		if choice.Type != wantType || !bytes.Equal(choice.Name, wantName) || choice.DisableParallelToolUse != (string(tc["disable_parallel_tool_use"]) == "true") {
			t.Fatalf("%q: tool_choice read as %+v %s, encoding/json reads %s", body, choice, choice.Name, r.ToolChoice)
		}
	})
}
