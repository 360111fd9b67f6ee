package thinktags

// role says what a held event is to the text block being split.
type role uint8

const (
	roleOther        role = iota // no content block index: copied as it came
	roleIndexed                  // an event of another block: renumbered
	roleStart                    // the start of the text block
	roleText                     // a text_delta of the text block
	roleTrackedOther             // another delta of the text block
)

// held keeps, in order, the events that wait while a text block's output is
// still its upstream's own events: from its start until its first text, and
// from an event whose text ends in what may be the start of a tag until the
// event that decides it. Were the tag to complete, the block is rewritten
// and its own held events are replaced; otherwise they come out as they
// came, so a stream without tags is copied byte for byte.
type held struct {
	buf    []byte // the bytes of every held event
	events []heldEvent
	unsent []byte // the text the held text deltas carry, as the Splitter gave it
}

// heldEvent locates one held event in held.buf. Its raw bytes come last, so
// a late '\n' can extend them.
type heldEvent struct {
	role             role
	name, data, raw  [2]int
	hasName, hasData bool
	msg              message // index and its place in the data, for renumbering
}

func (h *held) add(ev event, r role, m message) {
	e := heldEvent{role: r, hasName: ev.hasName, hasData: ev.hasData, msg: message{Index: m.Index, HasIndex: m.HasIndex, IndexAt: m.IndexAt}}
	e.name = h.put(ev.name)
	e.data = h.put(ev.data)
	e.raw = h.put(ev.raw)
	h.events = append(h.events, e)
}

func (h *held) put(b []byte) [2]int {
	start := len(h.buf)
	h.buf = append(h.buf, b...)
	return [2]int{start, len(h.buf)}
}

// extendLast adds a byte to the raw bytes of the last held event. The last
// event dispatched is known to be held, so there is one.
func (h *held) extendLast(c byte) {
	h.buf = append(h.buf, c)
	h.events[len(h.events)-1].raw[1]++
}

// event returns a held event as dispatch saw it.
func (h *held) event(e *heldEvent) event {
	return event{
		raw:  h.buf[e.raw[0]:e.raw[1]],
		name: h.buf[e.name[0]:e.name[1]], hasName: e.hasName,
		data: h.buf[e.data[0]:e.data[1]], hasData: e.hasData,
	}
}

func (h *held) reset() {
	h.buf, h.events, h.unsent = h.buf[:0], h.events[:0], h.unsent[:0]
}

// holding reports whether events are being held.
func (s *SSE) holding() bool {
	return s.text.active && s.text.verbatim && len(s.held.events) > 0
}

// hold keeps an event back. Held events are bounded like one event: past
// the bound the text block is rewritten, which holds nothing.
func (s *SSE) hold(ev event, r role, m message) {
	s.held.add(ev, r, m)
	s.lastOut = kept
	if len(s.held.buf) > maxEvent {
		s.rewriteText()
	}
}

// settleLast records the fate of the last dispatched event when it was held
// and has just been let go, for a late '\n'.
func (s *SSE) settleLast(f fate) {
	if s.lastOut == kept {
		s.lastOut = f
	}
}
