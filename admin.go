package llmthinking

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"
)

func init() {
	caddy.RegisterModule(AdminAPI{})
}

// AdminAPI serves registry and memory statistics on Caddy's admin endpoint
// at GET /llm_thinking/stats. Caddy loads admin.api modules by itself: building
// the plugin in is enough.
type AdminAPI struct{}

// CaddyModule returns the Caddy module information.
func (AdminAPI) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "admin.api.llm_thinking",
		New: func() caddy.Module { return new(AdminAPI) },
	}
}

// Provision adds llm_thinking's metrics to the Prometheus registry of the
// config being loaded, the one the admin endpoint's /metrics serves, so
// that they are there whatever the config holds.
func (AdminAPI) Provision(ctx caddy.Context) error { return registerMetrics(ctx) }

// Routes returns the admin routes.
func (a AdminAPI) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{{Pattern: "/llm_thinking/stats", Handler: caddy.AdminHandlerFunc(a.serveStats)}}
}

// StatsResponse is the body of GET /llm_thinking/stats.
type StatsResponse struct {
	Registries map[string]RegistryStats `json:"registries"`
	// Memory is what the memory budget of the process holds and counted.
	Memory MemoryStats `json:"memory"`
}

func (AdminAPI) serveStats(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed, use GET", r.Method)}
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(StatsResponse{Registries: registryStats(), Memory: processMemory.stats()})
}

// Interface guards
var (
	_ caddy.AdminRouter = AdminAPI{}
	_ caddy.Provisioner = AdminAPI{}
)
