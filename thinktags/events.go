package thinktags

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/eventstream"
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

// message is what the rewriter reads of an event's JSON data. Like
// JSON.parse in the client, the last of duplicate keys wins.
type message struct {
	index    int
	hasIndex bool
	idx      [2]int // where the index value is in the data
	block    []byte // content_block
	delta    []byte
	text     []byte // the delta's text literal, when quickDelta read it
}

// readMessage reads the JSON object data and returns it with its type,
// decoded into buf. The type stays out of the message, which is kept: buf
// then stays on the stack.
func readMessage(data []byte, buf *[32]byte) (message, []byte, bool) {
	var m message
	var typ []byte
	var name [32]byte
	it := jsonscan.Members(data, jsonscan.SkipSpace(data, 0))
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		end, ok := it.Skip()
		if !ok {
			break
		}
		switch string(jsonscan.Name(key, &name)) {
		case "type":
			typ = data[v:end]
		case "index":
			m.idx = [2]int{v, end}
		case "content_block":
			m.block = data[v:end]
		case "delta":
			m.delta = data[v:end]
		}
	}
	if it.Err() != nil || jsonscan.SkipSpace(data, it.End()) != len(data) {
		return m, nil, false
	}
	m.index, m.hasIndex = eventstream.Index(data[m.idx[0]:m.idx[1]], maxIndex)
	return m, jsonscan.Name(typ, buf), true
}

// How the Messages API writes the data of a content_block_delta event and
// the delta of a text_delta.
const (
	deltaHead     = `{"type":"content_block_delta","index":`
	deltaMid      = `,"delta":`
	textDeltaHead = `{"type":"text_delta","text":`
)

// quickDelta reads data written exactly as the Messages API writes a
// content_block_delta event, with nothing else in it: nearly every event of
// a response, which then costs a few comparisons and one scan instead of a
// parse. Anything written otherwise is parsed in full, so that duplicate
// keys read as the client reads them.
func quickDelta(data []byte) (message, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(deltaHead))
	if !ok {
		return message{}, false
	}
	end := bytes.IndexByte(rest, ',')
	if end < 0 {
		return message{}, false
	}
	m := message{idx: [2]int{len(deltaHead), len(deltaHead) + end}}
	m.index, m.hasIndex = eventstream.Index(rest[:end], maxIndex)
	if rest, ok = bytes.CutPrefix(rest[end:], []byte(deltaMid)); !m.hasIndex || !ok {
		return message{}, false
	}
	if text, ok := bytes.CutPrefix(rest, []byte(textDeltaHead)); ok {
		end, ok = jsonscan.SkipString(text, 0)
		if ok && string(text[end:]) == "}}" {
			m.delta, m.text = rest[:len(rest)-1], text[:end]
			return m, true
		}
	}
	end, ok = jsonscan.SkipValue(rest, 0)
	if !ok || string(rest[end:]) != "}" {
		return message{}, false
	}
	m.delta = rest[:end]
	return m, true
}

// maxIndex bounds the content block indices followed: as many as nine
// digits, far past any real response.
const maxIndex = 999_999_999

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
	var buf [32]byte
	var m message
	var typ []byte
	ok := ev.hasData && !(ev.hasName && string(ev.name) == "error")
	if ok {
		if m, quick := quickDelta(ev.data); quick {
			s.blockDelta(ev, m)
			return
		}
		m, typ, ok = readMessage(ev.data, &buf)
	}
	if !ok || !m.hasIndex {
		s.other(ev)
		return
	}
	switch string(typ) {
	case "content_block_start":
		s.blockStart(ev, m)
	case "content_block_delta":
		s.blockDelta(ev, m)
	case "content_block_stop":
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
	s.lastOut = s.writeIndexed(ev, m, m.index+s.shift)
}

func (s *SSE) blockStart(ev event, m message) {
	if s.text.active {
		s.endText(nil, message{})
	}
	if m.index == s.dropIdx {
		s.dropIdx = -1
	}
	first := !s.seen
	s.seen = true
	var typ, text []byte
	var name [32]byte
	ok := false
	if m.block != nil {
		typ, text, s.scratch, ok = textMember(m.block, "text", s.scratch)
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
	case s.text.active && m.index == s.text.orig:
	case m.index == s.dropIdx:
		return
	default:
		s.indexed(ev, m)
		return
	}
	var text []byte
	isText, ok := false, false
	if m.text != nil {
		isText = true
		text, s.scratch, ok = jsonstr.Value(s.scratch[:0], m.text)
	} else if m.delta != nil {
		var typ []byte
		var name [32]byte
		typ, text, s.scratch, ok = textMember(m.delta, "text", s.scratch)
		isText = string(jsonscan.Name(typ, &name)) == "text_delta"
	}
	if ok && isText {
		s.feed(&ev, m, text)
	} else {
		s.trackedOther(ev, m)
	}
}

func (s *SSE) blockStop(ev event, m message) {
	switch {
	case s.text.active && m.index == s.text.orig:
		s.endText(&ev, m)
	case m.index == s.dropIdx:
	default:
		s.indexed(ev, m)
	}
}
