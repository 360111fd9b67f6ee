package policy

import (
	"fmt"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// Profile is what an operator declares of the models of a backend, so that
// not even their first request is refused for it: the facts apply as if
// they had been learned from a refusal.
type Profile struct {
	// Backend is the backend's name, as requests are planned for it.
	Backend string
	// Models are the models it speaks of, as glob patterns (see Models);
	// none for every model.
	Models Models
	// Facts are what they take.
	Facts registry.Capability
}

// Profiles are the profiles of a policy.
type Profiles []Profile

// Facts returns the facts declared of model as backend serves it: those of
// every profile that names both, a later profile's winning over an
// earlier one's opposite.
func (ps Profiles) Facts(backend, model string) registry.Capability {
	var c registry.Capability
	for _, p := range ps {
		if p.Backend == backend && p.Models.Capable(model) {
			c = c.Override(p.Facts)
		}
	}
	return c
}

// The words of a profile, as the configuration writes them.
const (
	// ThinkingBackToolCalls and ThinkingBackAll say which assistant
	// messages a backend wants thinking on.
	ThinkingBackToolCalls = "tool_calls"
	ThinkingBackAll       = "all"
	// ThinkingTypeAdaptive and ThinkingTypeEnabled name the one thinking
	// type a backend's models take.
	ThinkingTypeAdaptive = "adaptive"
	ThinkingTypeEnabled  = "enabled"
)

// ProfileFacts returns the facts that a profile's words declare:
// thinkingBack is "", ThinkingBackToolCalls or ThinkingBackAll,
// thinkingType "", ThinkingTypeAdaptive or ThinkingTypeEnabled, and names
// name facts as registry.Capability.Names writes them.
func ProfileFacts(thinkingBack, thinkingType string, names ...string) (registry.Capability, error) {
	var c registry.Capability
	for _, n := range names {
		f, ok := registry.ParseCapability(n)
		if !ok {
			return 0, fmt.Errorf("unknown fact %q (want one of %s)", n, strings.Join(registry.CapabilityNames(), ", "))
		}
		c |= f
	}
	switch thinkingBack {
	case "":
	case ThinkingBackToolCalls:
		c |= registry.ThinkingBackOnToolCalls
	case ThinkingBackAll:
		c |= registry.ThinkingBackEverywhere
	default:
		return 0, fmt.Errorf("thinking_back must be %s or %s, got %q", ThinkingBackToolCalls, ThinkingBackAll, thinkingBack)
	}
	switch thinkingType {
	case "":
	case ThinkingTypeAdaptive:
		c |= registry.NoEnabledThinking
	case ThinkingTypeEnabled:
		c |= registry.NoAdaptiveThinking
	default:
		return 0, fmt.Errorf("thinking_type must be %s or %s, got %q", ThinkingTypeAdaptive, ThinkingTypeEnabled, thinkingType)
	}
	return c, nil
}
