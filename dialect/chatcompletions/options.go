package chatcompletions

import (
	"fmt"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
)

// Reasoning says where a server wants its own reasoning back, on the
// assistant messages of later requests.
type Reasoning uint8

// Where reasoning goes back.
const (
	// ReasoningContent is the reasoning_content field (DeepSeek, Kimi, GLM,
	// SGLang, llama.cpp, older vLLM). Every assistant message with
	// tool_calls carries it, a placeholder when it has no reasoning: DeepSeek
	// and Kimi refuse a tool call message without it.
	ReasoningContent Reasoning = iota
	// ReasoningField is the reasoning field (newer vLLM, Ollama,
	// OpenRouter), with the same placeholder rule.
	ReasoningField
	// ReasoningDetails is OpenRouter's reasoning_details array: with a
	// Details Signer, every part the server sent, as it sent it (see
	// details.go); without, one reasoning.text item. A message with tool
	// calls and no reasoning carries none, but for a Gemini model the
	// documented dummy.
	ReasoningDetails
	// ReasoningThinkTags puts it in front of the content between <think>
	// and </think>, as models that write tags read it (MiniMax, a locally
	// deployed GLM).
	ReasoningThinkTags
	// ReasoningNone never sends it back.
	ReasoningNone
)

var reasoningNames = [...]string{"reasoning_content", "reasoning", "reasoning_details", "think_tags", "none"}

// String returns the configuration name of r.
func (r Reasoning) String() string {
	if int(r) < len(reasoningNames) {
		return reasoningNames[r]
	}
	return fmt.Sprintf("Reasoning(%d)", r)
}

// ParseReasoning reads a configuration name; "" is ReasoningContent.
func ParseReasoning(s string) (Reasoning, error) {
	if s == "" {
		return ReasoningContent, nil
	}
	for i, n := range reasoningNames {
		if n == s {
			return Reasoning(i), nil
		}
	}
	return 0, fmt.Errorf("unknown reasoning %q: want reasoning_content, reasoning, reasoning_details, think_tags or none", s)
}

// ThinkingSwitch says how a request's thinking on or off reaches the
// server.
type ThinkingSwitch uint8

// The ways to turn a server's thinking on or off.
const (
	// SwitchNone sends nothing: the server's default applies.
	SwitchNone ThinkingSwitch = iota
	// SwitchReasoningEffort sends reasoning_effort: low, medium or high from
	// the thinking budget, "none" when thinking is off (Ollama, OpenAI,
	// DeepSeek).
	SwitchReasoningEffort
	// SwitchChatTemplateKwargs sends chat_template_kwargs with
	// enable_thinking and thinking (vLLM, SGLang, llama.cpp templates of
	// Qwen3 and DeepSeek-V3.1).
	SwitchChatTemplateKwargs
	// SwitchThinking sends thinking {"type":"enabled"|"disabled"} (DeepSeek,
	// Kimi, GLM).
	SwitchThinking
)

var switchNames = [...]string{"none", "reasoning_effort", "chat_template_kwargs", "thinking"}

// String returns the configuration name of s.
func (s ThinkingSwitch) String() string {
	if int(s) < len(switchNames) {
		return switchNames[s]
	}
	return fmt.Sprintf("ThinkingSwitch(%d)", s)
}

// ParseThinkingSwitch reads a configuration name; "" is SwitchNone.
func ParseThinkingSwitch(s string) (ThinkingSwitch, error) {
	if s == "" {
		return SwitchNone, nil
	}
	for i, n := range switchNames {
		if n == s {
			return ThinkingSwitch(i), nil
		}
	}
	return 0, fmt.Errorf("unknown thinking_switch %q: want none, reasoning_effort, chat_template_kwargs or thinking", s)
}

// RequestOptions say how to translate a request for one server.
type RequestOptions struct {
	// Model is the model the server gets; "" keeps the one the client
	// asked for.
	Model string
	// Reasoning is where the server wants its reasoning back.
	Reasoning Reasoning
	// ThinkingSwitch is how thinking on or off reaches it.
	ThinkingSwitch ThinkingSwitch
	// MaxTokens, when above 0, caps max_tokens: Claude Code asks for
	// 32000, more than some local servers' context holds.
	MaxTokens int
	// MaxCompletionTokens sends the cap as max_completion_tokens: OpenAI's
	// reasoning models (gpt-5, the o-series) refuse max_tokens.
	MaxCompletionTokens bool
	// AlwaysThinks says the model refuses to be told not to think
	// (reasoning_effort "none" refused): a request that asks for no
	// thinking, or says nothing of it, goes with reasoning_effort "low"
	// under SwitchReasoningEffort, and with no switch under the others.
	AlwaysThinks bool
	// ThinkingOff is the thinking config llm_thinking took out of the
	// request only for the Messages API's rule on tool loops (see
	// handoff.Pass): a request without one thinks as it
	// says.
	ThinkingOff []byte
	// Details, when its Key is set and Reasoning is ReasoningDetails, opens
	// the envelopes of the reasoning_details parts thinking blocks carry
	// (see NewDetailsSigner): each goes back as it came, on the assistant
	// message of its block; a block whose envelope does not open goes
	// nowhere.
	Details envelope.Signer
	// Grow, when set, gives the translation the memory it writes into: it
	// returns a buffer that holds p's bytes and room for at least n more
	// (memory a budget counts, say), or an error that stops the
	// translation, which TranslateRequest then returns. Without it, the
	// translation grows as append does.
	Grow func(p []byte, n int) ([]byte, error)
	// Hold, when set, is told how many bytes the translation holds beside
	// what it writes, each time that grows (the tool calls of a message
	// waiting for their results, in a few bytes each); its error stops
	// the translation.
	Hold func(bytes int) error
}

// AnswerOptions say how to translate one answer.
type AnswerOptions struct {
	// Model is the model the answer names: the one the client asked for,
	// so that Claude Code keeps replaying the reasoning.
	Model string
	// ToolNames maps tool names shortened for the server back to the
	// client's (see Translated.ToolNames).
	ToolNames map[string]string
	// AssumeOpen says that the content starts inside a think section: the
	// model omits the opening tag (DeepSeek-R1 style).
	AssumeOpen bool
	// NoTags says that <think> tags in the content are text like any
	// other.
	NoTags bool
	// InputTokens stands in for the input usage when the server reports
	// none (an estimate, see messagesapi.Estimate).
	InputTokens int
	// Sign mints the signature of the thinking block made from the
	// reasoning; it must not be nil (see DefaultSign).
	Sign Sign
	// Details, when its Key is set, seals every reasoning_details part an
	// answer carries in the envelope of its thinking block (see
	// details.go), whose text is then the parts' texts; Sign signs the
	// blocks without parts.
	Details envelope.Signer
}
