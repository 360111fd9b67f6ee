package thinking

import "math"

// A checkpoint keeps what it learned of a body in a form half the size of
// a Request's: offsets of 32 bits, relative to where the messages array
// opened, and flags in bytes. A long session's checkpoint is a seventh of
// its body that way, so that a gateway holds hundreds of them.

// maxCompact bounds the bodies whose structure a checkpoint keeps.
const maxCompact = math.MaxInt32

// cspan is a span relative to a base offset; an absent span (End 0)
// stays absent.
type cspan struct{ start, end int32 }

func compactSpan(s span, base int) cspan {
	if s.End == 0 {
		return cspan{}
	}
	return cspan{int32(s.Start - base), int32(s.End - base)}
}

func (c cspan) at(base int) span {
	if c.end == 0 {
		return span{}
	}
	return span{int(c.start) + base, int(c.end) + base}
}

// cmessage is a message, compact.
type cmessage struct {
	role                                role
	contentArray, reasoning, misordered bool
	content                             cspan
	parts                               [2]int32
	end                                 int32
}

func compactMessage(m message, base int) cmessage {
	return cmessage{role: m.role, contentArray: m.contentArray, reasoning: m.reasoning, misordered: m.misordered,
		content: compactSpan(m.content, base), parts: [2]int32{int32(m.parts.Start), int32(m.parts.End)}, end: int32(m.end - base)}
}

func (c cmessage) at(base int) message {
	return message{role: c.role, contentArray: c.contentArray, reasoning: c.reasoning, misordered: c.misordered,
		content: c.content.at(base), parts: span{int(c.parts[0]), int(c.parts[1])}, end: int(c.end) + base}
}

// cpart is a content part, compact.
type cpart struct {
	typ                              partType
	reasoning                        bool
	block                            int32
	span, thinking, signature, value cspan
}

func compactPart(p part, base int) cpart {
	return cpart{typ: p.typ, reasoning: p.reasoning, block: int32(p.block), span: compactSpan(p.span, base),
		thinking: compactSpan(p.thinking, base), signature: compactSpan(p.signature, base), value: compactSpan(p.value, base)}
}

func (c cpart) at(base int) part {
	return part{typ: c.typ, reasoning: c.reasoning, block: int(c.block), span: c.span.at(base),
		thinking: c.thinking.at(base), signature: c.signature.at(base), value: c.value.at(base)}
}

// cmember is a top-level member, compact.
type cmember struct {
	name       memberName
	key, value cspan
}

func compactMember(m member, base int) cmember {
	return cmember{name: m.name, key: compactSpan(m.key, base), value: compactSpan(m.value, base)}
}

func (c cmember) at(base int) member {
	return member{name: c.name, key: c.key.at(base), value: c.value.at(base)}
}
