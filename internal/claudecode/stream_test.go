package claudecode

import (
	"strings"
	"testing"
)

func TestEvents(t *testing.T) {
	body := ": comment\r\nevent: a\r\ndata: {\"x\":1}\r\n\r\nevent:b\ndata:one\ndata: two\nid: 7\n\n\n" + "data: tail\r\r"
	got := Events([]byte(body))
	want := []Event{{"a", []byte(`{"x":1}`)}, {"b", []byte("one\ntwo")}, {"", []byte("tail")}}
	if len(got) != len(want) {
		t.Fatalf("%d events: %q", len(got), got)
	}
	for i := range want {
		if got[i].Name != want[i].Name || string(got[i].Data) != string(want[i].Data) {
			t.Errorf("event %d: %q %q, want %q %q", i, got[i].Name, got[i].Data, want[i].Name, want[i].Data)
		}
	}
}

func sse(events ...string) []byte {
	var sb strings.Builder
	for _, e := range events {
		sb.WriteString("data: " + e + "\n\n")
	}
	return []byte(sb.String())
}

func TestAssemble(t *testing.T) {
	tests := []struct {
		name   string
		events []string
		want   string
	}{
		{
			name: "no signature key and no signature_delta (Ollama)",
			events: []string{
				`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"a \u003c b"}}`,
			},
			want: `[{"type":"thinking","thinking":"a < b"}]`,
		},
		{
			name: "signature_delta without a signature key at start (older servers)",
			events: []string{
				`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}`,
			},
			want: `[{"type":"thinking","thinking":"","signature":"c2ln"}]`,
		},
		{
			name: "signature key at start and no delta",
			events: []string{
				`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
			},
			want: `[{"type":"thinking","thinking":"","signature":""}]`,
		},
		{
			name: "blocks in index order, unknown types as started, tool input {} by default",
			events: []string{
				`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t","name":"Bash","input":{}}}`,
				`{"type":"content_block_start","index":0,"content_block":{"zeta":"\u003e","type":"server_tool_use","alpha":[1,2.50,true,null]}}`,
				`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
				`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"x\u2028"}}`,
			},
			want: `[{"zeta":">","type":"server_tool_use","alpha":[1,2.50,true,null]},{"type":"text","text":"x` + "\u2028" + `"},{"type":"tool_use","id":"t","name":"Bash","input":{}}]`,
		},
		{
			name: "tool input from partial_json, keys kept in order",
			events: []string{
				`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"Bash","input":{}}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"z\": \"\\u003c\","}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":" \"a\": 1}"}}`,
			},
			want: `[{"type":"tool_use","id":"t","name":"Bash","input":{"z":"<","a":1}}]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events := append([]string{`{"type":"message_start","message":{}}`, `{"type":"ping"}`}, tt.events...)
			events = append(events, `{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`, `{"type":"message_stop"}`)
			got, err := Assemble(sse(events...))
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Content) != tt.want || got.StopReason != "end_turn" {
				t.Errorf("content %s stop %q\nwant %s", got.Content, got.StopReason, tt.want)
			}
		})
	}
}

func TestAssembleFailures(t *testing.T) {
	got, err := Assemble(sse(`{"type":"message_start","message":{}}`, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	if err != nil || got.ErrorType != "overloaded_error" || got.ErrorMessage != "Overloaded" {
		t.Errorf("error event: %+v %v", got, err)
	}
	for _, tt := range []struct {
		name string
		body []byte
		want string
	}{
		{"cut short", sse(`{"type":"message_start","message":{}}`), "stream ended without message_stop"},
		{"delta before start", sse(`{"type":"content_block_delta","index":3,"delta":{}}`), "content_block_delta for unknown index 3"},
		{"bad JSON", []byte("event: ping\ndata: {\n\n"), `event "ping": unexpected end of JSON input`},
		{"bad tool input", sse(
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"Bash","input":{}}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\""}}`,
			`{"type":"message_stop"}`), "content block 0: tool_use input: unexpected EOF"},
	} {
		if _, err := Assemble(tt.body); err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestAssembleStream(t *testing.T) {
	stream := sse(`{"type":"message_start","message":{"model":"m"}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\u003cb"}}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`, `{"type":"message_stop"}`)
	got, err := AssembleStream(stream)
	if want := `{"content":[{"type":"text","text":"a<b"}],"stop_reason":"end_turn"}`; err != nil || string(got) != want {
		t.Errorf("AssembleStream = %s, %v; want %s", got, err, want)
	}
	_, err = AssembleStream(sse(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	if want := "claudecode: error event overloaded_error: Overloaded"; err == nil || err.Error() != want {
		t.Errorf("error event: %v, want %s", err, want)
	}
}
