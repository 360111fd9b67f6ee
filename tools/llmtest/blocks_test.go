package llmtest

import (
	"encoding/json"
	"testing"
)

func TestThinkingBlocks(t *testing.T) {
	body := []byte(`{"messages":[
		{"role":"user","content":[{"type":"thinking","thinking":"not the assistant's","signature":"u"}]},
		{"role":"assistant","content":[{"type":"thinking","thinking":"a","signature":"s1"},{"type":"text","text":"x"},{"type":"redacted_thinking","data":"r"}]},
		{"role":"assistant","content":"plain"},
		{"role":"assistant","content":[{"type": "thinking", "thinking": "b"}]}]}`)
	got, err := RequestThinkingBlocks(body)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`{"type":"thinking","thinking":"a","signature":"s1"}`, `{"type":"redacted_thinking","data":"r"}`, `{"type": "thinking", "thinking": "b"}`}
	if len(got) != len(want) {
		t.Fatalf("got %d blocks %s, want %d", len(got), got, len(want))
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Errorf("block %d = %s, want the exact bytes %s", i, got[i], want[i])
		}
	}
	if _, err := RequestThinkingBlocks([]byte(`{"messages":`)); err == nil {
		t.Error("a body that is not JSON gave no error")
	}
	var msgs []json.RawMessage
	if ThinkingBlocks(msgs) != nil {
		t.Error("no messages gave blocks")
	}
}
