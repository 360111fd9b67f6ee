package llmthinking

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func TestRegisterMetricsWithoutRegistry(t *testing.T) {
	if err := registerMetrics(caddy.Context{Context: context.Background()}); err != nil {
		t.Fatalf("a context without a metrics registry: %v", err)
	}
}

// TestMetricsCountRequests drives the handler as Caddy does: one backend
// answers, its block comes back to it, then another backend gets the
// conversation.
func TestMetricsCountRequests(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	first := provisionIn(t, ctx, "metrics-unit-first", t.Name())
	second := provisionIn(t, ctx, "metrics-unit-second", t.Name())
	reg := ctx.GetMetricsRegistry()
	value := func(name, label, value string) float64 { return gathered(t, reg, name, label, value) }
	read := func(backend string) backendCounts {
		return backendCounts{
			observed: value("caddy_llm_thinking_blocks_observed_total", "backend", backend),
			kept:     value("caddy_llm_thinking_blocks_kept_total", "backend", backend),
			stripped: value("caddy_llm_thinking_blocks_stripped_total", "backend", backend),
			switches: value("caddy_llm_thinking_switches_total", "backend", backend),
		}
	}
	beforeFirst, beforeSecond := read("metrics-unit-first"), read("metrics-unit-second")

	const withBlock = `{"messages":[{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"plan <b>","signature":"c2ln"},{"type":"text","text":"ok"}]},` +
		`{"role":"user","content":"more"}],"stream":true}`
	for _, step := range []struct {
		h    *Handler
		body string
	}{
		{first, `{"messages":[{"role":"user","content":"hi"}],"stream":true}`},
		{first, withBlock},
		{second, withBlock},
	} {
		if err := step.h.ServeHTTP(httptest.NewRecorder(), request(step.body), caddyhttp.HandlerFunc(sseUpstream)); err != nil {
			t.Fatal(err)
		}
	}

	// sseReply's block is the same each time: the registry holds one.
	if got, want := read("metrics-unit-first").minus(beforeFirst), (backendCounts{observed: 2, kept: 1}); got != want {
		t.Errorf("first backend: %+v, want %+v", got, want)
	}
	if got, want := read("metrics-unit-second").minus(beforeSecond), (backendCounts{observed: 1, stripped: 1, switches: 1}); got != want {
		t.Errorf("second backend: %+v, want %+v", got, want)
	}
	if got := value("caddy_llm_thinking_registry_blocks", "registry", t.Name()); got != 1 {
		t.Errorf("registry_blocks = %v, want 1", got)
	}
	if got := families(t, reg)["caddy_llm_thinking_persist_writes_total"]; got != nil {
		for _, m := range got.GetMetric() {
			if m.GetLabel()[0].GetValue() == t.Name() {
				t.Errorf("a registry that never persisted reports writes: %v", m)
			}
		}
	}
}

// backendCounts are the counters of one backend.
type backendCounts struct{ observed, kept, stripped, switches float64 }

func (a backendCounts) minus(b backendCounts) backendCounts {
	return backendCounts{a.observed - b.observed, a.kept - b.kept, a.stripped - b.stripped, a.switches - b.switches}
}

// provisionIn provisions a handler for backend in ctx, on the named
// registry without persistence.
func provisionIn(t *testing.T, ctx caddy.Context, backend, registry string) *Handler {
	t.Helper()
	off := false
	h := &Handler{Backend: backend, Registry: registry, Persist: &off}
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Cleanup() })
	return h
}

// families gathers reg, which checks the collectors' consistency.
func families(t *testing.T, reg *prometheus.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	got, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	byName := make(map[string]*dto.MetricFamily)
	for _, f := range got {
		byName[f.GetName()] = f
	}
	return byName
}

// gathered returns the value of the metric name with label=value in reg,
// 0 when there is no such series.
func gathered(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	f := families(t, reg)[name]
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label && l.GetValue() == value {
				if c := m.GetCounter(); c != nil {
					return c.GetValue()
				}
				return m.GetGauge().GetValue()
			}
		}
	}
	return 0
}
