package llmthinking

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/persist"
)

// registryCollector reads the size and the storage work of every live
// registry when Prometheus scrapes, from the counts the registries and
// their stores keep anyway.
type registryCollector struct {
	blocks, threads, writes, failures *prometheus.Desc
}

// newRegistryCollector returns the collector of the registry metrics.
func newRegistryCollector() registryCollector {
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, name), help, []string{"registry"}, nil)
	}
	return registryCollector{
		blocks:  desc("registry_blocks", "Blocks the registry remembers the origin of."),
		threads: desc("registry_threads", "Threads of conversations the registry holds blocks for."),
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
		if t := p.persistTotals(); t.persisted {
			ch <- prometheus.MustNewConstMetric(c.writes, prometheus.CounterValue, float64(t.writes), name)
			ch <- prometheus.MustNewConstMetric(c.failures, prometheus.CounterValue, float64(t.failures), name)
		}
		return true
	})
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
