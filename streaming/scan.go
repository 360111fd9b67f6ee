package streaming

import "github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"

// The observers read the few fields they need straight from the JSON bytes:
// encoding/json allocates for every event, and gjson for every string that
// holds an escape, which most thinking text does.
//
// The scanner is lenient about what it skips (numbers, nested values are
// only delimited, never checked) and exact about the strings it hands out,
// which callers decode with jsonstr. Like JSON.parse in the client, callers
// take the last of duplicate keys and match keys by their decoded value.

// iter walks the members of a JSON object or the elements of a JSON array.
type iter struct {
	b       []byte
	i       int
	closing byte // '}' or ']'
	n       int  // items returned so far
	done    bool
	bad     bool // stopped at malformed input
}

// members returns an iterator over the object b.
func members(b []byte) iter { return newIter(b, '{', '}') }

// elements returns an iterator over the array b.
func elements(b []byte) iter { return newIter(b, '[', ']') }

func newIter(b []byte, opening, closing byte) iter {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != opening {
		return iter{done: true, bad: true}
	}
	return iter{b: b, i: i + 1, closing: closing}
}

// next returns the next item: a member's key literal and value, or an
// element with a nil key. It returns false at the end or at malformed input,
// which it records in bad.
func (it *iter) next() (key, value []byte, ok bool) {
	if it.done {
		return nil, nil, false
	}
	b := it.b
	i := skipSpace(b, it.i)
	if i < len(b) && b[i] == it.closing {
		it.done = true
		return nil, nil, false
	}
	if it.n > 0 {
		if i == len(b) || b[i] != ',' {
			return it.fail()
		}
		i = skipSpace(b, i+1)
	}
	if it.closing == '}' {
		end, ok := skipString(b, i)
		if !ok {
			return it.fail()
		}
		key = b[i:end]
		i = skipSpace(b, end)
		if i == len(b) || b[i] != ':' {
			return it.fail()
		}
		i = skipSpace(b, i+1)
	}
	end, ok := skipValue(b, i)
	if !ok {
		return it.fail()
	}
	it.i, it.n = end, it.n+1
	return key, b[i:end], true
}

func (it *iter) fail() ([]byte, []byte, bool) {
	it.done, it.bad = true, true
	return nil, nil, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the value starting at b[i].
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipNested(b, i)
	case ',', ':', '}', ']':
		return i, false
	}
	j := i + 1
	for j < len(b) && !isDelimiter(b[j]) {
		j++
	}
	return j, true
}

func isDelimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', '{', '}', '[', ']', '"':
		return true
	}
	return false
}

// skipString returns the end of the string literal starting at b[i].
func skipString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1, true
		case '\\':
			j++
		}
	}
	return i, false
}

// skipNested returns the end of the object or array starting at b[i].
func skipNested(b []byte, i int) (int, bool) {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			end, ok := skipString(b, j)
			if !ok {
				return i, false
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, true
			}
		}
	}
	return i, false
}

// name returns what the literal of a key or a type reads as, for a switch
// over the names this package knows. Escapes, which no real key or type has,
// are decoded into buf; anything but a string literal holding one of those
// names matches none of them.
func name(lit []byte, buf *[32]byte) []byte {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return nil
	}
	for _, c := range lit[1 : len(lit)-1] {
		if c == '\\' {
			v, _ := jsonstr.Append(buf[:0], lit)
			return v
		}
	}
	return lit[1 : len(lit)-1]
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
