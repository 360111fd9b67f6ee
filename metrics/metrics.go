// Package metrics holds llm_thinking's Prometheus metrics: the counters of
// what became of thinking blocks, retries, switches, failovers and tokens,
// by backend; the registries' sizes and storage work; the memory budget's
// figures. They live for the process, because Caddy gives every config
// load a new Prometheus registry: each load registers the same collectors
// into its own (see Counters.Register), so the counts go on across reloads.
package metrics

import (
	"errors"
	"fmt"
	"strconv"

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

// MaxBackendLabels bounds the distinct values of the backend label (see
// boundedLabels). Backend names can come from request headers; a config
// names far fewer. maxModelLabels bounds the model label the same way:
// clients name the models.
const (
	MaxBackendLabels = 64
	maxModelLabels   = 64
)

// Counters are llm_thinking's Prometheus metrics, one set per process.
// The counters are labelled by backend, never by conversation, with a
// bounded number of values; the registry metrics by registry, which only
// the config names.
type Counters struct {
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
	series    seriesCache

	registries registryCollector
	memory     memoryCollector
}

// New returns metrics that give at most maxBackends backends a label value
// of their own, and read the live registries and the memory budget's
// figures when Prometheus scrapes.
func New(maxBackends int, registries func() []Registry, memory func() budget.Stats) *Counters {
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Subsystem: metricsSubsystem, Name: name, Help: help,
		}, []string{"backend"})
	}
	return &Counters{
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
		registries: newRegistryCollector(registries),
		memory:     newMemoryCollector(memory),
	}
}

// Describe sends the descriptors of every metric.
func (m *Counters) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
}

// Collect sends the current value of every metric.
func (m *Counters) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
}

// collectors returns every collector the metrics are made of.
func (m *Counters) collectors() [10]prometheus.Collector {
	return [...]prometheus.Collector{m.observed, m.kept, m.stripped, m.converted, m.retries, m.switches, m.failovers, m.tokens,
		m.registries, m.memory}
}

// Register adds the metrics to reg, the registry of a config load (Caddy
// serves it on the admin endpoint's /metrics and with the metrics
// handler); a nil reg is none. Registering them twice in the same registry
// (two handlers of one config, the admin module and a handler) is not an
// error.
func (m *Counters) Register(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	err := reg.Register(m)
	if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok && are.ExistingCollector == m {
		return nil
	}
	if err != nil {
		return fmt.Errorf("llm_thinking: registering metrics: %w", err)
	}
	return nil
}

// Plan counts what became of the blocks of one planned request, and
// the switch it made, under the backend they were decided for.
func (m *Counters) Plan(plan policy.Plan) {
	if plan.Switched {
		m.Switch(plan.Target)
	}
	res := plan.Result
	if res.Kept == 0 && res.Stripped == 0 && res.Converted == 0 {
		return
	}
	for _, c := range [...]struct {
		vec *prometheus.CounterVec
		n   int
	}{{m.kept, res.Kept}, {m.stripped, res.Stripped}, {m.converted, res.Converted}} {
		if c.n > 0 {
			m.add(c.vec, plan.Target, false, "", "", float64(c.n))
		}
	}
}

// Observed counts n blocks backend produced.
func (m *Counters) Observed(backend string, n int) {
	if n > 0 {
		m.add(m.observed, backend, false, "", "", float64(n))
	}
}

// Retry counts one refused request replayed.
func (m *Counters) Retry(backend string) {
	m.retries.WithLabelValues(m.backends.value(backend)).Inc()
}

// Switch counts one conversation moved to backend.
func (m *Counters) Switch(to string) {
	m.switches.WithLabelValues(m.backends.value(to)).Inc()
}

// Failover counts one request that went on from a backend to the
// next for status.
func (m *Counters) Failover(from, to string, status int) {
	from = m.backends.value(from)
	m.failovers.WithLabelValues(from, m.backends.value(to), strconv.Itoa(status)).Inc()
	m.tally.add(from, func(s *adminapi.BackendStats) { s.Failovers++ })
}

// Tokens counts the tokens of one answer of backend, for the model
// asked for.
func (m *Counters) Tokens(backend, model string, u observe.Usage) {
	if !u.Any() {
		return
	}
	for _, c := range [...]struct {
		typ string
		n   int64
	}{{"input", u.Input}, {"output", u.Output}, {"cache_read", u.CacheRead}, {"cache_creation", u.CacheCreation}} {
		if c.n > 0 {
			m.add(m.tokens, backend, true, model, c.typ, float64(c.n))
		}
	}
	m.tally.add(m.backends.value(backend), func(s *adminapi.BackendStats) {
		s.Tokens.Input += u.Input
		s.Tokens.Output += u.Output
		s.Tokens.CacheRead += u.CacheRead
		s.Tokens.CacheCreation += u.CacheCreation
	})
}

// Backends returns what each backend used and how often a request went on
// from it, for the admin endpoint's statistics.
func (m *Counters) Backends() map[string]adminapi.BackendStats { return m.tally.stats() }

// Interface guard
var _ prometheus.Collector = (*Counters)(nil)
