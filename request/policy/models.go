package policy

import (
	"fmt"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/glob"
)

// Models is the capability policy: the glob patterns of the models that
// can take thinking. A request for a model that matches none of them has
// every thinking and redacted_thinking block removed, whoever produced
// them. An empty Models lets every model take thinking.
//
// A pattern matches the whole model name, as package glob matches.
type Models []string

// CheckModels reports the first pattern that can never match a model name.
func CheckModels(patterns []string) error {
	for _, p := range patterns {
		if strings.TrimSpace(p) == "" {
			return fmt.Errorf("empty pattern")
		}
	}
	return nil
}

// Capable reports whether model may take thinking.
func (m Models) Capable(model string) bool {
	if len(m) == 0 {
		return true
	}
	for _, p := range m {
		if glob.Match(p, model) {
			return true
		}
	}
	return false
}
