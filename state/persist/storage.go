package persist

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Storage is the part of a key-value storage a Store uses. Load must report
// a missing key with an error wrapping fs.ErrNotExist, and List a missing
// path either that way or as no keys, as certmagic.Storage implementations do.
type Storage interface {
	Store(ctx context.Context, key string, value []byte) error
	Load(ctx context.Context, key string) ([]byte, error)
	Delete(ctx context.Context, key string) error
	List(ctx context.Context, path string, recursive bool) ([]string, error)
	Lock(ctx context.Context, name string) error
	Unlock(ctx context.Context, name string) error
}

// Prefix returns the storage path of the registry called name: names that
// are not plain path segments are hashed, so that no name can reach outside
// the module's own directory.
func Prefix(name string) string {
	plain := name != "" && name != "." && name != ".." && len(name) <= 64 &&
		strings.IndexFunc(name, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
		}) < 0
	if !plain {
		sum := sha256.Sum256([]byte(name))
		name = "sha256-" + hex.EncodeToString(sum[:16])
	}
	return "llm_thinking/registries/" + name
}

// The layout under a prefix.
const (
	journalDir   = "/journal"
	snapshotFile = "/snapshot.json"
	lockName     = "llm_thinking_compact_"
)
