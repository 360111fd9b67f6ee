package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// Registry is what the registry metrics read of one live registry.
type Registry struct {
	Name     string
	Registry *registry.Registry
	// Writes and Failures count the storage work of every store the
	// registry has had, when Persisted: it has had one.
	Writes, Failures uint64
	Persisted        bool
}

// registryCollector reads the size and the storage work of every live
// registry when Prometheus scrapes, from the counts the registries and
// their stores keep anyway.
type registryCollector struct {
	live                                       func() []Registry
	blocks, threads, learned, writes, failures *prometheus.Desc
}

// newRegistryCollector returns the collector of the registry metrics of
// the registries live returns.
func newRegistryCollector(live func() []Registry) registryCollector {
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, name), help, []string{"registry"}, nil)
	}
	return registryCollector{
		live:    live,
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
	for _, r := range c.live() {
		s := r.Registry.Stats()
		ch <- prometheus.MustNewConstMetric(c.blocks, prometheus.GaugeValue, float64(s.Blocks), r.Name)
		ch <- prometheus.MustNewConstMetric(c.threads, prometheus.GaugeValue, float64(s.Threads), r.Name)
		for fact, n := range learnedByFact(r.Registry.LearnedCapabilities()) {
			ch <- prometheus.MustNewConstMetric(c.learned, prometheus.GaugeValue, float64(n), r.Name, fact)
		}
		if r.Persisted {
			ch <- prometheus.MustNewConstMetric(c.writes, prometheus.CounterValue, float64(r.Writes), r.Name)
			ch <- prometheus.MustNewConstMetric(c.failures, prometheus.CounterValue, float64(r.Failures), r.Name)
		}
	}
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

// Interface guard
var _ prometheus.Collector = registryCollector{}
