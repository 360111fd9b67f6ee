package registry

import (
	"slices"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// A registry holds up to a hundred thousand blocks by default, so an entry
// is kept small and free of pointers: entries live in one slab, find each
// other by slot number, and name backends and threads by small ids.
// The garbage collector then has nothing to trace in them, and a block
// costs about 80 bytes.

// slot numbers an entry in the slab; 0 is none.
type slot uint32

// name numbers an interned backend name; 0 is none.
type name uint16

// entry is what the registry knows of one block.
type entry struct {
	key        block.Key
	prev, next slot  // neighbours in recency: prev more, next less recent
	origin     name  // backend that produced it, 0 when only a refusal is known
	born       int64 // when produced, Unix nanoseconds
	// owner is the thread whose response produced the block, while no
	// request has replayed it yet; holder is the first thread whose
	// requests replayed it (more are in extras).
	owner, holder holderID
	// waitPrev and waitNext link the blocks the owner waits for.
	waitPrev, waitNext slot
}

// extra is what few entries need: more holders than one, refusals.
type extra struct {
	holders   []holderID
	refusedBy []name
}

// slab holds the entries, in recency order, up to max of them.
type slab struct {
	index      index
	entries    entries
	free       []slot
	head, tail slot // most and least recently used
	max        int
	extras     map[slot]*extra
	// added counts the keys ever added; recent holds the latest of them,
	// the n-th at recent[n%len(recent)] (see stillAbsent).
	added  uint64
	recent [recentKeys]block.Key
}

// recentKeys is how many of the latest added keys a slab remembers: those
// of the answers a conversation's next request follows, when the gateway
// is not busy with others.
const recentKeys = 8

func newSlab(max int) slab {
	return slab{index: newIndex(), entries: newEntries(), max: max, extras: make(map[slot]*extra)}
}

func (s *slab) len() int { return s.index.n }

// peek returns the slot of k, or 0.
func (s *slab) peek(k block.Key) slot { return s.index.find(k, &s.entries) }

// get returns the slot of k, or 0, making it the most recently used.
func (s *slab) get(k block.Key) slot {
	at := s.peek(k)
	if at != 0 {
		s.touch(at)
	}
	return at
}

// stillAbsent reports whether k, absent when the slab's added count was n,
// is known to be absent still: it is not among the keys added since, and
// the slab remembers all of those.
func (s *slab) stillAbsent(k block.Key, n uint64) bool {
	if s.added-n > recentKeys {
		return false
	}
	for ; n < s.added; n++ {
		if s.recent[n%recentKeys] == k {
			return false
		}
	}
	return true
}

// touch makes the entry at the most recently used.
func (s *slab) touch(at slot) {
	if s.head != at {
		s.unlink(at)
		s.pushFront(at)
	}
}

// add makes a new most recently used entry for k, which must be absent.
// The caller evicts first when the slab is full (see full).
func (s *slab) add(k block.Key) slot {
	var at slot
	if n := len(s.free); n > 0 {
		at, s.free = s.free[n-1], s.free[:n-1]
	} else {
		at = s.entries.grow()
	}
	*s.entries.at(at) = entry{key: k}
	s.index.insert(k, at)
	s.recent[s.added%recentKeys] = k
	s.added++
	s.pushFront(at)
	return at
}

// full reports whether adding would exceed max.
func (s *slab) full() bool { return s.len() >= s.max }

// remove frees the entry in slot at.
func (s *slab) remove(at slot) {
	s.unlink(at)
	s.index.remove(s.entries.at(at).key, at)
	delete(s.extras, at)
	*s.entries.at(at) = entry{}
	s.free = append(s.free, at)
}

func (s *slab) unlink(at slot) {
	e := s.entries.at(at)
	if e.prev != 0 {
		s.entries.at(e.prev).next = e.next
	} else {
		s.head = e.next
	}
	if e.next != 0 {
		s.entries.at(e.next).prev = e.prev
	} else {
		s.tail = e.prev
	}
	e.prev, e.next = 0, 0
}

// demote makes the entry at the least recently used: the first to be
// forgotten when room is needed.
func (s *slab) demote(at slot) {
	if s.tail != at {
		s.unlink(at)
		s.pushBack(at)
	}
}

func (s *slab) pushBack(at slot) {
	e := s.entries.at(at)
	e.prev, e.next = s.tail, 0
	if s.tail != 0 {
		s.entries.at(s.tail).next = at
	}
	s.tail = at
	if s.head == 0 {
		s.head = at
	}
}

func (s *slab) pushFront(at slot) {
	e := s.entries.at(at)
	e.prev, e.next = 0, s.head
	if s.head != 0 {
		s.entries.at(s.head).prev = at
	}
	s.head = at
	if s.tail == 0 {
		s.tail = at
	}
}

// wait links the entry at into the list of blocks c waits for, whose
// first is *first.
func (s *slab) wait(at slot, first *slot) {
	e := s.entries.at(at)
	e.waitPrev, e.waitNext = 0, *first
	if *first != 0 {
		s.entries.at(*first).waitPrev = at
	}
	*first = at
}

// unwait takes the entry at out of the list whose first is *first.
func (s *slab) unwait(at slot, first *slot) {
	e := s.entries.at(at)
	if e.waitPrev != 0 {
		s.entries.at(e.waitPrev).waitNext = e.waitNext
	} else {
		*first = e.waitNext
	}
	if e.waitNext != 0 {
		s.entries.at(e.waitNext).waitPrev = e.waitPrev
	}
	e.waitPrev, e.waitNext = 0, 0
}

// extra returns the extras of slot at, creating them.
func (s *slab) extra(at slot) *extra {
	x := s.extras[at]
	if x == nil {
		x = new(extra)
		s.extras[at] = x
	}
	return x
}

// holds reports whether thread c holds the entry at.
func (s *slab) holds(at slot, c holderID) bool {
	if s.entries.at(at).holder == c {
		return true
	}
	x := s.extras[at]
	return x != nil && slices.Contains(x.holders, c)
}

// holders counts the threads holding the entry at.
func (s *slab) holders(at slot) int {
	n := 0
	if s.entries.at(at).holder != 0 {
		n = 1
	}
	if x := s.extras[at]; x != nil {
		n += len(x.holders)
	}
	return n
}

// eachHolder calls f with every thread holding the entry at.
func (s *slab) eachHolder(at slot, f func(holderID)) {
	if h := s.entries.at(at).holder; h != 0 {
		f(h)
	}
	if x := s.extras[at]; x != nil {
		for _, h := range x.holders {
			f(h)
		}
	}
}

// addHolder makes c a holder of the entry at, which it does not hold.
func (s *slab) addHolder(at slot, c holderID) {
	if s.entries.at(at).holder == 0 {
		s.entries.at(at).holder = c
		return
	}
	x := s.extra(at)
	x.holders = append(x.holders, c)
}

// dropHolder ends c's hold on the entry at.
func (s *slab) dropHolder(at slot, c holderID) {
	x := s.extras[at]
	if s.entries.at(at).holder == c {
		s.entries.at(at).holder = 0
		if x != nil && len(x.holders) > 0 {
			s.entries.at(at).holder = x.holders[len(x.holders)-1]
			x.holders = x.holders[:len(x.holders)-1]
		}
	} else if x != nil {
		if i := slices.Index(x.holders, c); i >= 0 {
			x.holders = slices.Delete(x.holders, i, i+1)
		}
	}
	if x != nil && len(x.holders) == 0 && len(x.refusedBy) == 0 {
		delete(s.extras, at)
	}
}

// names interns backend names. A name is kept for the registry's life:
// there are a handful of backends; the table's bound keeps a flood of
// made-up names (backend names can come from headers) from growing it.
type names struct {
	list  []string // list[0] is ""
	index map[string]name
}

// maxNames bounds the names interned; a name past it is kept as other.
const maxNames = 1 << 14

// other stands for every name past maxNames: a block it produced is known
// as produced by some backend, never by the one a request goes to.
const other name = maxNames

func newNames() names { return names{list: []string{""}, index: map[string]name{}} }

// id returns the id of s, interning it.
func (n *names) id(s string) name {
	if s == "" {
		return 0
	}
	if id, ok := n.index[s]; ok {
		return id
	}
	if len(n.list) == int(other) {
		return other
	}
	id := name(len(n.list))
	n.list = append(n.list, s)
	n.index[s] = id
	return id
}

// lookup returns the id of s, or 0 when it is not interned.
func (n *names) lookup(s string) name { return n.index[s] }

// of returns the name of id.
func (n *names) of(id name) string {
	if id == other {
		return "(one of too many backends)"
	}
	return n.list[id]
}
