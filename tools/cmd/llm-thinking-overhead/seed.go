package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/caddyserver/certmagic"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/persist"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// fillerBlocks is how many blocks of no load the registry holds besides
// the loads' own, so that memory is measured with a registry of that size.
const fillerBlocks = 100_000

// registryName is the registry llm_thinking uses when the config names none.
const registryName = "default"

// flushEvery bounds the changes a registry journals between two writes
// while it is seeded: a registry keeps at most 65,536 of them.
const flushEvery = 50_000

// An origin is a block the registry must know, and who produced it.
type origin struct {
	key     block.Key
	backend string
}

// registryOrigins returns the blocks the llm_thinking registry starts
// with: fillerBlocks blocks of no load, then every block of the loads but
// the anonymous ones. A
// block found twice is an error, since it could have only one origin.
func registryOrigins(ls []*load) ([]origin, error) {
	origins := make([]origin, 0, fillerBlocks)
	var h block.Hasher
	for i := range fillerBlocks {
		k := h.Thinking(fmt.Appendf(nil, "filler-%06d", i))
		origins = append(origins, origin{key: k, backend: gatewayBackend})
	}
	seen := make(map[block.Key]string)
	for _, l := range ls {
		if l.anonymous {
			continue // blocks the gateway never saw
		}
		for i, k := range l.keys {
			if other, dup := seen[k]; dup {
				return nil, fmt.Errorf("thinking block %s is in load %q and again in load %q", k, other, l.name)
			}
			seen[k] = l.name
			origins = append(origins, origin{key: k, backend: l.origin(i)})
		}
	}
	return origins, nil
}

// seedStorage writes a registry that knows every origin to the file
// storage dir/caddy, where Caddy finds it with XDG_DATA_HOME=dir.
func seedStorage(ctx context.Context, dir string, origins []origin) error {
	storage := &certmagic.FileStorage{Path: filepath.Join(dir, "caddy")}
	reg := registry.New(registry.Config{MaxBlocks: maxBlocks})
	store := persist.Open(ctx, reg, storage, persist.Options{Prefix: persist.Prefix(registryName)})
	for i, o := range origins {
		reg.Observe(0, o.backend, o.key)
		if (i+1)%flushEvery == 0 {
			if err := store.Flush(ctx); err != nil {
				_ = store.Close(ctx) // the error to report is the write's
				return fmt.Errorf("write the registry to %s: %w", storage.Path, err)
			}
		}
	}
	if err := store.Close(ctx); err != nil {
		return fmt.Errorf("write the registry to %s: %w", storage.Path, err)
	}
	return nil
}
