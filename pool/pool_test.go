package pool

import (
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// TestARegistryLivesAsLongAsItIsUsed: every config load that names a
// registry gets the same one, with what it learned, until the last one
// lets go; the admin endpoint and the metrics see it meanwhile.
func TestARegistryLivesAsLongAsItIsUsed(t *testing.T) {
	const name = "pool-test"
	first, err := Acquire(name, registry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	first.Registry.Observe(0, "anthropic", block.Key{1})
	second, err := Acquire(name, registry.Config{MaxBlocks: 1000}) // a reload
	if err != nil {
		t.Fatal(err)
	}
	if second != first || second.Registry.Stats().Blocks != 1 {
		t.Fatal("a reload got another registry, or lost what it learned")
	}
	if s, ok := Stats()[name]; !ok || s.Stats.Blocks != 1 || s.Persist != nil {
		t.Fatalf("Stats()[%q] = %+v, %v", name, s, ok)
	}
	live := 0
	for _, r := range Live() {
		if r.Name == name {
			live++
			if r.Registry != first.Registry || r.Persisted {
				t.Fatalf("Live() says %+v", r)
			}
		}
	}
	if live != 1 {
		t.Fatalf("Live() names the registry %d times", live)
	}
	if got := Forget(name, "anthropic", ""); len(got) != 1 {
		t.Fatalf("Forget(%q) = %v, want one registry", name, got)
	}
	if got := Forget("no-such-registry", "anthropic", ""); len(got) != 0 {
		t.Fatalf("Forget of a registry nobody uses = %v", got)
	}
	if err := Release(name); err != nil {
		t.Fatal(err)
	}
	if _, ok := Stats()[name]; !ok {
		t.Fatal("the registry went while a config still used it")
	}
	if err := Release(name); err != nil {
		t.Fatal(err)
	}
	if _, ok := Stats()[name]; ok {
		t.Fatal("the registry outlived its last user")
	}
}
