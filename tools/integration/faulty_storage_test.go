package integration

import (
	"context"
	"errors"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/certmagic"
)

func init() {
	caddy.RegisterModule(faultyStorage{})
}

// faultyStorage is a Caddy storage module for the tests: Caddy's file
// system storage, except that the tests can make every call fail, or hang
// until the call's context ends.
type faultyStorage struct {
	Root string `json:"root,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (faultyStorage) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.storage.llm_thinking_test_faulty",
		New: func() caddy.Module { return new(faultyStorage) },
	}
}

// UnmarshalCaddyfile reads `storage llm_thinking_test_faulty <root>`.
func (f *faultyStorage) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if !d.NextArg() {
		return d.ArgErr()
	}
	f.Root = d.Val()
	return nil
}

// CertMagicStorage returns the storage.
func (f faultyStorage) CertMagicStorage() (certmagic.Storage, error) {
	return &faulty{Storage: &certmagic.FileStorage{Path: f.Root}}, nil
}

// Fault modes.
const (
	healthy = iota
	failing
	hanging
)

// faults is the mode every faulty storage is in, and the calls it saw.
var faults struct {
	sync.Mutex
	mode  int
	calls int
}

func setFaults(mode int) {
	faults.Lock()
	defer faults.Unlock()
	faults.mode = mode
}

var errStorageDown = errors.New("storage is down (test fault)")

// fault applies the current mode to one call.
func fault(ctx context.Context) error {
	faults.Lock()
	mode := faults.mode
	faults.calls++
	faults.Unlock()
	switch mode {
	case failing:
		return errStorageDown
	case hanging:
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

type faulty struct{ certmagic.Storage }

func (s *faulty) Store(ctx context.Context, key string, value []byte) error {
	if err := fault(ctx); err != nil {
		return err
	}
	return s.Storage.Store(ctx, key, value)
}

func (s *faulty) Load(ctx context.Context, key string) ([]byte, error) {
	if err := fault(ctx); err != nil {
		return nil, err
	}
	return s.Storage.Load(ctx, key)
}

func (s *faulty) Delete(ctx context.Context, key string) error {
	if err := fault(ctx); err != nil {
		return err
	}
	return s.Storage.Delete(ctx, key)
}

func (s *faulty) List(ctx context.Context, path string, recursive bool) ([]string, error) {
	if err := fault(ctx); err != nil {
		return nil, err
	}
	return s.Storage.List(ctx, path, recursive)
}

func (s *faulty) Lock(ctx context.Context, name string) error {
	if err := fault(ctx); err != nil {
		return err
	}
	return s.Storage.Lock(ctx, name)
}

// Interface guards
var (
	_ caddy.StorageConverter = faultyStorage{}
	_ caddyfile.Unmarshaler  = (*faultyStorage)(nil)
)
