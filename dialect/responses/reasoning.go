package responses

import (
	"bytes"
	"strconv"
)

// A reasoning item as the envelope of its thinking block carries it: what
// the request's translation needs, beside the block's text, to put the
// item back as the upstream gave it (its id is kept, though not sent back:
// see assistantWriter.reasoning).
//
// The payload is "<length of id>.<id>.<s|c><part lengths>.<encrypted>":
// the item's id; whether the block's text is its summary (s) or its
// reasoning content (c, servers that send the reasoning itself); the byte
// length of each part of that text, comma-separated (the parts are joined
// by partSeparator in the block); and the item's encrypted_content as the
// upstream wrote it, which may be empty.
type item struct {
	id        []byte
	content   bool
	parts     []int
	encrypted []byte
}

// partSeparator joins the parts of a reasoning item's text in its block.
const partSeparator = "\n\n"

// maxParts bounds the parts of one item's text the translation follows.
const maxParts = 1024

// appendPayload appends the envelope's payload for the item.
func (it *item) appendPayload(dst []byte) []byte {
	dst = strconv.AppendInt(dst, int64(len(it.id)), 10)
	dst = append(dst, '.')
	dst = append(dst, it.id...)
	dst = append(dst, '.')
	if it.content {
		dst = append(dst, 'c')
	} else {
		dst = append(dst, 's')
	}
	for i, n := range it.parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(n), 10)
	}
	dst = append(dst, '.')
	return append(dst, it.encrypted...)
}

// parse reads a payload into it, whose slices then point into p.
func (it *item) parse(p []byte) bool {
	dot := bytes.IndexByte(p, '.')
	n, err := strconv.Atoi(string(p[:max(dot, 0)]))
	if dot < 0 || err != nil || n <= 0 || len(p) < dot+1+n+2 || p[dot+1+n] != '.' {
		return false
	}
	it.id = p[dot+1 : dot+1+n]
	p = p[dot+2+n:]
	switch p[0] {
	case 's':
		it.content = false
	case 'c':
		it.content = true
	default:
		return false
	}
	end := bytes.IndexByte(p, '.')
	if end < 0 {
		return false
	}
	it.parts = it.parts[:0]
	if end > 1 {
		for f := range bytes.SplitSeq(p[1:end], []byte{','}) {
			n, err := strconv.Atoi(string(f))
			if err != nil || n < 0 || len(it.parts) == maxParts {
				return false
			}
			it.parts = append(it.parts, n)
		}
	}
	it.encrypted = p[end+1:]
	return true
}

// split calls yield with each part of text, the block's text, as the
// item's part lengths cut it; false when they do not cut it whole.
func (it *item) split(text []byte, yield func([]byte)) bool {
	total := 0
	for i, n := range it.parts {
		if i > 0 {
			total += len(partSeparator)
		}
		total += n
	}
	if total != len(text) || (len(it.parts) == 0 && len(text) > 0) {
		return false
	}
	for i, n := range it.parts {
		if i > 0 {
			text = text[len(partSeparator):]
		}
		yield(text[:n])
		text = text[n:]
	}
	return true
}
