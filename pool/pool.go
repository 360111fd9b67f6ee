// Package pool keeps the process's registries, by name, across config
// loads: every llm_thinking handler that names a registry shares it, with
// its threads, its model mismatches and its store in Caddy's storage, and a
// reload keeps everything it learned.
package pool

import (
	"context"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/adminapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/metrics"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/policy"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/threads"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/persist"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// registries holds every registry by name. It lives at package level so that
// a registry outlives the config that created it: on a reload (Caddyfile or
// admin API), the new handlers are provisioned before the old ones are
// cleaned up, so the count never reaches zero and the registry survives with
// everything it learned.
var registries = caddy.NewUsagePool()

// Bounds on storage work done while a request or a config load waits.
const (
	// loadTimeout bounds reading storage when a registry is created.
	loadTimeout = 10 * time.Second
	// refreshWait bounds how long a request with unknown blocks waits for
	// storage to tell what other instances learned.
	refreshWait = 250 * time.Millisecond
	// closeTimeout bounds the last write when a registry goes away.
	closeTimeout = 5 * time.Second
)

// Registry is a registry in the pool, with the storage that keeps it
// when persistence is on and the threads of its conversations. Requests of
// an unloaded config that are still streaming keep a working registry
// until they end.
type Registry struct {
	Registry   *registry.Registry
	Threads    *threads.Set
	Mismatches *policy.Mismatches
	// Heads remembers how the bodies the registry's requests send open
	// (see thinking.Heads).
	Heads *thinking.Heads

	mu           sync.Mutex
	store        *persist.Store
	closedStores persistTotals // the work of stores closed by reloads
	name         string
}

// Destruct writes what is left to storage, once no config uses the
// registry any more (Caddy stops, or the registry was removed).
func (p *Registry) Destruct() error {
	p.mu.Lock()
	store := p.store
	p.store = nil
	p.mu.Unlock()
	if store == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	return store.Close(ctx)
}

// Acquire returns the registry called name, creating it, or applying cfg
// to it when it already exists. Each Acquire is matched by a Release.
func Acquire(name string, cfg registry.Config) (*Registry, error) {
	v, loaded, err := registries.LoadOrNew(name, func() (caddy.Destructor, error) {
		reg := registry.New(cfg)
		return &Registry{Registry: reg, Threads: threads.New(threads.Limits{}, reg),
			Mismatches: policy.NewMismatches(), Heads: new(thinking.Heads), name: name}, nil
	})
	if err != nil {
		return nil, err
	}
	p := v.(*Registry)
	if loaded {
		p.Registry.Configure(cfg)
	}
	return p, nil
}

// Persist turns storage on or off for the registry. Turning it on reads
// what storage holds (bounded by loadTimeout); a registry that already
// persists keeps its store.
func (p *Registry) Persist(ctx caddy.Context, on bool, interval time.Duration, logger *zap.Logger) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case on && p.store == nil:
		lctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		p.store = persist.Open(lctx, p.Registry, ctx.Storage(), persist.Options{
			Prefix:   persist.Prefix(p.name),
			Interval: interval,
			Logger:   logger,
		})
	case !on && p.store != nil:
		cctx, cancel := context.WithTimeout(ctx, closeTimeout)
		defer cancel()
		p.store.Close(cctx)
		p.closedStores.add(p.store.Stats())
		p.store = nil
	}
}

// Refresh lets the registry learn what other instances wrote to storage
// about the missing blocks, waiting at most refreshWait.
func (p *Registry) Refresh(missing []block.Key) bool {
	p.mu.Lock()
	store := p.store
	p.mu.Unlock()
	return store != nil && store.Refresh(refreshWait, missing)
}

// Release drops one use of the registry called name.
func Release(name string) error {
	_, err := registries.Delete(name)
	return err
}

// Stats returns the statistics of every live registry by name.
func Stats() map[string]adminapi.RegistryStats {
	stats := make(map[string]adminapi.RegistryStats)
	registries.Range(func(k, v any) bool {
		p := v.(*Registry)
		s := adminapi.RegistryStats{Stats: p.Registry.Stats(), Capabilities: p.Registry.LearnedCapabilities()}
		p.mu.Lock()
		if p.store != nil {
			ps := p.store.Stats()
			s.Persist = &ps
		}
		p.mu.Unlock()
		stats[k.(string)] = s
		return true
	})
	return stats
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
func (p *Registry) persistTotals() persistTotals {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.closedStores
	if p.store != nil {
		t.add(p.store.Stats())
	}
	return t
}

// Live returns what the registry metrics read of every live registry.
func Live() []metrics.Registry {
	var live []metrics.Registry
	registries.Range(func(k, v any) bool {
		p := v.(*Registry)
		t := p.persistTotals()
		live = append(live, metrics.Registry{Name: k.(string), Registry: p.Registry, Writes: t.writes, Failures: t.failures, Persisted: t.persisted})
		return true
	})
	return live
}

// Forget makes the registry called name, or every registry when name is
// "", forget what it learned of backend (of model, when not ""). It
// returns how many blocks each registry forgot, by name.
func Forget(name, backend, model string) map[string]int {
	forgotten := make(map[string]int)
	registries.Range(func(k, v any) bool {
		if n := k.(string); name == "" || name == n {
			forgotten[n] = v.(*Registry).Registry.Forget(backend, model)
		}
		return true
	})
	return forgotten
}
