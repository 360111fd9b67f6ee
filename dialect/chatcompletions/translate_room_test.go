package chatcompletions

import (
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/dialecttest"
)

// TestTranslationWritesOnlyWhereItAskedRoom: for random requests, the
// translation is valid JSON and every byte of it is written into the
// memory Grow gave, asked for exactly: nothing is ever allocated behind the
// budget's back.
func TestTranslationWritesOnlyWhereItAskedRoom(t *testing.T) {
	i := -1
	dialecttest.RandomRequestsInRoom(t, claudecode.RandomRequest, 1, 2, func(body []byte, grow dialecttest.Grow) ([]byte, error) {
		i++
		reasoning := []Reasoning{ReasoningContent, ReasoningField, ReasoningDetails, ReasoningThinkTags, ReasoningNone}[i%5]
		got, err := TranslateRequest(body, RequestOptions{Reasoning: reasoning, ThinkingSwitch: ThinkingSwitch(i % 4), Grow: grow})
		return got.Body, err
	})
}
