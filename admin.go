package llmthinking

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/adminapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/pool"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

func init() {
	caddy.RegisterModule(AdminAPI{})
}

// AdminAPI serves registry and memory statistics on Caddy's admin endpoint
// at GET /llm_thinking/stats, forgets what was learned of a backend's
// models at POST /llm_thinking/forget, and lists or ends the holds of
// conversations that failed over at /llm_thinking/holds. Caddy loads admin.api modules by
// itself: building the plugin in is enough.
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
	return []caddy.AdminRoute{
		{Pattern: adminapi.StatsPath, Handler: caddy.AdminHandlerFunc(a.serveStats)},
		{Pattern: adminapi.ForgetPath, Handler: caddy.AdminHandlerFunc(a.serveForget)},
		{Pattern: adminapi.HoldsPath, Handler: caddy.AdminHandlerFunc(a.serveHolds)},
	}
}

func (AdminAPI) serveStats(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed, use GET", r.Method)}
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(adminapi.Stats{Registries: pool.Stats(), Memory: budget.Process.Stats(), Backends: counters.Backends()})
}

func (AdminAPI) serveForget(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed, use POST", r.Method)}
	}
	var req adminapi.Forget
	dec := json.NewDecoder(io.LimitReader(r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return caddy.APIError{HTTPStatus: http.StatusBadRequest, Err: fmt.Errorf("decoding the request: %w", err)}
	}
	if req.Backend == "" {
		return caddy.APIError{HTTPStatus: http.StatusBadRequest, Err: errors.New("no backend to forget")}
	}
	resp := adminapi.Forgotten{Forgotten: pool.Forget(req.Registry, req.Backend, req.Model)}
	if req.Registry != "" && len(resp.Forgotten) == 0 {
		return caddy.APIError{HTTPStatus: http.StatusNotFound, Err: fmt.Errorf("no registry %q in use", req.Registry)}
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(resp)
}

// serveHolds lists the conversations that hold on a backend after a
// failover (GET), or ends their holds (DELETE, every backend's or those
// on ?backend=NAME), as when the first backend answers again.
func (AdminAPI) serveHolds(w http.ResponseWriter, r *http.Request) error {
	var doc any
	switch r.Method {
	case http.MethodGet:
		doc = adminapi.Holds{Holds: holds.List()}
	case http.MethodDelete:
		doc = adminapi.Ended{Ended: holds.End(r.URL.Query().Get("backend"))}
	default:
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed, use GET or DELETE", r.Method)}
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(doc)
}

// Interface guards
var (
	_ caddy.AdminRouter = AdminAPI{}
	_ caddy.Provisioner = AdminAPI{}
)
