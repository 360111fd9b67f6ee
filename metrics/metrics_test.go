package metrics

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

func TestBoundedLabels(t *testing.T) {
	b := newBoundedLabels(2)
	for i, c := range []struct{ name, want string }{
		{"", labelUnknown},
		{"glm", "glm"},
		{"anthropic", "anthropic"},
		{"ollama", labelOther},
		{"glm", "glm"},
		{"", labelUnknown},
		{"anthropic", "anthropic"},
		{"vllm", labelOther},
	} {
		if got := b.value(c.name); got != c.want {
			t.Errorf("%d: value(%q) = %q, want %q", i, c.name, got, c.want)
		}
	}
}

func TestBoundedLabelsUnderContention(t *testing.T) {
	const max, names, workers = 5, 40, 8
	b := newBoundedLabels(max)
	results := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range names {
				results[w] = append(results[w], b.value(fmt.Sprintf("backend-%d", i)))
			}
		})
	}
	wg.Wait()
	own := make(map[string]bool)
	for _, r := range results {
		for i, v := range r {
			if v != labelOther {
				if v != fmt.Sprintf("backend-%d", i) {
					t.Fatalf("backend-%d counted as %q", i, v)
				}
				own[v] = true
			}
		}
	}
	if len(own) != max {
		t.Fatalf("%d names got a label of their own, want %d: %v", len(own), max, own)
	}
	// Every worker saw the same answer for each name: a label never changes.
	for w := 1; w < workers; w++ {
		for i := range names {
			if results[w][i] != results[0][i] {
				t.Fatalf("backend-%d counted as %q and as %q", i, results[0][i], results[w][i])
			}
		}
	}
}

// TestMetricsRegisterOnEveryConfigLoad: every config load has a registry
// of its own, into which the admin module and every handler register the
// same collectors.
func TestMetricsRegisterOnEveryConfigLoad(t *testing.T) {
	m := newCounters()
	first, second := prometheus.NewPedanticRegistry(), prometheus.NewPedanticRegistry()
	for i, reg := range []*prometheus.Registry{first, first, second, nil} {
		if err := m.Register(reg); err != nil {
			t.Fatalf("registration %d: %v", i, err)
		}
	}
	m.Switch("glm")
	for i, reg := range []*prometheus.Registry{first, second} {
		if got := series(t, reg)[`caddy_llm_thinking_switches_total{backend="glm"}`]; got != 1 {
			t.Errorf("registry %d: switches = %v, want 1", i, got)
		}
	}
	// Another collector under the same names is a real conflict.
	if err := newCounters().Register(first); err == nil {
		t.Fatal("a second set of collectors with the same names was registered")
	}
}

// newCounters returns metrics with no registry and an empty budget.
func newCounters() *Counters {
	return New(MaxBackendLabels, func() []Registry { return nil }, func() budget.Stats { return budget.Stats{} })
}

// series gathers reg, which checks the collectors' consistency, and returns
// the value of every series by name{label="value",...}.
func series(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	values := make(map[string]float64)
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			name := f.GetName()
			if len(labels) > 0 {
				name += "{" + strings.Join(labels, ",") + "}"
			}
			values[name] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	return values
}
