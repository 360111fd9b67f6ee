package persist

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"

	"go.uber.org/zap"
)

// due reports whether the journal has grown enough to fold it.
func (s *Store) due() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.applied) >= foldAt
}

// fold writes everything the registry knows as a new snapshot and deletes
// the journal segments it covers. One instance folds at a time, under the
// storage lock; segments written meanwhile are not covered and stay.
func (s *Store) fold(ctx context.Context) {
	lock := lockName + s.prefix
	if err := s.st.Lock(ctx, lock); err != nil {
		s.log.Warn("thinking.persist_failed", zap.String("op", "lock"), zap.String("key", lock), zap.Error(err))
		return
	}
	defer func() {
		if err := s.st.Unlock(context.WithoutCancel(ctx), lock); err != nil {
			s.log.Warn("thinking.persist_failed", zap.String("op", "unlock"), zap.String("key", lock), zap.Error(err))
		}
	}()
	s.io.Lock()
	defer s.io.Unlock()
	folded := s.read(ctx)
	s.mu.Lock()
	gen := s.generation + 1
	s.mu.Unlock()
	data := s.encodeSnapshot(gen, folded)
	err := s.st.Store(ctx, s.prefix+snapshotFile, data)
	if err == nil {
		data, _ = json.Marshal(generationFile{Version: version, Generation: gen})
		err = s.st.Store(ctx, s.prefix+generationName, data)
	}
	if err != nil {
		s.failures.Add(1)
		s.log.Warn("thinking.persist_failed", zap.String("op", "fold"), zap.String("key", s.prefix+snapshotFile), zap.Error(err))
		return
	}
	s.mu.Lock()
	s.generation = gen
	s.mu.Unlock()
	for _, n := range folded {
		if err := s.st.Delete(ctx, n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("thinking.persist_failed", zap.String("op", "delete"), zap.String("key", n), zap.Error(err))
		}
	}
}

// encodeSnapshot writes the registry as snapshot gen, covering the folded
// segments. The registry's batches go straight into the file's buffer: no
// copy of the registry is made, and the registry is locked a page at a
// time (see registry.Snapshot), never for the whole walk.
func (s *Store) encodeSnapshot(gen uint64, folded []string) []byte {
	st := s.reg.Stats()
	// Sized for every block and conversation, the buffer rarely grows.
	buf := make([]byte, 0, bytesPerChange*(st.Blocks+2*st.Conversations)+1024)
	enc := newEncoder(buf, fileHeader{Writer: s.writer, Generation: gen, Folded: folded})
	s.reg.Snapshot(nil, enc.add)
	return enc.finish()
}
