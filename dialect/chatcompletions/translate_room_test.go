package chatcompletions

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
)

// TestTranslationWritesOnlyWhereItAskedRoom: for random requests, the
// translation is valid JSON and every byte of it is written into the
// memory Grow gave, asked for exactly: nothing is ever allocated behind the
// budget's back.
func TestTranslationWritesOnlyWhereItAskedRoom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		body := claudecode.RandomRequest(r)
		var last []byte
		grow := func(p []byte, n int) ([]byte, error) {
			last = make([]byte, len(p), len(p)+n)
			copy(last, p)
			return last, nil
		}
		reasoning := []Reasoning{ReasoningContent, ReasoningField, ReasoningDetails, ReasoningThinkTags, ReasoningNone}[i%5]
		got, err := TranslateRequest(body, RequestOptions{Reasoning: reasoning, ThinkingSwitch: ThinkingSwitch(i % 4), Grow: grow})
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if unsafe.SliceData(got.Body) != unsafe.SliceData(last) {
			t.Fatalf("wrote past the room it asked for: %s", body)
		}
		if !json.Valid(got.Body) {
			t.Fatalf("invalid JSON out of %s: %s", body, got.Body)
		}
	}
}
