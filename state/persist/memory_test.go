package persist

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"
)

// memory is an in-memory Storage with the semantics of certmagic's file
// storage, plus faults on demand.
type memory struct {
	mu    sync.Mutex
	files map[string][]byte
	locks map[string]bool

	fail  error         // every call fails with it, when set
	delay time.Duration // every call waits this long first (or until ctx ends)
	calls int
	// listing, when set, receives a signal as List starts and List then
	// waits for listed to be closed.
	listing chan struct{}
	listed  chan struct{}
}

func newMemory() *memory {
	return &memory{files: map[string][]byte{}, locks: map[string]bool{}}
}

func (m *memory) enter(ctx context.Context) error {
	m.mu.Lock()
	m.calls++
	fail, delay := m.fail, m.delay
	m.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return fail
}

func (m *memory) set(fail error, delay time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fail, m.delay = fail, delay
}

func (m *memory) Store(ctx context.Context, key string, value []byte) error {
	if err := m.enter(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[key] = slices.Clone(value)
	return nil
}

func (m *memory) Load(ctx context.Context, key string) ([]byte, error) {
	if err := m.enter(ctx); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.files[key]
	if !ok {
		return nil, fmt.Errorf("%s: %w", key, fs.ErrNotExist)
	}
	return slices.Clone(v), nil
}

func (m *memory) Delete(ctx context.Context, key string) error {
	if err := m.enter(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[key]; !ok {
		return fs.ErrNotExist
	}
	delete(m.files, key)
	return nil
}

func (m *memory) List(ctx context.Context, path string, recursive bool) ([]string, error) {
	if err := m.enter(ctx); err != nil {
		return nil, err
	}
	m.mu.Lock()
	var out []string
	for k := range m.files {
		if rest, ok := strings.CutPrefix(k, path+"/"); ok && (recursive || !strings.Contains(rest, "/")) {
			out = append(out, k)
		}
	}
	listing, listed := m.listing, m.listed
	m.listing = nil
	m.mu.Unlock()
	if listing != nil {
		// The listing is taken; the caller gets it once the test says so.
		listing <- struct{}{}
		<-listed
	}
	if len(out) == 0 {
		return nil, fs.ErrNotExist
	}
	return out, nil
}

func (m *memory) Lock(ctx context.Context, name string) error {
	for {
		if err := m.enter(ctx); err != nil {
			return err
		}
		m.mu.Lock()
		if !m.locks[name] {
			m.locks[name] = true
			m.mu.Unlock()
			return nil
		}
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

func (m *memory) Unlock(_ context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.locks, name)
	return nil
}

// journal returns the names of the journal segments under prefix.
func (m *memory) journal(prefix string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.files {
		if strings.HasPrefix(k, prefix+journalDir+"/") {
			out = append(out, k)
		}
	}
	return out
}
