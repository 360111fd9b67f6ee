package metrics

import (
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/observe"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/policy"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// TestCountsAddUpThroughTheSeriesCache: counts added from many goroutines,
// some under names past the bound, add up series by series; a series is
// made only once something is added to it, and only names of their own are
// kept by name.
func TestCountsAddUpThroughTheSeriesCache(t *testing.T) {
	const workers, rounds = 8, 500
	m := New(2, nil, func() budget.Stats { return budget.Stats{} })
	backends := []string{"anthropic", "glm", "ollama", "vllm", ""}
	// The first two names seen are the two with labels of their own.
	m.backends.value("anthropic")
	m.backends.value("glm")
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range rounds {
				b := backends[(w+i)%len(backends)]
				m.Plan(policy.Plan{Target: b, Result: thinking.Result{Kept: 2, Converted: 1}})
				m.Observed(b, 1)
				m.Tokens(b, "claude-sonnet-4-5", observe.Usage{Input: 10, Output: 3})
			}
		})
	}
	wg.Wait()
	// Every backend got workers*rounds/len(backends) of each call.
	per := float64(workers * rounds / len(backends))
	for label, n := range map[string]float64{"anthropic": per, "glm": per, labelOther: 2 * per, labelUnknown: per} {
		for _, c := range []struct {
			vec  *prometheus.CounterVec
			each float64
		}{{m.kept, 2}, {m.converted, 1}, {m.observed, 1}} {
			if got := value(c.vec.WithLabelValues(label)); got != n*c.each {
				t.Errorf("%s: %v, want %v", label, got, n*c.each)
			}
		}
		if got := value(m.tokens.WithLabelValues(label, "claude-sonnet-4-5", "input")); got != 10*n {
			t.Errorf("%s input tokens: %v, want %v", label, got, 10*n)
		}
	}
	if got := seriesIn(m.stripped); got != 0 {
		t.Errorf("%d stripped series made for nothing", got)
	}
	if got := seriesIn(m.tokens); got != 2*4 { // input and output of four label values
		t.Errorf("%d token series, want 8", got)
	}
	m.series.mu.RLock()
	kept := len(m.series.m)
	m.series.mu.RUnlock()
	// kept, converted, observed, input and output tokens, of the two names of their own.
	if kept != 5*2 {
		t.Errorf("the cache keeps %d series, want 10", kept)
	}
}

// value reads a counter.
func value(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

// seriesIn counts the series a collector has.
func seriesIn(c prometheus.Collector) int {
	ch := make(chan prometheus.Metric, 64)
	go func() { c.Collect(ch); close(ch) }()
	n := 0
	for range ch {
		n++
	}
	return n
}
