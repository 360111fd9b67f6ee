package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// memoryCollector reads the memory budget's figures when Prometheus
// scrapes, from the counts the budget keeps anyway.
type memoryCollector struct {
	stats                         func() budget.Stats
	limit, held, inUse, peak      *prometheus.Desc
	waits, overloaded, unobserved *prometheus.Desc
}

// newMemoryCollector returns the collector of the metrics stats reads.
func newMemoryCollector(stats func() budget.Stats) memoryCollector {
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, name), help, nil, nil)
	}
	return memoryCollector{
		stats: stats,
		limit: desc("memory_budget_bytes", "The memory budget: the most llm_thinking's buffers may hold at once, in the whole process."),
		held: desc("memory_held_bytes",
			"Memory llm_thinking's buffers hold now: in use by requests and answers, or cached for reuse."),
		inUse: desc("memory_in_use_bytes", "Of the memory held, what requests and answers hold now."),
		peak:  desc("memory_peak_bytes", "The most memory llm_thinking's buffers held at once since the process started."),
		waits: desc("memory_waits_total", "Requests that waited for room in the memory budget."),
		overloaded: desc("overloaded_total",
			"Requests answered 529 overloaded_error because the memory budget had no room for them within memory_wait."),
		unobserved: desc("answers_unobserved_total",
			"Answers passed to the client as they came because the memory budget had no room to read or rewrite them."),
	}
}

// Describe sends the descriptors of the memory metrics.
func (c memoryCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.limit, c.held, c.inUse, c.peak, c.waits, c.overloaded, c.unobserved} {
		ch <- d
	}
}

// Collect sends the memory metrics.
func (c memoryCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	for _, m := range []struct {
		desc  *prometheus.Desc
		kind  prometheus.ValueType
		value float64
	}{
		{c.limit, prometheus.GaugeValue, float64(s.Budget)},
		{c.held, prometheus.GaugeValue, float64(s.Held)},
		{c.inUse, prometheus.GaugeValue, float64(s.InUse)},
		{c.peak, prometheus.GaugeValue, float64(s.Peak)},
		{c.waits, prometheus.CounterValue, float64(s.Waits)},
		{c.overloaded, prometheus.CounterValue, float64(s.Overloaded)},
		{c.unobserved, prometheus.CounterValue, float64(s.Unobserved)},
	} {
		ch <- prometheus.MustNewConstMetric(m.desc, m.kind, m.value)
	}
}

// Interface guard
var _ prometheus.Collector = memoryCollector{}
