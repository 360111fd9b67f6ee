package llmthinking

import (
	"fmt"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/policy"
)

// BackendProfile declares what the models of one backend take, as the
// handler would learn it from their first refusal, so that not even that
// one is refused. What a profile declares wins over what was learned.
type BackendProfile struct {
	// Backend is the backend's name, as the handler's backend evaluates
	// for the requests that go to it; when backend is unset, the
	// upstream's host:port.
	Backend string `json:"backend"`

	// Models limits the profile to these models: glob patterns matched
	// against the model the client asks for, as thinking_models matches.
	// Unset, every model of the backend.
	Models []string `json:"models,omitempty"`

	// ThinkingBack says which assistant messages the backend refuses
	// without thinking, while thinking is on: "tool_calls", those with a
	// tool call (Kimi), or "all" (DeepSeek V4). Each such message that has
	// no thinking block of this backend's gets an unsigned one in front,
	// whose text is written from the message (a filler, different for
	// every message; with mode convert_to_text or convert_to_tags, the
	// text of the block it lost), never another backend's.
	ThinkingBack string `json:"thinking_back,omitempty"`

	// ThinkingType is the one thinking type the models take: "adaptive"
	// (the newest Claude models, MiniMax M3), which a request that asks
	// for enabled thinking gets with its budget as output_config.effort,
	// or "enabled" (older Claude models), which a request that asks for
	// adaptive gets with a budget from its effort and max_tokens.
	ThinkingType string `json:"thinking_type,omitempty"`

	// Facts are more facts of the models, named as `caddy llm-thinking
	// status` and the logs name what was learned: "no_reasoning_summary"
	// (transport responses asks for no summary), "no_thinking_level"
	// (transport gemini asks with a thinkingBudget), "max_completion_tokens"
	// (transport openai sends the cap under that name), "always_thinks" (a
	// request for no thinking goes with the least thinking), "cannot_think",
	// "no_context_management", "no_clear_thinking", "no_thinking_display".
	Facts []string `json:"facts,omitempty"`
}

// profiles checks the handler's backend profiles and returns them as the
// policy reads them.
func (h *Handler) profiles() (policy.Profiles, error) {
	var ps policy.Profiles
	for i, bp := range h.BackendProfiles {
		name := fmt.Sprintf("backend_profiles[%d]", i)
		if strings.TrimSpace(bp.Backend) == "" {
			return nil, fmt.Errorf("%s: backend must be set", name)
		}
		if bp.ThinkingBack == "" && bp.ThinkingType == "" && len(bp.Facts) == 0 {
			return nil, fmt.Errorf("backend_profile %s: declares nothing (want thinking_back, thinking_type or facts)", bp.Backend)
		}
		facts, err := policy.ProfileFacts(bp.ThinkingBack, bp.ThinkingType, bp.Facts...)
		if err != nil {
			return nil, fmt.Errorf("backend_profile %s: %w", bp.Backend, err)
		}
		if err := policy.CheckModels(bp.Models); err != nil {
			return nil, fmt.Errorf("backend_profile %s: models: %w", bp.Backend, err)
		}
		ps = append(ps, policy.Profile{Backend: policy.BoundedID(bp.Backend), Models: policy.Models(bp.Models), Facts: facts})
	}
	return ps, nil
}
