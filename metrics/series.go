package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// seriesKey names one series of a counter vector by the names a request
// gave, before they are bounded into label values.
type seriesKey struct {
	vec                *prometheus.CounterVec
	backend, model, ty string
}

// seriesCache keeps the counters that every request adds to, by the names
// it gave: WithLabelValues checks and hashes the label values on every
// call, and the bound on them looks each name up, where one map lookup
// finds the counter again. Only names that are label values of their own
// are kept, so it is bounded as the labels are; a series is made, as
// before, only when something is added to it.
type seriesCache struct {
	mu sync.RWMutex
	m  map[seriesKey]prometheus.Counter
}

// add adds n (> 0) to vec's series of backend, and of model and ty when
// vec has those labels (withModel).
func (m *Counters) add(vec *prometheus.CounterVec, backend string, withModel bool, model, ty string, n float64) {
	k := seriesKey{vec, backend, model, ty}
	m.series.mu.RLock()
	c, ok := m.series.m[k]
	m.series.mu.RUnlock()
	if ok {
		c.Add(n)
		return
	}
	label := m.backends.value(backend)
	own := label == backend
	if !withModel {
		c = vec.WithLabelValues(label)
	} else {
		l := m.models.value(model)
		own = own && l == model
		c = vec.WithLabelValues(label, l, ty)
	}
	c.Add(n)
	if !own {
		return // counted under "unknown" or "other": not kept by name
	}
	m.series.mu.Lock()
	if m.series.m == nil {
		m.series.m = make(map[seriesKey]prometheus.Counter)
	}
	m.series.m[k] = c
	m.series.mu.Unlock()
}
