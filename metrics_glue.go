package llmthinking

import (
	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/metrics"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/pool"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// counters are the process's llm_thinking metrics. They live at package
// level, like the registries they count (see package metrics).
var counters = metrics.New(metrics.MaxBackendLabels, pool.Live, budget.Process.Stats)

// registerMetrics adds the process's metrics to the Prometheus registry of
// the config ctx loads, the one Caddy serves on the admin endpoint's
// /metrics and with the metrics handler.
func registerMetrics(ctx caddy.Context) error {
	return counters.Register(ctx.GetMetricsRegistry())
}
