package llmthinking

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/adminapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/observe"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/policy"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// Prometheus names: caddy_llm_thinking_<name>.
const (
	metricsNamespace = "caddy"
	metricsSubsystem = "llm_thinking"
)

// maxBackendLabels bounds the distinct values of the backend label (see
// boundedLabels). Backend names can come from request headers; a config
// names far fewer. maxModelLabels bounds the model label the same way:
// clients name the models.
const (
	maxBackendLabels = 64
	maxModelLabels   = 64
)

// thinkingMetrics are llm_thinking's Prometheus metrics. They live at
// package level, like the registries they count, because Caddy gives every
// config load a new Prometheus registry: each load registers the same
// collectors into its own registry (see registerMetrics), so the counts go
// on across reloads and start again only with the process.
//
// The counters are labelled by backend, never by conversation, with at
// most maxBackendLabels values; the registry metrics by registry, which
// only the config names.
type thinkingMetrics struct {
	backends *boundedLabels
	models   *boundedLabels

	observed  *prometheus.CounterVec
	kept      *prometheus.CounterVec
	stripped  *prometheus.CounterVec
	converted *prometheus.CounterVec
	retries   *prometheus.CounterVec
	switches  *prometheus.CounterVec
	failovers *prometheus.CounterVec
	tokens    *prometheus.CounterVec
	tally     backendTally

	registries registryCollector
	memory     memoryCollector
}

// metrics are the process's llm_thinking metrics.
var metrics = newThinkingMetrics(maxBackendLabels)

// newThinkingMetrics returns metrics that give at most maxBackends backends
// a label value of their own.
func newThinkingMetrics(maxBackends int) *thinkingMetrics {
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Subsystem: metricsSubsystem, Name: name, Help: help,
		}, []string{"backend"})
	}
	return &thinkingMetrics{
		backends: newBoundedLabels(maxBackends),
		models:   newBoundedLabels(maxModelLabels),
		observed: counter("blocks_observed_total",
			"Thinking and redacted_thinking blocks learned from responses, by the backend that produced them."),
		kept: counter("blocks_kept_total",
			"Thinking blocks sent on unchanged, by the backend the request went to."),
		stripped: counter("blocks_stripped_total",
			"Thinking blocks removed from requests, by the backend the request went to."),
		converted: counter("blocks_converted_total",
			"Thinking blocks turned into text or sent without their signature, by the backend the request went to."),
		retries: counter("retries_total",
			"Requests refused for their thinking and replayed, repaired, by the backend that refused them."),
		switches: counter("switches_total",
			"Conversations that moved to another backend, by the backend they moved to."),
		failovers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Subsystem: metricsSubsystem, Name: "failovers_total",
			Help: "Requests a backend turned away that went on to the next backend of a failover list, by the backend that turned them away, the next one and the status.",
		}, []string{"from", "to", "status"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Subsystem: metricsSubsystem, Name: "tokens_total",
			Help: "Tokens the answers' usage counted, by backend, model asked for and type (input, output, cache_read, cache_creation).",
		}, []string{"backend", "model", "type"}),
		tally:      backendTally{m: make(map[string]*adminapi.BackendStats)},
		registries: newRegistryCollector(),
		memory:     newMemoryCollector(budget.Process.Stats),
	}
}

// Describe sends the descriptors of every metric.
func (m *thinkingMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
}

// Collect sends the current value of every metric.
func (m *thinkingMetrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
}

// collectors returns every collector the metrics are made of.
func (m *thinkingMetrics) collectors() [10]prometheus.Collector {
	return [...]prometheus.Collector{m.observed, m.kept, m.stripped, m.converted, m.retries, m.switches, m.failovers, m.tokens,
		m.registries, m.memory}
}

// register adds the metrics to reg. Registering them twice in the same
// registry (two handlers of one config, the admin module and a handler) is
// not an error.
func (m *thinkingMetrics) register(reg *prometheus.Registry) error {
	err := reg.Register(m)
	if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok && are.ExistingCollector == m {
		return nil
	}
	if err != nil {
		return fmt.Errorf("llm_thinking: registering metrics: %w", err)
	}
	return nil
}

// registerMetrics adds the process's metrics to the Prometheus registry of
// the config ctx loads, the one Caddy serves on the admin endpoint's
// /metrics and with the metrics handler.
func registerMetrics(ctx caddy.Context) error {
	reg := ctx.GetMetricsRegistry()
	if reg == nil {
		return nil
	}
	return metrics.register(reg)
}

// countPlan counts what became of the blocks of one planned request, and
// the switch it made, under the backend they were decided for.
func (m *thinkingMetrics) countPlan(plan policy.Plan) {
	if plan.Switched {
		m.countSwitch(plan.Target)
	}
	res := plan.Result
	if res.Kept == 0 && res.Stripped == 0 && res.Converted == 0 {
		return
	}
	backend := m.backends.value(plan.Target)
	add(m.kept, backend, res.Kept)
	add(m.stripped, backend, res.Stripped)
	add(m.converted, backend, res.Converted)
}

// countObserved counts n blocks backend produced.
func (m *thinkingMetrics) countObserved(backend string, n int) {
	add(m.observed, m.backends.value(backend), n)
}

// countRetry counts one refused request replayed.
func (m *thinkingMetrics) countRetry(backend string) {
	m.retries.WithLabelValues(m.backends.value(backend)).Inc()
}

// countSwitch counts one conversation moved to backend.
func (m *thinkingMetrics) countSwitch(to string) {
	m.switches.WithLabelValues(m.backends.value(to)).Inc()
}

// countFailover counts one request that went on from a backend to the
// next for status.
func (m *thinkingMetrics) countFailover(from, to string, status int) {
	from = m.backends.value(from)
	m.failovers.WithLabelValues(from, m.backends.value(to), strconv.Itoa(status)).Inc()
	m.tally.add(from, func(s *adminapi.BackendStats) { s.Failovers++ })
}

// countTokens counts the tokens of one answer of backend, for the model
// asked for.
func (m *thinkingMetrics) countTokens(backend, model string, u observe.Usage) {
	if !u.Any() {
		return
	}
	backend, model = m.backends.value(backend), m.models.value(model)
	for _, c := range [...]struct {
		typ string
		n   int64
	}{{"input", u.Input}, {"output", u.Output}, {"cache_read", u.CacheRead}, {"cache_creation", u.CacheCreation}} {
		if c.n > 0 {
			m.tokens.WithLabelValues(backend, model, c.typ).Add(float64(c.n))
		}
	}
	m.tally.add(backend, func(s *adminapi.BackendStats) {
		s.Tokens.Input += u.Input
		s.Tokens.Output += u.Output
		s.Tokens.CacheRead += u.CacheRead
		s.Tokens.CacheCreation += u.CacheCreation
	})
}

// add adds n to the counter of label, creating no series for nothing.
func add(c *prometheus.CounterVec, label string, n int) {
	if n > 0 {
		c.WithLabelValues(label).Add(float64(n))
	}
}

// Interface guard
var _ prometheus.Collector = (*thinkingMetrics)(nil)
