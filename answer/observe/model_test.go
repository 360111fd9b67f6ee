package observe

import (
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

func TestSSEModel(t *testing.T) {
	tests := []struct {
		stream, want string
	}{
		{ev("message_start", `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"glm-4.6","content":[]}}`), "glm-4.6"},
		{ev("message_start", `{"type":"message_start","message":{"model":"a\u002fb"}}`), "a/b"},
		{ev("message_start", `{"type":"message_start","message":{"model":7}}`), ""},
		{ev("message_start", `{"type":"message_start","model":"not-in-message"}`), ""},
		{ev("ping", `{"type":"ping"}`), ""},
	}
	for _, tt := range tests {
		s := NewSSE(func([]block.Observed) {})
		for i := range len(tt.stream) { // byte by byte: the model must not depend on the cuts
			s.Write([]byte(tt.stream[i : i+1]))
		}
		s.Write([]byte(ev("message_stop", `{"type":"message_stop"}`)))
		if got := s.Model(); got != tt.want {
			t.Errorf("%q: Model() = %q, want %q", tt.stream, got, tt.want)
		}
	}
}

func TestJSONModel(t *testing.T) {
	j := NewJSON(1<<20, "")
	j.Write([]byte(`{"id":"m","type":"message","role":"assistant","model":"qwen3:8b","content":[],"usage":{"model":"x"}}`))
	if _, err := j.Blocks(); err != nil {
		t.Fatal(err)
	}
	if got := j.Model(); got != "qwen3:8b" {
		t.Fatalf("Model() = %q", got)
	}
}
