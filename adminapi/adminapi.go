// Package adminapi holds the documents of llm_thinking's endpoints on
// Caddy's admin API: what the module serves (see the root package's
// AdminAPI) and what `caddy llm-thinking` reads (package command), one
// type each, so that both sides always agree. It holds no state and
// knows nothing of Caddy.
package adminapi

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/failover"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/persist"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// The endpoints.
const (
	// StatsPath serves GET: a Stats.
	StatsPath = "/llm_thinking/stats"
	// ForgetPath takes POST of a Forget, and answers a Forgotten.
	ForgetPath = "/llm_thinking/forget"
	// HoldsPath serves GET: a Holds; and DELETE, with an optional
	// ?backend=NAME, ending the holds (on that backend): an Ended.
	HoldsPath = "/llm_thinking/holds"
)

// Stats is the body of GET /llm_thinking/stats.
type Stats struct {
	// Registries are the registries in use, by name.
	Registries map[string]RegistryStats `json:"registries"`
	// Memory is what the memory budget of the process holds and counted.
	Memory budget.Stats `json:"memory"`
	// Backends are what each backend used, and how often a request went
	// on from it to another (see failover), since the process started.
	Backends map[string]BackendStats `json:"backends,omitempty"`
}

// BackendStats is what one backend used, as its answers' usage counts,
// and how many requests went on from it to another backend.
type BackendStats struct {
	Tokens    Tokens `json:"tokens"`
	Failovers int64  `json:"failovers"`
}

// Tokens counts tokens by type.
type Tokens struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheRead     int64 `json:"cache_read"`
	CacheCreation int64 `json:"cache_creation"`
}

// RegistryStats is what the endpoint reports of one registry.
type RegistryStats struct {
	registry.Stats
	// Persist counts the registry's storage work; absent when it does not
	// persist.
	Persist *persist.Stats `json:"persist,omitempty"`
	// Capabilities is what was learned of each model of each backend.
	Capabilities []registry.LearnedCapability `json:"capabilities,omitempty"`
}

// Forget is the body of POST /llm_thinking/forget: what was learned of
// Model (every model when "") as Backend serves it is forgotten, in
// Registry (every registry when "").
type Forget struct {
	Registry string `json:"registry,omitempty"`
	Backend  string `json:"backend"`
	Model    string `json:"model,omitempty"`
}

// Forgotten is the answer to POST /llm_thinking/forget: how many models
// each registry forgot.
type Forgotten struct {
	Forgotten map[string]int `json:"forgotten"`
}

// Holds is the body of GET /llm_thinking/holds: the conversations that
// failed over and hold on the backend that answered (see failover.Holds).
type Holds struct {
	Holds []failover.Hold `json:"holds"`
}

// Ended is the answer to DELETE /llm_thinking/holds: how many holds ended.
type Ended struct {
	Ended int `json:"ended"`
}
