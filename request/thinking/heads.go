package thinking

import (
	"sync"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// Heads remembers how recent bodies open: the top-level members before
// their messages array, by the digest of the bytes up to and including its
// bracket. A client that sends its system prompt and tools before the
// messages (as the SDKs do when they are written first) sends them again,
// unchanged, with every request; a body that opens as one of these is not
// read there again, as a Checkpoint's tail is not. Claude Code sends its
// messages first: there is nothing before them to remember.
//
// Heads keeps offsets and digests, never bytes, of a few bodies. It is safe
// for concurrent use; the zero Heads is ready to use.
type Heads struct {
	mu     sync.Mutex
	recent [headsKept]head
	next   int // the entry replaced next
}

// headsKept is how many openings Heads remembers: a gateway's clients
// share a handful of system prompts and tool sets.
const headsKept = 4

// maxHeadMembers bounds the members of an opening Heads remembers: what it
// holds stays small whatever a body sends.
const maxHeadMembers = 64

// minHead is the shortest opening worth remembering: below it, reading the
// members costs less than finding them again.
const minHead = 512

// head is one remembered opening: the messages array opens at arrayAt,
// digest is that of the body up to and including its bracket, and members
// are the top-level members before it, at their offsets (the same in every
// body that opens so).
type head struct {
	arrayAt int
	digest  uint64
	members []member
}

// find returns the remembered opening b starts with, its members appended
// to into, and whether there was one. Only the digest of a candidate's
// length is computed, outside the lock; the last one computed is returned
// with where its bracket is (0 when none was), found or not, for the
// request not to compute it again.
func (hs *Heads) find(b []byte, into []member) (members []member, at int, d uint64, found bool) {
	var candidates [headsKept]int
	hs.mu.Lock()
	for i, h := range hs.recent {
		candidates[i] = h.arrayAt
	}
	hs.mu.Unlock()
	for i, a := range candidates {
		if a == 0 || a >= len(b) || b[a] != '[' || (i > 0 && a == candidates[i-1]) {
			continue
		}
		at, d = a, digest(b[:a+1])
		hs.mu.Lock()
		for _, h := range hs.recent {
			if h.arrayAt == a && h.digest == d {
				into = append(into, h.members...)
				hs.mu.Unlock()
				return into, at, d, true
			}
		}
		hs.mu.Unlock()
	}
	return into, at, d, false
}

// remember records the opening of a body read in full: its messages array
// opens at arrayAt, d is the digest up to there, and members are the
// top-level members before it.
func (hs *Heads) remember(arrayAt int, d uint64, members []member) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	for _, h := range hs.recent {
		if h.arrayAt == arrayAt && h.digest == d {
			return
		}
	}
	h := &hs.recent[hs.next]
	h.arrayAt, h.digest = arrayAt, d
	h.members = append(h.members[:0], members...)
	hs.next = (hs.next + 1) % headsKept
}

// restoreHead takes the members before the messages array from r.heads
// when the body opens as a remembered one, and returns the iterator over
// the top-level members that goes on from there. Members that set the
// config are read again at their offsets; the others (system prompt,
// tools) are not.
func (r *Request) restoreHead(object int) (jsonscan.Iter, error) {
	b := r.body
	if r.heads == nil || len(b) < minHead {
		return jsonscan.Members(b, object), nil
	}
	members, at, d, ok := r.heads.find(b, r.members[:0])
	r.headAt, r.headDigest = at, d // the messages array may open there: see headDigestOf
	if !ok || len(members) == 0 {
		return jsonscan.Members(b, object), nil
	}
	// r.members is written behind where members is read: both are the
	// same array, and each member retaken appends one.
	r.members = members[:0]
	for _, m := range members {
		if err := r.retake(m); err != nil {
			return jsonscan.Iter{}, err
		}
	}
	r.headRestored = true
	return jsonscan.MembersAfter(b, members[len(members)-1].value.End, len(members)), nil
}

// rememberHead records the opening of a body whose head was read, when it
// is worth remembering.
func (r *Request) rememberHead() {
	if r.heads == nil || r.headRestored || r.arrayAt < minHead {
		return
	}
	n := 0
	for n < len(r.members) && r.members[n].name != messagesMember {
		n++
	}
	if n == 0 || n > maxHeadMembers || n == len(r.members) || r.members[n].value.Start != r.arrayAt {
		return
	}
	r.heads.remember(r.arrayAt, r.headDigestOf(), r.members[:n])
}

// headDigestOf returns the digest of the body up to and including the
// bracket that opens its messages array, computed once: Heads may have
// computed it already, looking for a remembered opening of that length.
func (r *Request) headDigestOf() uint64 {
	if r.headAt != r.arrayAt || r.arrayAt == 0 {
		r.headAt, r.headDigest = r.arrayAt, digest(r.body[:r.arrayAt+1])
	}
	return r.headDigest
}
