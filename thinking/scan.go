package thinking

import (
	"bytes"
	"errors"
	"fmt"
)

// errSyntax reports JSON the scanner cannot follow.
var errSyntax = errors.New("malformed JSON")

// syntaxError says where the structure broke.
func syntaxError(pos int, want string) error {
	return fmt.Errorf("%w at byte %d: want %s", errSyntax, pos, want)
}

// The scanner follows the structure of a JSON document without decoding
// what it skips: strings are jumped over with bytes.IndexByte, scalars are
// skipped up to the next delimiter. It checks the grammar of everything it
// walks into (objects, arrays, keys, separators) but not the contents of
// skipped strings and scalars; Valid does that, and only when the request is
// about to be edited.

// skipSpace returns the index of the first non-whitespace byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string literal starting at b[i]
// (which must be a quote).
func skipString(b []byte, i int) (int, error) {
	// Most strings are short keys and type names: a plain loop beats the
	// call into IndexByte for them.
	for j := i + 1; j < len(b) && j < i+24; j++ {
		if b[j] == '\\' {
			break
		}
		if b[j] == '"' {
			return j + 1, nil
		}
	}
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, syntaxError(i, "closing quote")
		}
		q := j + k
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for q-1-n > i && b[q-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, syntaxError(i, "a value")
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipContainer(b, i)
	case ',', ':', '}', ']':
		return 0, syntaxError(i, "a value")
	}
	// A number, true, false or null: runs to the next delimiter.
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r', ':', '"', '{', '[':
			return j, nil
		}
		j++
	}
	return j, nil
}

// skipContainer returns the index just past the object or array at b[i].
// Only nesting is tracked; the grammar inside is Valid's business.
func skipContainer(b []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			end, err := skipString(b, j)
			if err != nil {
				return 0, err
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, syntaxError(i, "end of container")
}

// eachMember calls fn for each member of the object at b[i], with the spans
// of its key literal and the index where its value starts. fn returns the
// index just past the value (it may walk into it or skip it). eachMember
// returns the index just past the object.
func eachMember(b []byte, i int, fn func(key span, valueStart int) (int, error)) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return 0, syntaxError(i, "an object")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, syntaxError(i, "a key")
		}
		keyEnd, err := skipString(b, i)
		if err != nil {
			return 0, err
		}
		j := skipSpace(b, keyEnd)
		if j >= len(b) || b[j] != ':' {
			return 0, syntaxError(j, "a colon")
		}
		j = skipSpace(b, j+1)
		end, err := fn(span{i, keyEnd}, j)
		if err != nil {
			return 0, err
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return 0, syntaxError(i, "a comma or the end of an object")
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, syntaxError(i, "a comma or the end of an object")
		}
	}
}

// eachElement calls fn for each element of the array at b[i] with the index
// where the element starts; fn returns the index just past it. eachElement
// returns the index just past the array.
func eachElement(b []byte, i int, fn func(start int) (int, error)) (int, error) {
	if i >= len(b) || b[i] != '[' {
		return 0, syntaxError(i, "an array")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		end, err := fn(i)
		if err != nil {
			return 0, err
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return 0, syntaxError(i, "a comma or the end of an array")
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return i + 1, nil
		default:
			return 0, syntaxError(i, "a comma or the end of an array")
		}
	}
}

// span is a half-open byte range of the body.
type span struct{ start, end int }

func (s span) of(b []byte) []byte { return b[s.start:s.end] }
