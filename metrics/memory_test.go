package metrics

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

func TestMemoryMetrics(t *testing.T) {
	b := budget.New(2 << 20)
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(newMemoryCollector(b.Stats)); err != nil {
		t.Fatal(err)
	}
	hog := b.Ticket(context.Background(), 0)
	hog.Finishing() // which may fill the whole budget
	buf, err := hog.Buffer(2<<20, 2<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Ticket(context.Background(), time.Millisecond).Buffer(1<<20, 1<<20, true); err == nil {
		t.Fatal("a full budget gave room")
	}
	hog.Overloaded() // as the handler counts its 529
	hog.Unobserved()
	hog.Unobserved()
	hog.Put(buf) // too large to be cached: its room comes back at once
	small, err := hog.Buffer(64<<10, 64<<10, true)
	if err != nil {
		t.Fatal(err)
	}
	hog.Put(small) // cached
	for name, want := range map[string]float64{
		"caddy_llm_thinking_memory_budget_bytes":      2 << 20,
		"caddy_llm_thinking_memory_held_bytes":        64 << 10, // the buffer cached
		"caddy_llm_thinking_memory_in_use_bytes":      0,
		"caddy_llm_thinking_memory_peak_bytes":        2 << 20,
		"caddy_llm_thinking_memory_waits_total":       1,
		"caddy_llm_thinking_overloaded_total":         1,
		"caddy_llm_thinking_answers_unobserved_total": 2,
	} {
		if got, ok := series(t, reg)[name]; !ok || got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}
