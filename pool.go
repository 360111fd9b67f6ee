package llmthinking

import (
	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/registry"
)

// registries holds every registry by name. It lives at package level so that
// a registry outlives the config that created it: on a reload (Caddyfile or
// admin API), the new handlers are provisioned before the old ones are
// cleaned up, so the count never reaches zero and the registry survives with
// everything it learned.
var registries = caddy.NewUsagePool()

// pooledRegistry adapts a registry to the pool. A registry holds only
// memory, so destructing it has nothing to release: requests of an unloaded
// config that are still streaming keep a working registry until they end.
type pooledRegistry struct{ *registry.Registry }

// Destruct does nothing: see pooledRegistry.
func (pooledRegistry) Destruct() error { return nil }

// acquireRegistry returns the registry called name, creating it, or applying
// cfg to it when it already exists.
func acquireRegistry(name string, cfg registry.Config) (*registry.Registry, error) {
	v, loaded, err := registries.LoadOrNew(name, func() (caddy.Destructor, error) {
		return pooledRegistry{registry.New(cfg)}, nil
	})
	if err != nil {
		return nil, err
	}
	reg := v.(pooledRegistry).Registry
	if loaded {
		reg.Configure(cfg)
	}
	return reg, nil
}

// releaseRegistry drops one use of the registry called name.
func releaseRegistry(name string) error {
	_, err := registries.Delete(name)
	return err
}

// registryStats returns the statistics of every live registry by name.
func registryStats() map[string]registry.Stats {
	stats := make(map[string]registry.Stats)
	registries.Range(func(k, v any) bool {
		stats[k.(string)] = v.(pooledRegistry).Stats()
		return true
	})
	return stats
}
