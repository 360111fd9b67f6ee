package llmtest

import (
	"encoding/json"
	"testing"
)

func TestAISDKHistory(t *testing.T) {
	in := []json.RawMessage{
		json.RawMessage(`{"role":"user","content":[{"type":"text","text":"hi"}]}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"thinking","thinking":"a \"<b>\"\n","signature":"c2ln"},{"type":"text","text":"one"}]}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"thinking","thinking":""},{"type":"redacted_thinking","data":"ZGF0YQ=="},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}`),
		json.RawMessage(`{"role":"assistant", "content":[{"type":"text","text":"no thinking"}]}`),
	}
	const (
		signed   = `{"type":"reasoning","text":"a \"<b>\"\n","providerOptions":{"anthropic":{"signature":"c2ln"}}}`
		unsigned = `{"type":"reasoning","text":""}`
		redacted = `{"type":"reasoning","text":"","providerOptions":{"anthropic":{"redactedData":"ZGF0YQ=="}}}`
		toolUse  = `{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}`
	)
	for _, tt := range []struct {
		name string
		last bool
		want []string
	}{
		{"in place", false, []string{
			string(in[0]),
			`{"role":"assistant","content":[` + signed + `,{"type":"text","text":"one"}]}`,
			`{"role":"assistant","content":[` + unsigned + `,` + redacted + `,` + toolUse + `]}`,
			string(in[3]),
		}},
		{"reasoning last", true, []string{
			string(in[0]),
			`{"role":"assistant","content":[{"type":"text","text":"one"},` + signed + `]}`,
			`{"role":"assistant","content":[` + toolUse + `,` + unsigned + `,` + redacted + `]}`,
			string(in[3]),
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AISDKHistory(in, tt.last)
			if err != nil {
				t.Fatal(err)
			}
			check := func(got []json.RawMessage) {
				t.Helper()
				if len(got) != len(tt.want) {
					t.Fatalf("%d messages, want %d", len(got), len(tt.want))
				}
				for i := range tt.want {
					if string(got[i]) != tt.want[i] {
						t.Errorf("message %d\n got %s\nwant %s", i, got[i], tt.want[i])
					}
				}
			}
			check(got)
			// Converting again changes nothing: only new answers convert.
			again, err := AISDKHistory(got, tt.last)
			if err != nil {
				t.Fatal(err)
			}
			check(again)
		})
	}
	if _, err := AISDKHistory([]json.RawMessage{json.RawMessage(`{"role":"assistant","content":[{"type":1}]}`)}, false); err == nil {
		t.Error("a block that is not an object with a string type converted without an error")
	}
}
