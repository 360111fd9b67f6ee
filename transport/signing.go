package transport

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
)

// signingKeyName is where the transports keep the key envelopes are sealed
// with, in Caddy's storage: made once, read on every start, by every
// replica that shares the storage, so that an envelope sealed by one opens
// in all of them, after restarts too.
const signingKeyName = "llm_thinking/envelope.key"

// signingKey returns the key of the option secret (placeholders
// resolved), or, without one, the one kept in Caddy's storage, made on
// first use under the storage's lock.
func signingKey(ctx caddy.Context, secret string) (*envelope.Key, error) {
	if secret != "" {
		secret = caddy.NewReplacer().ReplaceAll(secret, "")
		if secret == "" {
			return nil, errors.New("signing_key is empty once its placeholders are replaced")
		}
		k := envelope.Key(sha256.Sum256([]byte("llm_thinking signing_key\x00" + secret)))
		return &k, nil
	}
	storage := ctx.Storage()
	if storage == nil {
		return nil, errors.New("no storage to keep the signing key in: set signing_key")
	}
	c := context.Context(ctx)
	if err := storage.Lock(c, signingKeyName); err != nil {
		return nil, fmt.Errorf("locking the signing key in storage: %w", err)
	}
	defer func() { _ = storage.Unlock(c, signingKeyName) }()
	b, err := storage.Load(c, signingKeyName)
	switch {
	case err == nil && len(b) == len(envelope.Key{}):
		var k envelope.Key
		copy(k[:], b)
		return &k, nil
	case err == nil:
		return nil, fmt.Errorf("the signing key in storage (%s) is %d bytes, not %d", signingKeyName, len(b), len(envelope.Key{}))
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("reading the signing key from storage: %w", err)
	}
	var k envelope.Key
	if _, err := rand.Read(k[:]); err != nil {
		return nil, err
	}
	if err := storage.Store(c, signingKeyName, k[:]); err != nil {
		return nil, fmt.Errorf("keeping the signing key in storage: %w", err)
	}
	return &k, nil
}
