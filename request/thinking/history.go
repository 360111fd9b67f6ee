package thinking

import (
	"crypto/rand"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/zeebo/xxh3"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// A History identifies the messages of one request by their bytes: where
// each message ends, and a digest of the messages array from its opening
// bracket up to there. A client that goes on with a conversation sends its
// earlier messages again byte for byte, so the digests of the new request's
// first messages equal those of the request before it exactly as far as it
// continues that history, and no further: that is how a conversation's
// thread is recognized without keeping its body.
//
// The digests are keyed with a seed chosen when the process starts, so no
// client can make a body whose digests match another conversation's
// without sending that conversation's bytes. A History never changes once
// made, so it may be read by any number of goroutines.
//
// Besides a digest per message, a History keeps digests of stretches of
// whole messages of at least stretchBytes, which tell in a few long hashes
// what the per-message digests tell in one short hash per message (see
// Shared).
type History struct {
	ends      []uint32  // just past each message, from the array's opening bracket
	digests   []uint64  // of the array from its opening bracket to each end
	stretches []stretch // from the array's opening bracket, in order
}

// A stretch is a run of whole messages of a History, from the end of the
// stretch before it (the array's opening bracket for the first) to the end
// of message last, of at least stretchBytes, and the digest of the history
// up to there, chained stretch by stretch.
type stretch struct {
	last   uint32
	digest uint64
}

// stretchBytes is the least length of a stretch. XXH3 hashes a few KiB,
// what a message holds, at two thirds of the speed it hashes 32 KiB at
// (more calls, each with its own setup and finish), so a history checked
// stretch by stretch costs about what one hash of it costs. A stretch
// closes at the first message end past stretchBytes, and stretches once
// closed stay as they are in the histories that continue this one, so a
// request hashes for its stretches only what follows the last stretch it
// shares: less than stretchBytes of messages it shares, and the new ones.
const stretchBytes = 32 << 10

// seed keys every digest of this process.
var seed = func() uint64 {
	var b [8]byte
	rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}()

// digest returns the digest of b under this process's seed. It is XXH3,
// which hashes at about the speed memory is read (some 20 GB/s on a
// message of a few KiB, three times hash/maphash): every request has its
// whole history hashed to know how far it continues another's, so this is
// what a request with nothing new costs. Past 240 bytes, XXH3 with a seed
// derives a secret of its own from it on every call (some 200
// instructions, a tenth of a 256 KiB request's hashing); there the digest
// is XXH3's without a seed, mixed with the seed, which keeps what the seed
// is for: no client can aim a body at digests it does not know.
func digest(b []byte) uint64 {
	if len(b) <= 240 {
		return xxh3.HashSeed(b, seed)
	}
	return mix(xxh3.Hash(b) ^ seed)
}

// mix is a bijection of 64 bits that spreads every bit over all of them
// (Stafford's variant 13 of MurmurHash3's finalizer).
func mix(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// digestStart is the digest of nothing: what the first piece chains from.
const digestStart = 0x6c6c6d5f74686b67

// chain returns the digest of a history whose digest so far is prev, one
// piece longer: a message with the separator before it.
func chain(prev uint64, piece []byte) uint64 {
	return bits.RotateLeft64(prev*0x9e3779b97f4a7c15, 29) ^ digest(piece)
}

// Piece is one message of a body as a History sees it: where it ends, from
// the messages array's opening bracket, and the digest of the array up to
// there.
type Piece struct {
	End    uint32
	Digest uint64
}

// Len returns the number of messages h holds; a nil History holds none.
func (h *History) Len() int {
	if h == nil {
		return 0
	}
	return len(h.ends)
}

// First returns h's first message, which h must hold.
func (h *History) First() Piece { return Piece{h.ends[0], h.digests[0]} }

// Size returns about how many bytes of memory h holds.
func (h *History) Size() int {
	if h == nil {
		return 0
	}
	return int(unsafe.Sizeof(*h)) + 4*cap(h.ends) + 8*cap(h.digests) +
		int(unsafe.Sizeof(stretch{}))*cap(h.stretches)
}

// Shared returns how many of the first messages of body, whose messages
// array opens at body[array] and whose first message is h's (see
// Opening), are h's: body is hashed along h's stretches until a digest
// differs, then along h's message boundaries from there until a digest
// differs. memo remembers what was hashed, so that other Histories checked
// against the same body do not hash again the messages they share with
// this one; release it (Memo.Release) once done with the body. memo is nil
// when no other History will be checked against body: nothing is then
// remembered, which spares a piece per message shared.
func (h *History) Shared(body []byte, array int, memo *Memo) int {
	n := h.Len()
	if n == 0 {
		return 0
	}
	from := 1
	if memo.begin(h) {
		// Nothing of body was hashed: its stretches first. Once another
		// History's pieces are in memo, they are compared instead.
		from = h.sharedStretches(body, array, memo)
	}
	for i := from; i < n; i++ {
		end := h.ends[i]
		if d, ok := memo.digest(i, end); ok {
			if d != h.digests[i] {
				return i
			}
			continue
		}
		at, stop := array+int(h.ends[i-1]), array+int(end)
		if stop > len(body) || stop <= at {
			return i
		}
		d := chain(h.digests[i-1], body[at:stop])
		memo.set(i, Piece{end, d})
		if d != h.digests[i] {
			return i
		}
	}
	return n
}

// sharedStretches returns how many of the first messages of body are those
// of h's stretches that body has, hashed stretch by stretch until one
// differs (at least the first message, which the caller knows is h's), and
// leaves their pieces in memo, which holds only the first: a stretch's
// bytes being h's, so are the digests of the messages in it.
func (h *History) sharedStretches(body []byte, array int, memo *Memo) int {
	prev, at, shared := uint64(digestStart), array, 1
	for _, s := range h.stretches {
		stop := array + int(h.ends[s.last])
		if stop > len(body) {
			break
		}
		d := chain(prev, body[at:stop])
		if d != s.digest {
			break
		}
		prev, at, shared = d, stop, int(s.last)+1
	}
	memo.fill(h, shared)
	return shared
}

// Memo remembers the digests of one body along the boundaries it was
// hashed at (see History.Shared). The zero Memo is empty. Its memory,
// a piece per message of a body (kilobytes in a long conversation, on
// every request), comes from the Memos released before it.
type Memo struct {
	pieces []Piece
	box    *[]Piece // what pieces goes back to the pool in
}

// memos recycles the memory of released Memos (see Memo.Release), of at
// most maxPooled pieces, as Requests are.
var memos sync.Pool // of *[]Piece

// The methods below are what History.Shared asks of its memo; a nil Memo
// remembers nothing, and knows no digest.

// begin readies m for checking h against its body, and reports whether
// nothing of the body was hashed yet: m then holds h's first piece, which
// the caller knows the body shares.
func (m *Memo) begin(h *History) bool {
	if m == nil {
		return true
	}
	// One allocation of the room the pieces may take, not one per doubling.
	m.grow(h.Len())
	if len(m.pieces) > 0 {
		return false
	}
	m.pieces = append(m.pieces, h.First())
	return true
}

// fill gives m h's pieces of its first n messages that m lacks.
func (m *Memo) fill(h *History, n int) {
	if m == nil {
		return
	}
	for i := len(m.pieces); i < n; i++ {
		m.pieces = append(m.pieces, Piece{h.ends[i], h.digests[i]})
	}
}

// digest returns the digest of the body up to end, the end of its i-th
// message, when m holds it.
func (m *Memo) digest(i int, end uint32) (uint64, bool) {
	if m == nil || i >= len(m.pieces) || m.pieces[i].End != end {
		return 0, false
	}
	return m.pieces[i].Digest, true
}

// set makes p m's i-th piece and its last: what m held from i on was
// hashed along other boundaries. m holds at least i pieces.
func (m *Memo) set(i int, p Piece) {
	if m != nil {
		m.pieces = append(m.pieces[:i], p)
	}
}

// grow makes room in m for n pieces in all, from a released Memo's
// memory when m has none yet.
func (m *Memo) grow(n int) {
	if m.box == nil {
		if m.box, _ = memos.Get().(*[]Piece); m.box == nil {
			m.box = new([]Piece)
		}
		m.pieces = append((*m.box)[:0], m.pieces...)
	}
	m.pieces = slices.Grow(m.pieces, max(n-len(m.pieces), 0))
}

// Release gives m's memory back for the Memos of other bodies and empties
// m; m must not be used by anyone else afterwards.
func (m *Memo) Release() {
	if m.box != nil && cap(m.pieces) <= maxPooled {
		*m.box = m.pieces[:0]
		memos.Put(m.box)
	}
	m.pieces, m.box = nil, nil
}

// Opening is what a History is looked up by: the first message of a body
// (see Resume).
type Opening struct {
	// Array is where the messages array opens in the body.
	Array int
	// First is its first message.
	First Piece
}

// From is what is known of the start of a body before it is read: that
// its first Shared messages are those of History, which the request read
// into Checkpoint held. Checkpoint may be nil (another request is using
// it): the body is then read in full, but its History still takes the
// digests it shares.
type From struct {
	History    *History
	Checkpoint *Checkpoint
	Shared     int
}

// opening reads the first message of the messages array at b[array], for
// Resume's find. It reports false when there is none to speak of.
func opening(b []byte, array int) (Opening, bool) {
	if len(b)-array > math.MaxUint32 {
		return Opening{}, false
	}
	it := jsonscan.Elements(b, array)
	_, start, ok := it.Next()
	if !ok {
		return Opening{}, false
	}
	end, ok := it.Skip()
	if !ok || b[start] != '{' {
		return Opening{}, false
	}
	return Opening{Array: array, First: Piece{uint32(end - array), chain(digestStart, b[array:end])}}, true
}

// History returns the History of the request's messages. Only the messages
// past those it was told it shares (see From) are hashed, and, for the
// stretches, what follows the last stretch of those.
func (r *Request) History() *History {
	n := len(r.messages)
	if n == 0 || len(r.body)-r.arrayAt > math.MaxUint32 {
		return nil
	}
	if r.from.Shared == n && r.from.History.Len() == n {
		return r.from.History // the same messages: the History it shares
	}
	h := &History{ends: make([]uint32, n), digests: make([]uint64, n)}
	shared := min(r.from.Shared, r.from.History.Len(), n)
	if shared > 0 {
		copy(h.digests, r.from.History.digests[:shared])
	}
	prev, at := uint64(digestStart), r.arrayAt
	if shared > 0 {
		prev, at = h.digests[shared-1], r.messageEnd(shared-1)
	}
	for i := range n {
		end := r.messageEnd(i)
		h.ends[i] = uint32(end - r.arrayAt)
		if i < shared {
			continue
		}
		prev = chain(prev, r.body[at:end])
		h.digests[i], at = prev, end
	}
	h.extendStretches(r.body[r.arrayAt:], r.from.History.stretchesWithin(shared))
	return h
}

// stretchesWithin returns h's stretches that end within its first n
// messages, to be read only.
func (h *History) stretchesWithin(n int) []stretch {
	if h == nil {
		return nil
	}
	k := len(h.stretches)
	for k > 0 && int(h.stretches[k-1].last) >= n {
		k--
	}
	return h.stretches[:k]
}

// extendStretches gives h the stretches of the History it continues that
// end within what it shares, kept, and closes those past them, in array,
// its messages array from the opening bracket: one at every first message
// end at least stretchBytes past the end of the stretch before.
func (h *History) extendStretches(array []byte, kept []stretch) {
	prev, start, i := uint64(digestStart), uint32(0), 0
	if k := len(kept); k > 0 {
		s := kept[k-1]
		prev, start, i = s.digest, h.ends[s.last], int(s.last)+1
	}
	// One allocation, for the stretches kept and the most the rest may close.
	if most := len(kept) + int(h.ends[len(h.ends)-1]-start)/stretchBytes; most > 0 {
		h.stretches = append(make([]stretch, 0, most), kept...)
	}
	for ; i < len(h.ends); i++ {
		if end := h.ends[i]; end-start >= stretchBytes {
			prev = chain(prev, array[start:end])
			h.stretches = append(h.stretches, stretch{last: uint32(i), digest: prev})
			start = end
		}
	}
}
