package transport

import (
	"fmt"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/glob"
)

// ModelMap maps the models clients ask for that match a glob pattern to
// the model the upstream serves.
type ModelMap struct {
	// Match is a glob pattern over the model the client asks for: "*" any
	// run of characters, "?" one; case-sensitive.
	Match string `json:"match"`
	// Model is the model the upstream gets instead.
	Model string `json:"model"`
}

// Models is a list of mappings; the first that matches wins, and a model
// that matches none goes as the client sent it.
type Models []ModelMap

// Map returns the model the upstream gets for the model asked for, and
// whether a mapping changed it.
func (m Models) Map(asked string) (string, bool) {
	for _, mm := range m {
		if glob.Match(mm.Match, asked) {
			return mm.Model, mm.Model != asked
		}
	}
	return asked, false
}

// Check reports the first mapping that cannot work.
func (m Models) Check() error {
	for _, mm := range m {
		if strings.TrimSpace(mm.Match) == "" || strings.TrimSpace(mm.Model) == "" {
			return fmt.Errorf("model %q %q: want a pattern and a model name", mm.Match, mm.Model)
		}
	}
	return nil
}
