package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// The Responses API's rules on the values of parameters and on the
// account, each in OpenAI's words, status, param and code, as a
// ResponsesUpstream applies them.

// MinOutputTokens is the least max_output_tokens the Responses API takes.
const MinOutputTokens = 16

// readMaxOutputTokens refuses a max_output_tokens below the minimum, as
// the API does: "Invalid 'max_output_tokens': integer below minimum value.
// Expected a value >= 16, but got 1 instead." (param max_output_tokens,
// code integer_below_min_value; caddy-llm-thinking issue 28, Claude Code's
// max_tokens 1 requests). Its kind was checked before.
func readMaxOutputTokens(_ *respRequest, top object) *respErr {
	raw := top.m["max_output_tokens"]
	var n int64
	if isNull(raw) || json.Unmarshal(raw, &n) != nil || n >= MinOutputTokens {
		return nil
	}
	return &respErr{status: http.StatusBadRequest, code: "integer_below_min_value", param: "max_output_tokens",
		msg: fmt.Sprintf("Invalid 'max_output_tokens': integer below minimum value. Expected a value >= %d, but got %d instead.", MinOutputTokens, n)}
}

// UnverifiedOrganizationMessage is OpenAI's refusal of a reasoning summary
// to an organization that is not verified (continuedev/continue #9602,
// OpenHands/software-agent-sdk #987).
const UnverifiedOrganizationMessage = "Your organization must be verified to generate reasoning summaries. " +
	"Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. " +
	"If you just verified, it can take up to 15 minutes for access to propagate."

// UnverifyOrganization makes org an organization that is not verified:
// every request of one of its keys that asks for a reasoning summary
// (reasoning.summary auto, concise or detailed) is refused, 400, param
// reasoning.summary, code unsupported_value, with
// UnverifiedOrganizationMessage. A request without a summary is answered
// as any, its encrypted reasoning included. The mock's own organization is
// "org-{name}" (see SetOrganization).
func (u *ResponsesUpstream) UnverifyOrganization(org string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.unverified[org] = true
}

// summaryRefused returns the refusal of a request of org asking for a
// summary org may not have, or nil. Called with u.mu held.
func (u *ResponsesUpstream) summaryRefused(req *respRequest, org string) *respErr {
	if req.summary == "" || !u.unverified[org] {
		return nil
	}
	return &respErr{status: http.StatusBadRequest, code: "unsupported_value", param: "reasoning.summary", msg: UnverifiedOrganizationMessage}
}
