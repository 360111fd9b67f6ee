package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The rules a chat-completions server applies to a request's parameters
// for its model, each in the server's words, status and envelope.

// chatRefusal is a refusal in the server's own envelope.
type chatRefusal struct {
	status int
	body   []byte
	// message is the server's message, for Received.ErrorMessage.
	message string
}

// openAIRefusal returns a refusal in OpenAI's envelope,
// {"error":{"message","type","param","code"}}; "" leaves param or code null.
func openAIRefusal(status int, msg, typ, param, code string) *chatRefusal {
	nullable := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nullable(param), "code": nullable(code)}})
	return &chatRefusal{status: status, body: b, message: msg}
}

// MaxTokensRefusal is OpenAI's message for max_tokens sent to one of its
// reasoning models (gpt-5, the o-series) on chat completions: 400, param
// max_tokens, code unsupported_parameter, type invalid_request_error.
const MaxTokensRefusal = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."

// EffortNoneRefusal is Kimi Code's message for reasoning_effort "none"
// (Kilo-Org/cloud #3807): 400, {"error":{"message","type"}} with type
// invalid_request_error.
const EffortNoneRefusal = "Unsupported value: 'reasoning_effort' does not support 'none' with this model. Supported values are: 'minimal', 'low', 'medium', and 'high'."

// openAIReasoningModel reports whether OpenAI serves model as a reasoning
// model, which takes max_completion_tokens only: gpt-5 and its versions,
// and the o-series (o1, o3, o4-mini...).
func openAIReasoningModel(model string) bool {
	return strings.HasPrefix(model, "gpt-5") || len(model) > 1 && model[0] == 'o' && model[1] >= '1' && model[1] <= '9'
}

// toolsOnlyRefusal is OpenAI's message for a parameter about tools in a
// request without tools (param tool_choice or parallel_tool_calls, type
// invalid_request_error), "none" included; vLLM and SGLang's router word it
// alike.
func toolsOnlyRefusal(param string) *chatRefusal {
	return openAIRefusal(http.StatusBadRequest, "Invalid value for '"+param+"': '"+param+"' is only allowed when 'tools' are specified.",
		"invalid_request_error", param, "")
}

// paramRefusal returns the refusal of a request whose parameters the
// flavor's server does not take for its model, or nil.
func (u *ChatUpstream) paramRefusal(req *chatRequest) *chatRefusal {
	if len(req.Tools) == 0 {
		switch {
		case len(req.ToolChoice) > 0:
			return toolsOnlyRefusal("tool_choice")
		case req.ParallelToolCalls != nil:
			return toolsOnlyRefusal("parallel_tool_calls")
		}
	}
	switch u.flavor {
	case OpenAIStyle:
		if len(req.MaxTokens) > 0 && openAIReasoningModel(req.Model) {
			return openAIRefusal(http.StatusBadRequest, MaxTokensRefusal, "invalid_request_error", "max_tokens", "unsupported_parameter")
		}
	case KimiCodeStyle:
		if req.ReasoningEffort != nil && *req.ReasoningEffort == "none" {
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": EffortNoneRefusal, "type": "invalid_request_error"}})
			return &chatRefusal{status: http.StatusBadRequest, body: b, message: EffortNoneRefusal}
		}
	}
	return nil
}
