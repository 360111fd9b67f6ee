package thinktags

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/events"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// event is one event of the stream as read. Its slices are valid during
// dispatch only.
type event struct {
	raw        []byte // every byte of the event as it came
	inP        bool   // raw is p[start:end] of the current Write
	start, end int
	name       []byte
	hasName    bool
	data       []byte
	hasData    bool
}

// message is what the rewriter reads of an event's JSON data (see package
// events). Like JSON.parse in the client, the last of duplicate keys wins.
type message = events.Event

// textMember returns the type name of a content block or delta object and
// its member named field, decoded. ok is false when obj is not an object or
// the member is there but is not a string.
func textMember(obj []byte, field string, scratch []byte) (typ, text, buf []byte, ok bool) {
	var lit []byte
	var name [32]byte
	it := jsonscan.Members(obj, jsonscan.SkipSpace(obj, 0))
	for key, v, more := it.Item(); more; key, v, more = it.Item() {
		switch k := string(jsonscan.Name(key, &name)); {
		case k == "type":
			typ = v
		case k == field:
			lit = v
		}
	}
	if it.Err() != nil {
		return nil, nil, scratch, false
	}
	if len(lit) == 0 || string(lit) == "null" {
		return typ, nil, scratch, true
	}
	text, buf, ok = jsonstr.Value(scratch[:0], lit)
	return typ, text, buf, ok
}

// dispatch applies one event of the stream.
func (s *SSE) dispatch(ev event) {
	s.lastOut = dropped
	if !ev.hasData || ev.hasName && string(ev.name) == "error" {
		s.other(ev)
		return
	}
	m, ok := events.Quick(ev.data)
	if !ok {
		m, ok = events.Read(ev.data)
	}
	if !ok || !m.HasIndex {
		s.other(ev)
		return
	}
	switch m.Type {
	case events.ContentBlockStart:
		s.blockStart(ev, m)
	case events.ContentBlockDelta:
		s.blockDelta(ev, m)
	case events.ContentBlockStop:
		s.blockStop(ev, m)
	default:
		s.other(ev)
	}
}

// other passes on an event that has no content block index.
func (s *SSE) other(ev event) {
	if s.holding() {
		s.hold(ev, roleOther, message{})
		return
	}
	s.writeRaw(ev)
	s.lastOut = copied
}

// indexed passes on an event of a block that is not being split, with its
// index moved by the blocks added or dropped before it.
func (s *SSE) indexed(ev event, m message) {
	if s.holding() {
		s.hold(ev, roleIndexed, m)
		return
	}
	s.lastOut = s.writeIndexed(ev, m, m.Index+s.shift)
}

func (s *SSE) blockStart(ev event, m message) {
	if s.text.active {
		s.endText(nil, message{})
	}
	if m.Index == s.dropIdx {
		s.dropIdx = -1
	}
	first := !s.seen
	s.seen = true
	var typ, text []byte
	var name [32]byte
	ok := false
	if m.Block != nil {
		typ, text, s.scratch, ok = textMember(m.Block, "text", s.scratch)
	}
	if !ok || string(jsonscan.Name(typ, &name)) != "text" {
		s.indexed(ev, m)
		return
	}
	s.beginText(ev, m, s.opts.AssumeOpen && first)
	if len(text) > 0 {
		s.feed(nil, m, text)
	}
}

func (s *SSE) blockDelta(ev event, m message) {
	switch {
	case s.text.active && m.Index == s.text.orig:
	case m.Index == s.dropIdx:
		return
	default:
		s.indexed(ev, m)
		return
	}
	d, ok := m.ReadDelta()
	isText := ok && d.Type == events.TextDelta
	var text []byte
	if isText && len(d.Field) > 0 && string(d.Field) != "null" {
		text, s.scratch, ok = jsonstr.Value(s.scratch[:0], d.Field)
	}
	if ok && isText {
		s.feed(&ev, m, text)
	} else {
		s.trackedOther(ev, m)
	}
}

func (s *SSE) blockStop(ev event, m message) {
	switch {
	case s.text.active && m.Index == s.text.orig:
		s.endText(&ev, m)
	case m.Index == s.dropIdx:
	default:
		s.indexed(ev, m)
	}
}
