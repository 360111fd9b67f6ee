package persist

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// Defaults for Options left at zero.
const (
	DefaultInterval = time.Second
	// ioTimeout bounds every storage call a Store makes in the background.
	ioTimeout = 30 * time.Second
	// foldAt is the number of journal segments that makes a Store fold the
	// journal into the snapshot.
	foldAt = 64
)

// Options configure a Store.
type Options struct {
	// Prefix is the storage path of the registry (see Prefix).
	Prefix string
	// Interval bounds how long a change waits before it is written.
	Interval time.Duration
	// Logger receives warnings about storage; nil discards them.
	Logger *zap.Logger
}

// Store keeps one registry in storage. It is safe for concurrent use.
type Store struct {
	reg      *registry.Registry
	st       Storage
	prefix   string
	interval time.Duration
	log      *zap.Logger
	writer   string // this instance, in the names of its segments

	seq    atomic.Uint64
	ctx    context.Context // of background work, cancelled by Close
	cancel context.CancelFunc
	stop   chan struct{}
	done   chan struct{}
	bg     sync.WaitGroup // refreshes running in the background

	// io orders the Store's own storage work: writes, reads and folds.
	io sync.Mutex

	mu         sync.Mutex // guards what follows
	applied    map[string]bool
	generation uint64 // of the last snapshot read or written
	unwritten  []registry.Change
	writing    int                     // changes of the write under way
	sought     map[block.Key]time.Time // missing blocks, when last looked for
	// The set of missing blocks lookFor last saw, and until when all of
	// them count as looked for.
	lastMissing      missingSet
	lastMissingUntil time.Time
	closed           bool
	// Refresh rounds: roundsStarted and roundsDone count them, roundDone
	// is closed when the running round ends, and again asks for one more
	// round for callers that came while a round was already reading.
	refreshing                bool
	again                     bool
	roundsStarted, roundsDone uint64
	roundDone                 chan struct{}

	writes      atomic.Uint64
	failures    atomic.Uint64
	dropped     atomic.Uint64
	loadedFiles atomic.Uint64
	badFiles    atomic.Uint64
}

// Open loads what storage holds into reg, then starts writing what reg
// learns. Loading is bounded by ctx; what could not be read in time, or at
// all, is a warning, never an error: the registry then starts with less.
func Open(ctx context.Context, reg *registry.Registry, st Storage, opts Options) *Store {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	s := &Store{
		reg:       reg,
		st:        st,
		prefix:    opts.Prefix,
		interval:  opts.Interval,
		log:       opts.Logger,
		writer:    newWriterID(),
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
		applied:   make(map[string]bool),
		sought:    make(map[block.Key]time.Time),
		roundDone: make(chan struct{}),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	reg.Record()
	s.io.Lock()
	s.read(ctx)
	s.io.Unlock()
	go s.run()
	return s
}

func newWriterID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// run writes the journal every interval until Close.
func (s *Store) run() {
	defer close(s.done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(s.ctx, ioTimeout)
			if s.Flush(ctx) == nil && s.due() {
				s.fold(ctx)
			}
			cancel()
		}
	}
}

// Close stops the background work and writes what is left, bounded by ctx.
// A Store cannot be used after Close.
func (s *Store) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	close(s.stop)
	<-s.done
	s.bg.Wait()
	return s.Flush(ctx)
}

// Flush writes the changes the registry learned since the last write as
// one journal segment. A failed write keeps them for the next one.
func (s *Store) Flush(ctx context.Context) error {
	s.io.Lock()
	defer s.io.Unlock()
	s.mu.Lock()
	changes, dropped := s.reg.TakeChanges(s.unwritten)
	s.unwritten = nil
	s.writing = len(changes)
	s.mu.Unlock()
	s.dropped.Add(dropped)
	if len(changes) == 0 {
		return nil
	}
	changes = coalesce(changes)
	enc := newEncoder(make([]byte, 0, bytesPerChange*len(changes)+256), fileHeader{Writer: s.writer})
	enc.add(changes)
	data := enc.finish()
	name := fmt.Sprintf("%s%s/%020d-%s-%06d.json", s.prefix, journalDir, time.Now().UnixNano(), s.writer, s.seq.Add(1))
	err := s.st.Store(ctx, name, data)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writing = 0
	if err != nil {
		s.failures.Add(1)
		s.unwritten = keepNewest(append(changes, s.unwritten...))
		s.log.Warn("thinking.persist_failed", zap.String("op", "write"), zap.String("key", name), zap.Error(err))
		return err
	}
	s.writes.Add(1)
	s.applied[name] = true
	return nil
}

// coalesce keeps only the latest Served change of each conversation:
// every answer is journaled, only the latest backend matters.
func coalesce(changes []registry.Change) []registry.Change {
	latest := make(map[string]int)
	for i, c := range changes {
		if c.Op == registry.Served {
			latest[c.Conversation] = i
		}
	}
	out := changes[:0]
	for i, c := range changes {
		if c.Op != registry.Served || latest[c.Conversation] == i {
			out = append(out, c)
		}
	}
	return out
}

// maxUnwritten bounds the changes kept across failed writes.
const maxUnwritten = 1 << 16

func keepNewest(changes []registry.Change) []registry.Change {
	if len(changes) > maxUnwritten {
		changes = changes[len(changes)-maxUnwritten:]
	}
	return changes
}

// Stats counts what a Store did.
type Stats struct {
	// Writes and Failures count journal writes that succeeded and failed.
	Writes   uint64 `json:"writes"`
	Failures uint64 `json:"failures"`
	// Unwritten counts the changes not written yet.
	Unwritten int `json:"unwritten"`
	// Dropped counts changes lost because storage could not keep up.
	Dropped uint64 `json:"dropped"`
	// Loaded counts the files read; Bad the ones skipped as unreadable.
	Loaded uint64 `json:"loaded"`
	Bad    uint64 `json:"bad"`
}

// Stats returns the Store's counts.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	unwritten := len(s.unwritten) + s.writing
	s.mu.Unlock()
	return Stats{
		Writes:    s.writes.Load(),
		Failures:  s.failures.Load(),
		Unwritten: unwritten + s.reg.Journaled(),
		Dropped:   s.dropped.Load(),
		Loaded:    s.loadedFiles.Load(),
		Bad:       s.badFiles.Load(),
	}
}
