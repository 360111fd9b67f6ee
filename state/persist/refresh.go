package persist

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io/fs"
	"math/bits"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// Refresh reads what other instances wrote since the last read, for a
// request whose missing blocks the registry does not know. A request waits
// for it until wait has passed at the latest; the reading itself goes on
// in the background, one round at a time, so a slow storage never piles
// reads up. A caller that comes while a round is reading waits for the next
// round, which sees everything written before the call. Refresh reports
// whether it read storage for the caller.
//
// When every missing block was looked for within the last interval, there
// is nothing new to learn yet and Refresh returns false at once: a block no
// instance knows (from before the gateway, or forgotten) would otherwise
// make every request of its conversation read storage.
func (s *Store) Refresh(wait time.Duration, missing []block.Key) bool {
	s.mu.Lock()
	if s.closed || !s.lookFor(missing) {
		s.mu.Unlock()
		return false
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var need uint64
	if s.refreshing {
		s.again = true
		need = s.roundsStarted + 1
	} else {
		s.refreshing = true
		s.roundsStarted++
		need = s.roundsStarted
		s.bg.Add(1)
		go s.refreshRounds()
	}
	for s.roundsDone < need {
		ch := s.roundDone
		s.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			return true
		}
		s.mu.Lock()
	}
	s.mu.Unlock()
	return true
}

// refreshRounds reads storage until no caller asks for another round.
func (s *Store) refreshRounds() {
	defer s.bg.Done()
	for {
		ctx, cancel := context.WithTimeout(s.ctx, ioTimeout)
		s.io.Lock()
		s.read(ctx)
		s.io.Unlock()
		cancel()
		s.mu.Lock()
		s.roundsDone = s.roundsStarted
		close(s.roundDone)
		s.roundDone = make(chan struct{})
		if !s.again || s.ctx.Err() != nil {
			s.refreshing = false
			s.mu.Unlock()
			return
		}
		s.again = false
		s.roundsStarted++
		s.mu.Unlock()
	}
}

// maxSought bounds the blocks remembered as looked for.
const maxSought = 1 << 14

// lookFor reports whether one of the missing blocks was not looked for
// within the last interval, and notes them all as looked for now. The
// caller holds s.mu.
func (s *Store) lookFor(missing []block.Key) bool {
	now := time.Now()
	// A conversation's blocks no instance knows are missing from every
	// one of its requests: the same set as last time, all looked for
	// until a known time, needs no lookup of each (hundreds in a long
	// history) to say so.
	set := missingSet{len(missing), keysDigest(missing)}
	if set == s.lastMissing && now.Before(s.lastMissingUntil) {
		return false
	}
	until := now.Add(s.interval)
	fresh := false
	for _, k := range missing {
		at, ok := s.sought[k]
		if !ok || now.Sub(at) >= s.interval {
			fresh = true
			break
		}
		until = minTime(until, at.Add(s.interval))
	}
	if !fresh {
		s.lastMissing, s.lastMissingUntil = set, until
		return false
	}
	if len(s.sought)+len(missing) > maxSought {
		clear(s.sought)
	}
	for _, k := range missing {
		s.sought[k] = now
	}
	s.lastMissing, s.lastMissingUntil = set, now.Add(s.interval)
	return true
}

// missingSet names a set of missing blocks, in order, by its length and a
// digest of its keys (see lookFor).
type missingSet struct {
	n      int
	digest uint64
}

// keysDigest returns a digest of keys in order. Keys are digests
// already: mixing their words is enough to tell two sets apart.
func keysDigest(keys []block.Key) uint64 {
	var d uint64
	for _, k := range keys {
		d = bits.RotateLeft64(d, 17) ^ binary.LittleEndian.Uint64(k[:8]) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(k[8:]), 31)
	}
	return d
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// generationFile holds the generation of the snapshot, so that a refresh
// reads the snapshot only when another instance folded the journal.
type generationFile struct {
	Version    int    `json:"version"`
	Generation uint64 `json:"generation"`
}

const generationName = "/snapshot.generation.json"

// read applies a newer snapshot and every journal segment not applied yet,
// in the order they were written, and returns the segments it listed. The
// caller holds s.io.
func (s *Store) read(ctx context.Context) []string {
	s.readSnapshot(ctx)
	names, err := s.list(ctx)
	if err != nil {
		s.log.Warn("thinking.persist_failed", zap.String("op", "list"), zap.String("key", s.prefix+journalDir), zap.Error(err))
		return nil
	}
	s.mu.Lock()
	listed := make(map[string]bool, len(names))
	for _, n := range names {
		listed[n] = true
	}
	for n := range s.applied {
		if !listed[n] {
			delete(s.applied, n) // folded away
		}
	}
	var todo []string
	for _, n := range names {
		if !s.applied[n] {
			todo = append(todo, n)
		}
	}
	s.mu.Unlock()
	for _, n := range todo {
		data, err := s.st.Load(ctx, n)
		if errors.Is(err, fs.ErrNotExist) {
			continue // folded by another instance since the listing
		}
		if err != nil {
			s.log.Warn("thinking.persist_failed", zap.String("op", "read"), zap.String("key", n), zap.Error(err))
			continue
		}
		if _, err := readFile(data, s.reg.Apply); err != nil {
			s.badFiles.Add(1)
			s.log.Warn("thinking.persist_bad_file", zap.String("key", n), zap.Error(err))
		} else {
			s.loadedFiles.Add(1)
		}
		s.mu.Lock()
		s.applied[n] = true
		s.mu.Unlock()
	}
	return names
}

// readSnapshot applies the snapshot when it is newer than the last one read.
func (s *Store) readSnapshot(ctx context.Context) {
	data, err := s.st.Load(ctx, s.prefix+generationName)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var gen generationFile
	if err == nil {
		err = json.Unmarshal(data, &gen)
	}
	if err != nil {
		s.log.Warn("thinking.persist_failed", zap.String("op", "read"), zap.String("key", s.prefix+generationName), zap.Error(err))
		return
	}
	s.mu.Lock()
	known := s.generation
	s.mu.Unlock()
	if gen.Generation <= known {
		return
	}
	data, err = s.st.Load(ctx, s.prefix+snapshotFile)
	if err != nil {
		s.log.Warn("thinking.persist_failed", zap.String("op", "read"), zap.String("key", s.prefix+snapshotFile), zap.Error(err))
		return
	}
	snap, err := readFile(data, s.reg.Apply)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.generation = max(gen.Generation, snap.Generation)
	if err != nil {
		s.badFiles.Add(1)
		s.log.Warn("thinking.persist_bad_file", zap.String("key", s.prefix+snapshotFile), zap.Error(err))
		return
	}
	s.loadedFiles.Add(1)
	for _, n := range snap.Folded {
		s.applied[n] = true
	}
}

// list returns the journal segments, oldest first. A journal that does not
// exist yet is empty.
func (s *Store) list(ctx context.Context) ([]string, error) {
	names, err := s.st.List(ctx, s.prefix+journalDir, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names = slices.DeleteFunc(names, func(n string) bool { return !strings.HasSuffix(n, ".json") })
	slices.Sort(names)
	return names, nil
}
