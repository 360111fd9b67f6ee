package thinking

import (
	"slices"
	"sort"
	"unsafe"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// Checkpoint is what reading one request learned about the structure of
// its body, kept so that a request that continues its history is read
// faster. A client sends the whole history with every request: once the
// History of a new body is known to share its first messages with the one
// a checkpoint was saved from (see From), Resume takes their structure from
// the checkpoint and reads only the rest. The body after the messages array
// (system prompt, tools, the rest of the config), sent again unchanged with
// every request, is recognized by its digest and taken too.
//
// A checkpoint keeps no bytes of the body, only offsets, digests and the
// few facts read from them, so it costs a small part of the body's size.
// The zero Checkpoint is empty. A Checkpoint is not safe for concurrent use.
type Checkpoint struct {
	// arrayAt is where the messages array opened; head is the digest of
	// the body up to and including that bracket, and valid says the body
	// was checked to be valid JSON (so its start is).
	arrayAt int
	head    uint64
	valid   bool

	// The structure of the messages, at offsets from arrayAt, and the
	// counts of their shapes.
	messages []cmessage
	content  []cpart
	blocks   []Block
	shapes   shapes

	// The tail is the body after the messages array, from tailAt: its
	// length, digest and top-level members (at offsets from tailAt).
	tailAt      int
	tailLen     int
	tailDigest  uint64
	tailMembers []cmember
	tailValid   bool
}

// restore takes from the checkpoint r was told it continues the structure
// of the messages the two share, and reports how many it took. The messages
// array opens at r.arrayAt; r holds no message yet.
func (r *Request) restore() int {
	cp := r.from.Checkpoint
	if cp == nil {
		return 0
	}
	n := min(r.from.Shared, len(cp.messages))
	if n == 0 {
		return 0
	}
	// The messages and their parts are read only by a rewrite, and a
	// request with nothing to change needs none: they are taken as the
	// checkpoint holds them, and read through msg and parts, which make the
	// parts of a message the Request's own when a rewrite first asks for
	// them. The blocks are what every request reads.
	base := r.arrayAt
	if n == len(cp.messages) {
		// Nearly every request: all the last one's messages and more.
		r.shapes.add(cp.shapes)
	} else {
		for _, c := range cp.messages[:n] {
			r.shapes.count(message{reasoning: c.reasoning, misordered: c.misordered}, 1)
		}
	}
	np := int(cp.messages[n-1].parts[1])
	r.messages = slices.Grow(r.messages[:0], n)[:n]
	r.content = slices.Grow(r.content[:0], np)[:np]
	r.lazyMessages, r.lazyParts, r.lazyBase = cp.messages[:n], cp.content[:np], base
	r.taken = slices.Grow(r.taken[:0], n)[:n]
	clear(r.taken)
	k := len(cp.blocks) // nearly always: blocks of the messages taken
	if k > 0 && int(cp.blocks[k-1].Message) >= n {
		k = sort.Search(k, func(i int) bool { return int(cp.blocks[i].Message) >= n })
	}
	r.blocks = append(r.blocks, cp.blocks[:k]...)
	r.restored, r.resumedAt = n, int(cp.messages[n-1].end)+base
	r.prefixValid = cp.valid && base == cp.arrayAt && r.headDigestOf() == cp.head
	return n
}

// restoreTail takes the tail of the checkpoint when the body goes on from
// end, the end of its messages array, with the same bytes, and reports
// whether it did. The members that set the config are read again, at
// their new offsets; the others (system prompt, tools) are not.
func (r *Request) restoreTail(end int) (bool, error) {
	cp := r.from.Checkpoint
	if cp == nil || cp.tailLen == 0 || len(r.body)-end != cp.tailLen {
		return false, nil
	}
	d := digest(r.body[end:])
	if d != cp.tailDigest {
		return false, nil
	}
	for _, c := range cp.tailMembers {
		if err := r.retake(c.at(end)); err != nil {
			return false, err
		}
	}
	r.tailAt, r.tailValid, r.tailDigest = end, cp.tailValid, d
	return true, nil
}

// retake adds m, a top-level member taken from what an earlier body held
// with the same bytes (a checkpoint's tail, a remembered opening): the
// members that set the config are read again at their offsets; the others
// (system prompt, tools) are taken as they are.
func (r *Request) retake(m member) error {
	if m.name == otherMember {
		r.members = append(r.members, m)
		return nil
	}
	_, err := r.topMember(m.key.Start, m.key.Of(r.body), m.value.Start)
	return err
}

// lazy reports whether message i is one taken from a checkpoint that
// r.messages and r.content do not hold yet (see take). The compact ones
// stay, for Save to copy as they are rather than compact the same
// messages again: nothing changes a Request's structure once read.
func (r *Request) lazy(i int) bool { return i < len(r.lazyMessages) && !r.taken[i] }

// msg returns message i. A rewrite reads messages through it (and their
// parts through parts), so that a request after a switch, which touches a
// few messages of a long history, restores only those.
func (r *Request) msg(i int) message {
	if r.lazy(i) {
		return r.lazyMessages[i].at(r.lazyBase)
	}
	return r.messages[i]
}

// parts returns the content parts of message mi.
func (r *Request) parts(mi int) []part {
	if r.lazy(mi) {
		r.take(mi)
	}
	m := r.messages[mi]
	return r.content[m.parts.Start:m.parts.End]
}

// take makes lazy message i, and its parts, the Request's own.
func (r *Request) take(i int) {
	m := r.lazyMessages[i].at(r.lazyBase)
	for k := m.parts.Start; k < m.parts.End; k++ {
		r.content[k] = r.lazyParts[k].at(r.lazyBase)
	}
	r.messages[i], r.taken[i] = m, true
}

// messageEnd returns where message i ends, without taking it (see take).
func (r *Request) messageEnd(i int) int {
	if i < len(r.lazyMessages) {
		return int(r.lazyMessages[i].end) + r.lazyBase
	}
	return r.messages[i].end
}

// Save records in cp the structure of r's body, for a request that
// continues its history. A body without messages empties cp. Call it
// after any Rewrite, which may learn that the body is valid JSON.
func (r *Request) Save(cp *Checkpoint) {
	mi := -1
	for i, m := range r.members {
		if m.name == messagesMember {
			mi = i
			break
		}
	}
	if mi < 0 || len(r.messages) == 0 || len(r.body) > maxCompact {
		*cp = Checkpoint{messages: cp.messages[:0], content: cp.content[:0], blocks: cp.blocks[:0], tailMembers: cp.tailMembers[:0]}
		return
	}
	base := r.arrayAt
	cp.arrayAt = base
	cp.head = r.headDigestOf()
	cp.valid = r.validated
	cp.shapes = r.shapes
	// What is still as the checkpoint held it is copied as it is.
	cp.messages = append(cp.messages[:0], r.lazyMessages...)
	for _, m := range r.messages[len(r.lazyMessages):] {
		cp.messages = append(cp.messages, compactMessage(m, base))
	}
	cp.content = append(cp.content[:0], r.lazyParts...)
	for _, p := range r.content[len(r.lazyParts):] {
		cp.content = append(cp.content, compactPart(p, base))
	}
	cp.blocks = append(cp.blocks[:0], r.blocks...)

	end := r.members[mi].value.End
	if r.tailAt != end { // read this time, not restored
		r.tailDigest = digest(r.body[end:])
	}
	cp.tailAt, cp.tailLen, cp.tailDigest = end, len(r.body)-end, r.tailDigest
	cp.tailMembers = cp.tailMembers[:0]
	for _, m := range r.members[mi+1:] {
		cp.tailMembers = append(cp.tailMembers, compactMember(m, end))
	}
	cp.tailValid = r.validated || r.tailValid
}

// Size returns about how many bytes of memory cp holds.
func (cp *Checkpoint) Size() int {
	return int(unsafe.Sizeof(*cp)) +
		cap(cp.messages)*int(unsafe.Sizeof(cmessage{})) +
		cap(cp.content)*int(unsafe.Sizeof(cpart{})) +
		cap(cp.blocks)*int(unsafe.Sizeof(Block{})) +
		cap(cp.tailMembers)*int(unsafe.Sizeof(cmember{}))
}

// resumeMessages returns the iterator over the messages array at b[v] that
// is left to read once what r was told it continues has been restored.
func (r *Request) resumeMessages(v int) jsonscan.Iter {
	if r.arrayAt != 0 { // a repeated messages member: read in full
		return jsonscan.Elements(r.body, v)
	}
	r.arrayAt = v
	if r.find == nil {
		return jsonscan.Elements(r.body, v)
	}
	o, ok := opening(r.body, v)
	if !ok {
		return jsonscan.Elements(r.body, v)
	}
	r.from = r.find(r.body, o)
	n := r.restore()
	if n == 0 {
		return jsonscan.Elements(r.body, v)
	}
	return jsonscan.ResumeElements(r.body, r.resumedAt, n)
}
