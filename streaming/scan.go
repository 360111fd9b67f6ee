package streaming

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// The observers read the few fields they need straight from the JSON bytes
// with internal/jsonscan: encoding/json allocates for every event, and gjson
// for every string that holds an escape, which most thinking text does. The
// scanner is lenient about what it skips and exact about the strings it hands
// out, which are decoded with jsonstr. Like JSON.parse in the client, callers
// take the last of duplicate keys and match keys by their decoded value.

// members returns an iterator over the object b.
func members(b []byte) jsonscan.Iter { return jsonscan.Members(b, jsonscan.SkipSpace(b, 0)) }

// elements returns an iterator over the array b.
func elements(b []byte) jsonscan.Iter { return jsonscan.Elements(b, jsonscan.SkipSpace(b, 0)) }

// blockFields are the fields of a content block object that identify a
// thinking or redacted_thinking block: the raw values, not yet decoded.
type blockFields struct {
	kind            Kind // 0 for any other type of block
	text, sig, data []byte
}

// readBlock reads a content block object, as content_block_start carries it
// and as a JSON response's content array holds it. It reports false when
// the block is not a well-formed object.
func readBlock(obj []byte) (blockFields, bool) {
	var f blockFields
	var typ []byte
	var buf [32]byte
	it := members(obj)
	for k, v, ok := it.Item(); ok; k, v, ok = it.Item() {
		switch string(jsonscan.Name(k, &buf)) {
		case "type":
			typ = v
		case "thinking":
			f.text = v
		case "signature":
			f.sig = v
		case "data":
			f.data = v
		}
	}
	switch string(jsonscan.Name(typ, &buf)) {
	case "thinking":
		f.kind = Thinking
	case "redacted_thinking":
		f.kind = Redacted
	}
	return f, it.Err() == nil
}

// appendString decodes the string value v onto dst. An absent (nil) or null
// value decodes as empty, as older servers omit a block's signature; any
// other value that is not a well-formed string literal reports false.
func appendString(dst, v []byte) ([]byte, bool) {
	if v == nil || string(v) == "null" {
		return dst, true
	}
	return jsonstr.Append(dst, v)
}

// parseIndex parses a content block index, refusing anything but a plain
// non-negative integer up to maxIndex.
func parseIndex(v []byte) (int, bool) {
	if len(v) == 0 || len(v) > 4 {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= maxIndex
}
