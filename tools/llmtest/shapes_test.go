package llmtest

import (
	"encoding/json"
	"testing"
)

// TestThinkingBackRules: Kimi refuses a tool call message without
// thinking, DeepSeek V4 any earlier assistant message without it, in their
// own words; an empty unsigned block will do, and thinking off asks for
// none.
func TestThinkingBackRules(t *testing.T) {
	emptyBlock := json.RawMessage(`{"type":"thinking","thinking":"","signature":""}`)
	for _, tc := range []struct {
		rule         ThinkingBackRule
		onText, onTC string // the refusal for a text answer, a tool call, without thinking
	}{
		{KimiThinkingBack, "", "thinking is enabled but reasoning_content is missing in assistant tool call message at index 1"},
		{DeepSeekThinkingBack, "The `content[].thinking` in the thinking mode must be passed back to the API.", "The `content[].thinking` in the thinking mode must be passed back to the API."},
	} {
		for _, tool := range []bool{false, true} {
			up := newUpstream(t, "k", Lenient)
			up.WantThinkingBack(tc.rule)
			c := NewConversation(up.URL(), "s")
			script, want := "hi", tc.onText
			if tool {
				script, want = "go [tool]", tc.onTC
			}
			must(t)(c.Say(script))
			editContent(t, c, 1, without("thinking"))
			next := func() (*Turn, error) { return c.Say("next") }
			if tool {
				next = func() (*Turn, error) { return c.ToolResult("done") }
			}
			turn, err := next()
			if want == "" {
				must(t)(turn, err)
				continue
			}
			wantInvalid(t, turn, err, want)
			c.Messages = c.Messages[:len(c.Messages)-1]
			editContent(t, c, 1, func(b []json.RawMessage) []json.RawMessage { return append([]json.RawMessage{emptyBlock}, b...) })
			must(t)(next())
			c.Thinking = "disabled"
			editContent(t, c, 1, without("thinking"))
			must(t)(c.Say("thinking off"))
		}
	}
}

// TestTypeRefusals: each server refuses the type its models do not take,
// in its words, and takes the other.
func TestTypeRefusals(t *testing.T) {
	for _, tc := range []struct {
		r        TypeRefusal
		refused  string
		accepted string
		want     string
	}{
		{ClaudeRefusesEnabled, "enabled", "adaptive", `"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`},
		{MiniMaxRefusesEnabled, "enabled", "adaptive", `invalid params, invalid thinking.type: "enabled" (allowed: adaptive, disabled) (2013)`},
		{ClaudeRefusesAdaptive, "adaptive", "enabled", "adaptive thinking is not supported on this model"},
	} {
		up := newUpstream(t, "a", Strict)
		up.RefuseThinkingType(tc.r, "claude-opus-4-8")
		c := NewConversation(up.URL(), "s")
		c.Model, c.Thinking = "claude-opus-4-8", tc.refused
		turn, err := c.Say("hi")
		wantInvalid(t, turn, err, tc.want)
		c.Thinking = tc.accepted
		must(t)(c.Send())
		c.Model, c.Thinking = "claude-sonnet-4-5", tc.refused
		must(t)(c.Say("another model"))
	}
}

// TestThinkingConfigRule: enabled thinking needs a budget the API takes,
// and an effort must be one it knows.
func TestThinkingConfigRule(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	for _, tc := range []struct{ body, want string }{
		{`{"model":"m","max_tokens":32000,"messages":[{"role":"user","content":"hi"}],"thinking":{"type":"enabled"}}`, msgNoBudget},
		{`{"model":"m","max_tokens":32000,"messages":[{"role":"user","content":"hi"}],"thinking":{"type":"enabled","budget_tokens":512}}`, msgSmallBudget},
		{`{"model":"m","max_tokens":8000,"messages":[{"role":"user","content":"hi"}],"thinking":{"type":"enabled","budget_tokens":8000}}`, msgBudgetOverMax},
		{`{"model":"m","max_tokens":8000,"messages":[{"role":"user","content":"hi"}],"thinking":{"type":"adaptive"},"output_config":{"effort":"extreme"}}`, msgBadEffort},
		{`{"model":"m","max_tokens":8000,"messages":[{"role":"user","content":"hi"}],"thinking":{"type":"adaptive"},"output_config":{"effort":"low"}}`, ""},
	} {
		c := NewConversation(up.URL(), "s")
		turn, err := c.post("/v1/messages", []byte(tc.body))
		if tc.want == "" {
			must(t)(turn, err)
			continue
		}
		wantInvalid(t, turn, err, tc.want)
	}
}
