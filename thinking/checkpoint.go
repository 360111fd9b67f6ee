package thinking

import (
	"bytes"
	"unsafe"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// Checkpoint is what reading one request of a conversation learned about
// the start of its body, kept so that the conversation's next request is
// read faster. Claude Code sends the whole history with every request, and
// everything before its last message comes back byte for byte: Resume then
// checks that the new body starts with the same bytes (a comparison at
// memory speed) and reads only what follows. The zero Checkpoint is empty.
// A Checkpoint is not safe for concurrent use.
type Checkpoint struct {
	// prefix is a copy of the body up to the end of the last message the
	// checkpoint covers; valid says it was checked to be valid JSON (as
	// the start of a valid body).
	prefix []byte
	valid  bool

	members  []member // top-level members before messages
	config   config   // what they say
	msgKey   span     // the messages member's key
	msgStart int      // where the messages array starts
	messages []message
	shapes   shapes // of the messages
	content  []part
	blocks   []Block
	// thinkingTypeBuf holds config.thinkingType, which must not point into
	// the body it was read from.
	thinkingTypeBuf []byte

	// The tail is the body after the messages array (system prompt, tools,
	// the rest of the config), sent again unchanged with every request.
	tail        []byte
	tailAt      int      // where it began in the body it was saved from
	tailMembers []member // the members in it, at their offsets then
	final       config   // the config of the whole body, offsets then too
	finalType   []byte   // holds final.thinkingType
	tailValid   bool
}

// covers reports whether b starts with cp's prefix. A nil or empty
// checkpoint covers nothing.
func (cp *Checkpoint) covers(b []byte) bool {
	return cp != nil && len(cp.prefix) > 0 && len(b) >= len(cp.prefix) && bytes.Equal(b[:len(cp.prefix)], cp.prefix)
}

// restore takes the state of cp, whose prefix the body starts with, and
// reads the rest of the messages array. It returns where the array ends.
func (r *Request) restore(cp *Checkpoint) (int, error) {
	r.members = append(r.members[:0], cp.members...)
	r.config, r.atMessages = cp.config, cp.config
	r.thinkingType = append(r.typeBuf[:0], cp.config.thinkingType...)
	r.typeBuf, r.atMessages.thinkingType = r.thinkingType, r.thinkingType
	r.messages = append(r.messages[:0], cp.messages...)
	r.shapes = cp.shapes
	r.content = append(r.content[:0], cp.content...)
	r.blocks = append(r.blocks[:0], cp.blocks...)
	r.resumedAt, r.prefixValid = len(cp.prefix), cp.valid
	end, err := r.messageElements(jsonscan.ResumeElements(r.body, len(cp.prefix), len(cp.messages)))
	if err != nil {
		return 0, err
	}
	r.members = append(r.members, member{name: messagesMember, key: cp.msgKey, value: span{cp.msgStart, end}})
	return end, nil
}

// restoreTail takes the tail of cp when the body goes on from end (the end
// of the messages array) with the same bytes, and reports whether it did.
// Every offset in it moves by as much as the messages array grew.
func (r *Request) restoreTail(cp *Checkpoint, end int) bool {
	if len(cp.tail) == 0 || !bytes.Equal(r.body[end:], cp.tail) {
		return false
	}
	move := func(s span) span {
		if s.End != 0 && s.Start >= cp.tailAt {
			s.Start, s.End = s.Start+end-cp.tailAt, s.End+end-cp.tailAt
		}
		return s
	}
	for _, m := range cp.tailMembers {
		r.members = append(r.members, member{name: m.name, key: move(m.key), value: move(m.value)})
	}
	r.config = cp.final
	r.thinkingType = append(r.typeBuf[:0], cp.final.thinkingType...)
	r.typeBuf = r.thinkingType
	r.contextEdits, r.userID, r.model = move(r.contextEdits), move(r.userID), move(r.model)
	r.tailAt, r.tailValid = end, cp.tailValid
	return true
}

// Save records in cp what r learned about its body's start: the members
// before the messages and every message but the last, which Claude Code
// rewrites on the next request. A request with fewer than two messages
// empties cp. Call it after any Rewrite, which may learn that the body is
// valid JSON.
func (r *Request) Save(cp *Checkpoint) {
	mi := -1
	for i, m := range r.members {
		if m.name == messagesMember {
			mi = i
			break
		}
	}
	k := len(r.messages) - 1
	if mi < 0 || k < 1 {
		*cp = Checkpoint{prefix: cp.prefix[:0], members: cp.members[:0], messages: cp.messages[:0], content: cp.content[:0],
			blocks: cp.blocks[:0], thinkingTypeBuf: cp.thinkingTypeBuf[:0], tail: cp.tail[:0], tailMembers: cp.tailMembers[:0], finalType: cp.finalType[:0]}
		return
	}
	// The prefix the body was resumed from is the copy's start already.
	end := r.messages[k-1].end
	kept := min(r.resumedAt, end, len(cp.prefix))
	cp.prefix = append(cp.prefix[:kept], r.body[kept:end]...)
	cp.valid = r.validated
	r.saveTail(cp, mi)
	cp.members = append(cp.members[:0], r.members[:mi]...)
	cp.config = r.atMessages
	cp.config.thinkingType = append(cp.thinkingTypeBuf[:0], r.atMessages.thinkingType...)
	cp.thinkingTypeBuf = cp.config.thinkingType
	cp.msgKey, cp.msgStart = r.members[mi].key, r.members[mi].value.Start
	cp.messages = append(cp.messages[:0], r.messages[:k]...)
	cp.shapes = r.shapes
	for _, m := range r.messages[k:] {
		cp.shapes.count(m, -1)
	}
	cp.content = append(cp.content[:0], r.content[:r.messages[k-1].parts.End]...)
	nb := len(r.blocks)
	for nb > 0 && r.blocks[nb-1].Message >= k {
		nb--
	}
	cp.blocks = append(cp.blocks[:0], r.blocks[:nb]...)
}

// saveTail records the body after the messages array, member mi.
func (r *Request) saveTail(cp *Checkpoint, mi int) {
	at := r.members[mi].value.End
	if r.tailAt == 0 { // read this time, not restored: copy it
		cp.tail = append(cp.tail[:0], r.body[at:]...)
	}
	cp.tailAt = at
	cp.tailMembers = append(cp.tailMembers[:0], r.members[mi+1:]...)
	cp.final = r.config
	cp.finalType = append(cp.finalType[:0], r.thinkingType...)
	cp.final.thinkingType = cp.finalType
	cp.tailValid = r.validated || r.tailValid
}

// Size returns about how many bytes of memory cp holds.
func (cp *Checkpoint) Size() int {
	return int(unsafe.Sizeof(*cp)) +
		cap(cp.members)*int(unsafe.Sizeof(member{})) +
		cap(cp.messages)*int(unsafe.Sizeof(message{})) +
		cap(cp.content)*int(unsafe.Sizeof(part{})) +
		cap(cp.blocks)*int(unsafe.Sizeof(Block{})) +
		cap(cp.tailMembers)*int(unsafe.Sizeof(member{})) +
		cap(cp.prefix) + cap(cp.tail)
}
