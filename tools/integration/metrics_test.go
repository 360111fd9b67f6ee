package integration

import (
	"fmt"
	"net/http"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// TestMetricsCountAConversationWithASwitch reads llm_thinking's metrics
// back from Caddy's own /metrics after a scripted conversation that
// switches backends, has a refusal absorbed, and reloads the config on
// the way. Every test runs in the one Caddy process, whose counters never
// reset: the backends are named for this test, and the counts are read as
// differences from before it.
func TestMetricsCountAConversationWithASwitch(t *testing.T) {
	const glm, anthropic = "metrics-glm", "metrics-anthropic"
	g := newGateway(t, map[string]llmtest.Flavor{glm: llmtest.Lenient, anthropic: llmtest.Strict}, glm,
		faultyStorageAt(t), withHandler("mode convert_to_text\npersist_interval 1h"))
	reg := registryName(t)
	before := scrape(t)
	c, ok := g.session("metrics")
	c.ShowThinking = true // thinking with its text can be converted

	ok(c.Say("hello"))
	ok(c.Say("[redacted] something sensitive"))
	g.use(anthropic) // a reload: Caddy's metrics registry is a new one
	ok(c.Say("now on anthropic"))
	g.upstreams[anthropic].RotateKey()
	ok(c.Say("after the key changed"))

	after := scrape(t)
	for _, want := range []struct {
		metric, backend string
		delta           float64
	}{
		// GLM answered twice: a thinking block, then a thinking and a
		// redacted_thinking block. Anthropic answered with one block, then,
		// to the replay that went with thinking off, with none.
		{"blocks_observed_total", glm, 3},
		{"blocks_observed_total", anthropic, 1},
		// GLM's second request carried its own block.
		{"blocks_kept_total", glm, 1},
		{"blocks_stripped_total", glm, 0},
		{"blocks_converted_total", glm, 0},
		// The switch: GLM's two thinking blocks go to Anthropic as text, its
		// redacted block is stripped. The request after the key change
		// counts twice: sent with Anthropic's own block kept, refused, and
		// replayed with the refused block converted too.
		{"blocks_kept_total", anthropic, 1},
		{"blocks_converted_total", anthropic, 2 + 2 + 3},
		{"blocks_stripped_total", anthropic, 1 + 1 + 1},
		{"switches_total", anthropic, 1},
		{"switches_total", glm, 0},
		{"retries_total", anthropic, 1},
		{"retries_total", glm, 0},
	} {
		name := "caddy_llm_thinking_" + want.metric
		if got := after.value(name, "backend", want.backend) - before.value(name, "backend", want.backend); got != want.delta {
			t.Errorf("%s{backend=%q} grew by %v, want %v", name, want.backend, got, want.delta)
		}
	}
	if got, s := after.value("caddy_llm_thinking_registry_blocks", "registry", reg), g.stats(); got != 4 || s.Blocks != 4 {
		t.Errorf("registry_blocks = %v, stats say %d, want the 4 blocks observed", got, s.Blocks)
	}
	if got, s := after.value("caddy_llm_thinking_registry_threads", "registry", reg), g.stats(); got != float64(s.Threads) || s.Threads == 0 {
		t.Errorf("registry_threads = %v, stats say %d", got, s.Threads)
	}
	after.expectPersist(t, reg, 0, 0) // nothing is due within the hour

	// Persistence turned off writes what is left, once; turned on again and
	// off against a failing storage, the write fails. The counters add up
	// across the stores the registry had.
	handler := g.Handler
	g.Handler = handler + "\npersist off"
	g.load()
	scrape(t).expectPersist(t, reg, 1, 0)
	g.Handler = handler
	g.load()
	ok(c.Say("persisting again"))
	setFaults(failing)
	defer setFaults(healthy)
	g.Handler = handler + "\npersist off"
	g.load()
	scrape(t).expectPersist(t, reg, 1, 1)
}

// metricFamilies is one scrape of Caddy's /metrics, by metric name.
type metricFamilies map[string]*dto.MetricFamily

// scrape reads Caddy's metrics from the admin endpoint, as Prometheus does.
// A reload replaces the admin server: a connection the old one drops
// before answering is tried again.
func scrape(t *testing.T) metricFamilies {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	var err error
	for range 3 {
		var fams metricFamilies
		if fams, err = scrapeOnce(client); err == nil {
			return fams
		}
	}
	t.Fatalf("GET /metrics: %v", err)
	return nil
}

func scrapeOnce(client *http.Client) (metricFamilies, error) {
	resp, err := client.Get("http://" + adminAddr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(resp.Body)
}

// value returns the counter or gauge name{label="value",...}, the labels
// given as name and value pairs; 0 when there is no such series.
func (f metricFamilies) value(name string, labels ...string) float64 {
	m := f.series(name, labels...)
	switch {
	case m == nil:
		return 0
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	}
	return m.GetGauge().GetValue()
}

// series returns the series of name with every label of labels (name and
// value pairs), or nil.
func (f metricFamilies) series(name string, labels ...string) *dto.Metric {
	for _, m := range f[name].GetMetric() {
		if hasLabels(m.GetLabel(), labels) {
			return m
		}
	}
	return nil
}

// hasLabels reports whether have holds every label of want, name and value
// pairs.
func hasLabels(have []*dto.LabelPair, want []string) bool {
	for i := 0; i+1 < len(want); i += 2 {
		if !hasLabel(have, want[i], want[i+1]) {
			return false
		}
	}
	return true
}

// expectPersist checks the persistence counters of the registry.
func (f metricFamilies) expectPersist(t *testing.T, registry string, writes, failures float64) {
	t.Helper()
	for _, want := range []struct {
		name  string
		value float64
	}{
		{"caddy_llm_thinking_persist_writes_total", writes},
		{"caddy_llm_thinking_persist_failures_total", failures},
	} {
		if f.series(want.name, "registry", registry) == nil {
			t.Errorf("no %s series for registry %q", want.name, registry)
		} else if got := f.value(want.name, "registry", registry); got != want.value {
			t.Errorf("%s{registry=%q} = %v, want %v", want.name, registry, got, want.value)
		}
	}
}
