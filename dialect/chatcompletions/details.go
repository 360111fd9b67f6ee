package chatcompletions

import (
	"bytes"
	"strconv"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// OpenRouter's reasoning_details is an array of parts: reasoning.text (with
// the signature of Anthropic's models), reasoning.summary, reasoning.encrypted
// (Gemini's thought signatures, OpenAI's encrypted reasoning, redacted
// thinking), each with a format, an index and often an id, and types still
// to come. OpenRouter wants them back unmodified on the assistant message
// they came on; Gemini 3 refuses a tool call without the encrypted part
// that carries its signature. With Reasoning ReasoningDetails and a
// Signer, every part an answer gives rides in the envelope of the thinking
// block they came with (provider DetailsProvider, place envelope.OnBlock),
// and goes back as it came to the upstream that sealed it, and to no other.
//
// The block's text is the text of the parts that hold one (a reasoning.text's
// text, a reasoning.summary's summary), one after the other, so that the
// client shows it; the envelope's payload holds the rest:
//
//	<segments>.<the parts as a JSON array, each text member's value "">
//
// where segments, comma-separated, say how the block's text splits:
// "<k>:<n>" for n bytes of part k's text, "-:<n>" for n bytes no part holds
// (reasoning in a field of its own, or in tags). A stream's fragments of
// one part (the same type and index, one after the other) are merged as
// OpenRouter's SDKs merge them: texts joined, other members the last that
// is not null or "".

// DetailsProvider names the envelopes of reasoning_details.
const DetailsProvider = "details"

// NewDetailsSigner returns the Signer of the reasoning_details envelopes of
// one upstream, key the gateway's.
func NewDetailsSigner(key *envelope.Key, upstream string) envelope.Signer {
	return envelope.Signer{Key: key, Provider: DetailsProvider, Upstream: upstream}
}

// maxDetails bounds what the parts of one block hold, their text aside.
const maxDetails = 4 << 20

// detailMember is a member of a part: its key literal and its value, as
// the upstream wrote them.
type detailMember struct{ key, value []byte }

// detailPart is one part of reasoning_details.
type detailPart struct {
	// raw is a part that is not an object, kept as it came.
	raw     []byte
	members []detailMember
	// text is the member that holds the part's text (the first text or
	// summary member whose value is a string), whose value is not kept;
	// -1 for none.
	text int
	// typ and index are the values of the type and index members, by
	// which fragments are merged.
	typ, index []byte
}

// segment is a run of a block's text: n bytes of the text of part, or of
// no part when part is -1.
type segment struct{ part, n int }

// details are the reasoning_details parts one thinking block carries, and
// how its text splits among them.
type details struct {
	parts []detailPart
	segs  []segment
	held  int
}

// reset forgets the parts, for the next block.
func (d *details) reset() {
	d.parts, d.segs, d.held = d.parts[:0], d.segs[:0], 0
}

// segment records n more bytes of the block's text, of part (-1: none).
func (d *details) segment(part, n int) {
	if n == 0 {
		return
	}
	if k := len(d.segs) - 1; k >= 0 && d.segs[k].part == part {
		d.segs[k].n += n
		return
	}
	d.segs = append(d.segs, segment{part, n})
}

// isTextMember reports whether a member named name holds a part's text.
func isTextMember(name []byte) bool { return string(name) == "text" || string(name) == "summary" }

// add reads one part, v, valid JSON. With merge, a fragment of the same
// type and index as the last part continues it. It returns the part's
// place and the string literal of its text in v (nil for none), or false
// when the parts would hold more than maxDetails.
func (d *details) add(v []byte, merge bool) (k int, text []byte, ok bool) {
	if v[0] != '{' {
		d.parts = append(d.parts, detailPart{raw: append([]byte(nil), v...), text: -1})
		d.held += len(v)
		return len(d.parts) - 1, nil, d.held <= maxDetails
	}
	var buf [32]byte
	var typ, index []byte
	it := jsonscan.Members(v, 0)
	for key, val, ok := it.Item(); ok; key, val, ok = it.Item() {
		switch string(jsonscan.Name(key, &buf)) {
		case "type":
			typ = val
		case "index":
			index = val
		}
	}
	k = len(d.parts) - 1
	if !merge || k < 0 || d.parts[k].raw != nil || typ == nil || !bytes.Equal(d.parts[k].typ, typ) || !bytes.Equal(d.parts[k].index, index) {
		d.parts = append(d.parts, detailPart{text: -1, typ: clone(typ), index: clone(index)})
		k = len(d.parts) - 1
	}
	p := &d.parts[k]
	it = jsonscan.Members(v, 0)
	for key, val, ok := it.Item(); ok; key, val, ok = it.Item() {
		name := jsonscan.Name(key, &buf)
		m := p.member(key)
		isText := p.text < 0 && isTextMember(name) && val[0] == '"'
		switch {
		case m == p.text && m >= 0:
			if val[0] == '"' {
				text = val
			}
			continue
		case isText && m >= 0:
			p.text, text = m, val
			p.members[m].value = nil
			continue
		case isText:
			p.text, text = len(p.members), val
			val = nil
		case m >= 0:
			// A later string in a text or summary member before the text
			// member would be read back as the text: the first value stays.
			before := p.text >= 0 && m < p.text && isTextMember(name) && val[0] == '"'
			if !before && string(val) != "null" && string(val) != `""` {
				d.held += len(val) - len(p.members[m].value)
				p.members[m].value = clone(val)
			}
			continue
		}
		p.members = append(p.members, detailMember{clone(key), clone(val)})
		d.held += len(key) + len(val)
	}
	return k, text, d.held <= maxDetails
}

// member returns the place of the member whose key literal is key, or -1.
func (p *detailPart) member(key []byte) int {
	for i, m := range p.members {
		if bytes.Equal(m.key, key) {
			return i
		}
	}
	return -1
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// appendPayload appends the envelope's payload for the parts.
func (d *details) appendPayload(dst []byte) []byte {
	for i, s := range d.segs {
		if i > 0 {
			dst = append(dst, ',')
		}
		if s.part < 0 {
			dst = append(dst, '-')
		} else {
			dst = strconv.AppendInt(dst, int64(s.part), 10)
		}
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(s.n), 10)
	}
	dst = append(dst, ".["...)
	for i, p := range d.parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		if p.raw != nil {
			dst = append(dst, p.raw...)
			continue
		}
		dst = append(dst, '{')
		for j, m := range p.members {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(append(dst, m.key...), ':')
			if j == p.text {
				dst = append(dst, `""`...)
			} else {
				dst = append(dst, m.value...)
			}
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// seal returns the signature of a block whose text has the SHA-256 sum,
// carrying the parts.
func (d *details) seal(s envelope.Signer, sum [32]byte, scratch []byte) (string, []byte) {
	scratch = d.appendPayload(scratch[:0])
	return s.Seal(envelope.OnBlock, sum, scratch), scratch
}

// maxSegments bounds the segments of a payload a request's translation
// reads.
const maxSegments = 1 << 12

// detailsPayload is a payload read back: the parts, and how the block's
// text splits among them.
type detailsPayload struct {
	parts jsonscan.Value // the JSON array
	segs  []segment
	n     int // parts
}

// parse reads p, the payload of a block whose text is textLen bytes long;
// false unless every segment falls on a part with a text member and the
// segments cover the text exactly.
func (dp *detailsPayload) parse(p []byte, textLen int) bool {
	dot := bytes.IndexByte(p, '.')
	if dot < 0 || !jsonscan.Valid(p[dot+1:]) {
		return false
	}
	dp.parts, dp.segs, dp.n = jsonscan.Value(p[dot+1:]), dp.segs[:0], 0
	if dp.parts.Kind() != jsonscan.Array {
		return false
	}
	total := 0
	if dot > 0 {
		for f := range bytes.SplitSeq(p[:dot], []byte{','}) {
			part, n, ok := bytes.Cut(f, []byte{':'})
			if !ok || len(dp.segs) == maxSegments {
				return false
			}
			k := -1
			if string(part) != "-" {
				v, err := strconv.Atoi(string(part))
				if err != nil || v < 0 {
					return false
				}
				k = v
			}
			m, err := strconv.Atoi(string(n))
			if err != nil || m < 0 || m > textLen {
				return false
			}
			total += m
			dp.segs = append(dp.segs, segment{k, m})
		}
	}
	if total != textLen {
		return false
	}
	var texts []bool // which parts have a text member
	for v := range dp.parts.Elements() {
		texts = append(texts, textMember(v) >= 0)
	}
	dp.n = len(texts)
	for _, s := range dp.segs {
		if s.part >= len(texts) || s.part >= 0 && !texts[s.part] {
			return false
		}
	}
	return true
}

// textMember returns the place of a part's text member among its members
// (the first text or summary member whose value is a string), or -1.
func textMember(v jsonscan.Value) int {
	if v.Kind() != jsonscan.Object {
		return -1
	}
	var buf [32]byte
	i := 0
	it := jsonscan.Members(v, 0)
	for key, val, ok := it.Item(); ok; key, val, ok = it.Item() {
		if isTextMember(jsonscan.Name(key, &buf)) && val[0] == '"' {
			return i
		}
		i++
	}
	return -1
}
