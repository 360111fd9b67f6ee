// Package threads recognizes, for each request of a conversation, the
// thread it continues, and keeps what reading that thread's latest request
// learned (its History and Checkpoint), so that the next request is read
// only past the history it shares. The policy plans a request with it; the
// registry follows its threads' lifecycle. It imports nothing of Caddy.
package threads

import (
	"sync"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// Defaults for Limits fields left at zero.
const (
	// DefaultBudget bounds the memory the threads' histories and
	// checkpoints hold.
	DefaultBudget = 16 << 20
	// DefaultPerScope bounds the threads of one scope: the global
	// scope of every client that names no session holds them all.
	DefaultPerScope = 256
	// DefaultMax bounds the threads of all scopes.
	DefaultMax = 4096
)

// maxCandidates bounds the threads a request's history is compared with:
// the most recently used of those that start with its first message.
const maxCandidates = 16

// Limits bounds a Set.
type Limits struct {
	// Budget is about how many bytes of memory the histories and
	// checkpoints of all threads may hold.
	Budget int
	// PerScope is how many threads one scope may have, Max how many all
	// scopes together.
	PerScope, Max int
}

func (l Limits) withDefaults() Limits {
	if l.Budget <= 0 {
		l.Budget = DefaultBudget
	}
	if l.PerScope <= 0 {
		l.PerScope = DefaultPerScope
	}
	if l.Max <= 0 {
		l.Max = DefaultMax
	}
	return l
}

// Set recognizes, for each request, the thread it continues: the
// earlier requests of its scope whose history it sends again, byte for
// byte, and goes on from. The headers name the scope (a session, a
// subagent, or none at all), the body decides the thread: a request that
// continues a thread's history is that thread's next, one that shares no
// history with any thread of its scope starts a new one, and one that
// leaves a thread's history part way (a rewind, an edit, a conversation
// that started like another) starts a new thread branching from it. The
// thread it left is kept as it was: it may go on too, and telling a
// rewind from a branch could only be a guess, which must never cost a
// block. Threads are forgotten least recently used first, within their
// scope and over all; forgetting one only costs its next request a full
// read and the registry a lookup of its blocks.
//
// Each thread keeps the History of its latest request and the Checkpoint
// of that request's structure, shared by the requests reading with it, so
// that its next request is read only past the history it shares.
//
// A Set is safe for concurrent use.
type Set struct {
	limits    Limits
	lifecycle Lifecycle

	mu     sync.Mutex
	index  map[opening][]*thread // by how their history starts
	byID   map[registry.ThreadID]*thread
	all    recency             // every thread
	scopes map[string]*recency // the threads of each scope
	bytes  int
	next   registry.ThreadID
	clock  uint64 // counts uses, for recency among candidates
}

// Lifecycle is told when a thread starts and when it is forgotten, so that
// the blocks its requests replay are held for it in between: a
// *registry.Registry. It is called with Set's lock held, so that a
// thread never ends before it starts.
type Lifecycle interface {
	StartThread(registry.ThreadID)
	EndThreads(...registry.ThreadID)
}

// recency lists threads from the most to the least recently used.
type recency struct {
	head, tail *thread
	n          int
}

// opening is how a thread's history starts: its scope as the headers name
// it ("" when they name none) and its first message.
type opening struct {
	scope string
	first thinking.Piece
}

// thread is one thread of a scope.
type thread struct {
	id    registry.ThreadID
	scope string  // the scope its requests are in
	key   opening // its index entry
	hist  *thinking.History
	// held is the checkpoint of its latest request, or nil.
	held   *held
	size   int    // memory counted for hist and held
	used   uint64 // Set.clock when last used
	listed bool   // in the recency lists
	gone   bool
	// Neighbours by recency: over all threads (links[0]) and within the
	// scope (links[1]).
	links [2]struct{ prev, next *thread }
}

// held is a thread's checkpoint, with the History of the request it was
// saved from. Once held it never changes, so that requests read it at
// once; when another replaces it, the last of them recycles it.
type held struct {
	cp    *thinking.Checkpoint
	hist  *thinking.History
	size  int
	users int  // requests reading with it
	gone  bool // replaced or let go: the last user recycles it
}

// checkpoints recycles the memory of checkpoints no thread holds any more.
var checkpoints = sync.Pool{New: func() any { return new(thinking.Checkpoint) }}

// release ends a request's use of h.
func (h *held) release() {
	h.users--
	h.recycle()
}

// recycle gives the checkpoint's memory back once h is gone and its last
// user done.
func (h *held) recycle() {
	if h.users == 0 && h.gone {
		checkpoints.Put(h.cp)
	}
}

// New returns an empty set of threads within limits, whose
// lifecycle l follows.
func New(limits Limits, l Lifecycle) *Set {
	return &Set{limits: limits.withDefaults(), lifecycle: l, index: make(map[opening][]*thread),
		byID: make(map[registry.ThreadID]*thread), scopes: make(map[string]*recency)}
}

// Match is what finding a request's thread learned, from Find to Keep.
// Make one per request with NewMatch.
type Match struct {
	header string // the scope the headers name
	key    opening
	thread *thread // the thread whose history the request shares most of
	hist   *thinking.History
	shared int
	held   *held // the checkpoint read with, released by keep
	memo   thinking.Memo
	// Once settled: the request's thread, whether it is thread's next
	// request, whether it is thread's latest request again (a retry, a
	// client sending the same history twice), and the History its
	// checkpoint is kept under.
	id        registry.ThreadID
	continued bool
	repeat    bool
	tracked   bool
	kept      *thinking.History
}

// NewMatch starts finding the thread of a request whose headers name the
// scope header ("" when they name none).
func NewMatch(header string) *Match { return &Match{header: header} }

// Find is the thinking.Finder of a request whose headers name scope
// header: it compares the body with the threads whose history starts as
// its own and takes the checkpoint of the one it shares most with.
func (ts *Set) Find(m *Match, body []byte, o thinking.Opening) thinking.From {
	m.key = opening{m.header, o.First}
	var cands [maxCandidates]*thread
	var hists [maxCandidates]*thinking.History
	ts.mu.Lock()
	n := ts.candidates(m.key, cands[:0])
	for i, t := range cands[:n] {
		hists[i] = t.hist
	}
	ts.mu.Unlock()

	// The memo spares a candidate the hashing another did before it; one
	// alone needs none.
	memo := &m.memo
	if n == 1 {
		memo = nil
	}
	best := -1
	for i := range n {
		shared := hists[i].Shared(body, o.Array, memo)
		if best < 0 || shared > m.shared {
			best, m.shared = i, shared
		}
	}
	if best < 0 {
		return thinking.From{}
	}
	m.thread, m.hist = cands[best], hists[best]
	ts.mu.Lock()
	if h := m.thread.held; !m.thread.gone && h != nil && h.hist == m.hist {
		m.held = h
		h.users++
	}
	ts.mu.Unlock()
	from := thinking.From{History: m.hist, Shared: m.shared}
	if m.held != nil {
		from.Checkpoint = m.held.cp
	}
	return from
}

// candidates appends to dst the most recently used threads that start as
// key, most recent first, and returns how many there are.
func (ts *Set) candidates(key opening, dst []*thread) int {
	for _, t := range ts.index[key] {
		if len(dst) < cap(dst) {
			dst = append(dst, t)
			continue
		}
		// Keep the most recent: replace the least recent kept.
		least := 0
		for i, c := range dst {
			if c.used < dst[least].used {
				least = i
			}
		}
		if t.used > dst[least].used {
			dst[least] = t
		}
	}
	// Most recent first: equal shares go to the thread used last.
	for i := 1; i < len(dst); i++ {
		for j := i; j > 0 && dst[j].used > dst[j-1].used; j-- {
			dst[j], dst[j-1] = dst[j-1], dst[j]
		}
	}
	return len(dst)
}

// Settle decides the thread of a request in scope with n messages once it
// has been read: the thread it continues, or, when it is tracked, a new one
// whose history is hist. An untracked request (token counting, a side
// request, a replay) changes nothing and is in the thread it would
// continue, or in none (0).
func (ts *Set) Settle(m *Match, scope string, n int, hist *thinking.History, tracked bool) registry.ThreadID {
	m.tracked = tracked && hist.Len() > 0
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := m.thread
	m.continued = t != nil && !t.gone && t.scope == scope && t.hist == m.hist &&
		m.shared >= m.hist.Len()-1 && n >= m.hist.Len()
	m.repeat = m.continued && m.shared == n && n == m.hist.Len()
	switch {
	case m.continued && m.tracked:
		ts.count(t, hist.Size()-t.hist.Size()) // nothing when it repeats t's history
		t.hist = hist
		m.kept = hist
		ts.touch(t)
		m.id = t.id
	case m.continued:
		m.id = t.id
	case m.tracked:
		m.kept = hist
		m.id = ts.add(scope, opening{m.header, hist.First()}, hist).id
	}
	return m.id
}

// Keep ends the request's use of the checkpoint it read with, and keeps
// the checkpoint of its body for its thread's next request: save fills
// it. A request that sent its thread's latest history again keeps the
// checkpoint its thread holds, if that one is of the same body. Call Keep
// once the request is read and rewritten (a rewrite may learn that the
// body is valid JSON).
func (ts *Set) Keep(m *Match, save func(*thinking.Checkpoint)) {
	ts.mu.Lock()
	var t *thread
	if m.tracked && m.id != 0 {
		t = ts.byID[m.id]
	}
	if t == nil || m.repeat && m.held != nil && t.held == m.held {
		ts.release(m)
		ts.mu.Unlock()
		return
	}
	ts.mu.Unlock()
	// The request may still read the checkpoint it was resumed from while
	// it saves (see thinking.Request.Save): it releases it after.
	cp := checkpoints.Get().(*thinking.Checkpoint)
	save(cp)
	h := &held{cp: cp, hist: m.kept, size: cp.Size()}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.release(m)
	if t.gone || t.hist != m.kept {
		checkpoints.Put(cp)
		return
	}
	if h.size > ts.limits.Budget/8 {
		// Too large to keep: its next request is read in full.
		checkpoints.Put(cp)
		h = nil
	}
	ts.drop(t)
	if h != nil {
		t.held = h
		ts.count(t, h.size)
	}
	ts.trim(t)
}

// release ends the request's use of the checkpoint it read with, and of
// the memory its body's digests were kept in.
func (ts *Set) release(m *Match) {
	if m.held != nil {
		m.held.release()
		m.held = nil
	}
	m.memo.Release()
}

// drop lets go of t's checkpoint; its last user recycles it.
func (ts *Set) drop(t *thread) {
	h := t.held
	if h == nil {
		return
	}
	t.held = nil
	ts.count(t, -h.size)
	h.gone = true
	h.recycle()
}

// count adds n bytes to what t, and all threads, hold.
func (ts *Set) count(t *thread, n int) {
	t.size += n
	ts.bytes += n
}

// add starts a new thread of scope whose history is hist, forgetting the
// least recently used ones beyond the limits.
func (ts *Set) add(scope string, key opening, hist *thinking.History) *thread {
	ts.next++
	t := &thread{id: ts.next, scope: scope, key: key, hist: hist}
	ts.index[key] = append(ts.index[key], t)
	ts.byID[t.id] = t
	ts.count(t, hist.Size())
	ts.touch(t)
	ts.lifecycle.StartThread(t.id)
	if s := ts.scopes[scope]; s.n > ts.limits.PerScope {
		ts.remove(s.tail)
	}
	ts.trim(t)
	return t
}

// trim forgets the least recently used threads, other than keep, while
// there are too many or they hold too much.
func (ts *Set) trim(keep *thread) {
	for ts.all.n > ts.limits.Max || ts.bytes > ts.limits.Budget {
		last := ts.all.tail
		if last == nil || last == keep {
			return
		}
		ts.remove(last)
	}
}

// touch makes t the most recently used thread, of all and of its scope.
func (ts *Set) touch(t *thread) {
	ts.clock++
	t.used = ts.clock
	s := ts.scopes[t.scope]
	if s == nil {
		s = new(recency)
		ts.scopes[t.scope] = s
	}
	if t.listed {
		ts.all.unlink(t, 0)
		s.unlink(t, 1)
	}
	ts.all.push(t, 0)
	s.push(t, 1)
	t.listed = true
}

// push makes t, in no list yet, the most recently used of l, by links[i].
func (l *recency) push(t *thread, i int) {
	t.links[i].prev, t.links[i].next = nil, l.head
	if l.head != nil {
		l.head.links[i].prev = t
	}
	l.head = t
	if l.tail == nil {
		l.tail = t
	}
	l.n++
}

// unlink takes t out of l, by links[i].
func (l *recency) unlink(t *thread, i int) {
	link := &t.links[i]
	if link.prev != nil {
		link.prev.links[i].next = link.next
	} else {
		l.head = link.next
	}
	if link.next != nil {
		link.next.links[i].prev = link.prev
	} else {
		l.tail = link.prev
	}
	link.prev, link.next = nil, nil
	l.n--
}

// remove forgets t, and ends its lifecycle.
func (ts *Set) remove(t *thread) {
	ts.all.unlink(t, 0)
	s := ts.scopes[t.scope]
	s.unlink(t, 1)
	if s.n == 0 {
		delete(ts.scopes, t.scope)
	}
	list := ts.index[t.key]
	for i, x := range list {
		if x == t {
			list[i] = list[len(list)-1]
			list[len(list)-1] = nil
			list = list[:len(list)-1]
			break
		}
	}
	if len(list) == 0 {
		delete(ts.index, t.key)
	} else {
		ts.index[t.key] = list
	}
	delete(ts.byID, t.id)
	ts.drop(t)
	ts.bytes -= t.size
	t.listed, t.gone, t.hist = false, true, nil
	ts.lifecycle.EndThreads(t.id)
}

// Len returns how many threads are remembered, and the memory they hold.
func (ts *Set) Len() (threads, bytes int) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.all.n, ts.bytes
}
