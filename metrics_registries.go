package llmthinking

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/persist"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// registryCollector reads the size and the storage work of every live
// registry when Prometheus scrapes, from the counts the registries and
// their stores keep anyway.
type registryCollector struct {
	blocks, threads, learned, writes, failures *prometheus.Desc
}

// newRegistryCollector returns the collector of the registry metrics.
func newRegistryCollector() registryCollector {
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, name), help, []string{"registry"}, nil)
	}
	return registryCollector{
		blocks:  desc("registry_blocks", "Blocks the registry remembers the origin of."),
		threads: desc("registry_threads", "Threads of conversations the registry holds blocks for."),
		learned: prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, "learned_models"),
			"Models of backends a fact was learned of, by fact (thinks, cannot_think, no_context_management...).",
			[]string{"registry", "fact"}, nil),
		writes: desc("persist_writes_total",
			"Journal writes to storage that succeeded, for registries that persist or did since they were created."),
		failures: desc("persist_failures_total",
			"Writes to storage that failed, for registries that persist or did since they were created."),
	}
}

// Describe sends the descriptors of the registry metrics.
func (c registryCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.blocks
	ch <- c.threads
	ch <- c.learned
	ch <- c.writes
	ch <- c.failures
}

// Collect sends the registry metrics of every live registry. A registry
// that no config names any more is gone from them; one created again
// counts its writes from zero, as after a restart.
func (c registryCollector) Collect(ch chan<- prometheus.Metric) {
	registries.Range(func(k, v any) bool {
		name, p := k.(string), v.(*pooledRegistry)
		s := p.reg.Stats()
		ch <- prometheus.MustNewConstMetric(c.blocks, prometheus.GaugeValue, float64(s.Blocks), name)
		ch <- prometheus.MustNewConstMetric(c.threads, prometheus.GaugeValue, float64(s.Threads), name)
		for fact, n := range learnedByFact(p.reg.LearnedCapabilities()) {
			ch <- prometheus.MustNewConstMetric(c.learned, prometheus.GaugeValue, float64(n), name, fact)
		}
		if t := p.persistTotals(); t.persisted {
			ch <- prometheus.MustNewConstMetric(c.writes, prometheus.CounterValue, float64(t.writes), name)
			ch <- prometheus.MustNewConstMetric(c.failures, prometheus.CounterValue, float64(t.failures), name)
		}
		return true
	})
}

// learnedByFact counts the models learned of by fact name.
func learnedByFact(learned []registry.LearnedCapability) map[string]int {
	n := make(map[string]int)
	for _, l := range learned {
		for _, name := range l.Names {
			n[name]++
		}
	}
	return n
}

// persistTotals counts the storage work of a registry's stores.
type persistTotals struct {
	writes, failures uint64
	persisted        bool // the registry has had a store
}

// add counts the work of one store.
func (t *persistTotals) add(s persist.Stats) {
	t.writes += s.Writes
	t.failures += s.Failures
	t.persisted = true
}

// persistTotals returns the storage work of every store the registry has
// had: a reload that turns persistence off and on again never makes the
// counters go back.
func (p *pooledRegistry) persistTotals() persistTotals {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.closedStores
	if p.store != nil {
		t.add(p.store.Stats())
	}
	return t
}

// Interface guard
var _ prometheus.Collector = registryCollector{}
