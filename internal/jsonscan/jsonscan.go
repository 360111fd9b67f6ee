// Package jsonscan follows the structure of JSON without decoding it, for
// the request rewriter and the response observers, which read a handful of
// fields out of bodies they mostly pass over.
//
// Strings are jumped over with bytes.IndexByte and scalars are skipped up to
// the next delimiter; objects and arrays that are walked into get their
// grammar (keys, colons, commas) checked, while skipped values are only
// delimited. The package never allocates and never panics on any input.
// Callers that must know a body is valid JSON check it on their own.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// ErrSyntax is wrapped by every error about JSON the scanner cannot follow.
var ErrSyntax = errors.New("malformed JSON")

// SyntaxError says where the structure broke and what was expected there.
type SyntaxError struct {
	Offset int
	Want   string
}

// Error says where the JSON broke and what was expected there.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("malformed JSON at byte %d: want %s", e.Offset, e.Want)
}

// Unwrap makes errors.Is(err, ErrSyntax) hold.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// SkipSpace returns the index of the first non-whitespace byte at or after i.
func SkipSpace(b []byte, i int) int {
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

// SkipString returns the index just past the string literal that starts at
// b[i], or false when b[i] starts none or it is not closed.
func SkipString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	// Most strings are short keys and type names: test them eight bytes a
	// step for a quote or a backslash before calling into IndexByte, which
	// longer strings then go on with from where this stopped.
	j := i + 1
	for limit := min(len(b)-8, i+33); j <= limit; j += 8 {
		if m := quoteOrBackslash(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			j += bits.TrailingZeros64(m) >> 3
			if b[j] == '"' {
				return j + 1, true
			}
			break
		}
	}
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, false
		}
		q := j + k
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for q-1-n > i && b[q-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q + 1, true
		}
		j = q + 1
	}
}

// Byte-parallel tests on 64-bit words ("SWAR"): ones*c repeats byte c in
// every lane, and highs keeps each lane's high bit.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// quoteOrBackslash returns a word whose lowest set bit lies in the first
// byte of w that is a quote or a backslash (bits above it may be false
// alarms), or zero when there is none.
func quoteOrBackslash(w uint64) uint64 {
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	return ((q-ones) & ^q | (bs-ones) & ^bs) & highs
}

// SkipValue returns the index just past the value that starts at b[i].
// White space at b[i] starts no value: callers skip it first.
func SkipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		return skipNested(b, i)
	case ',', ':', '}', ']', ' ', '\t', '\n', '\r':
		return 0, false
	}
	// A number, true, false or null runs to the next delimiter.
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

// skipNested returns the index just past the object or array at b[i]. Only
// nesting is tracked.
func skipNested(b []byte, i int) (int, bool) {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			end, ok := SkipString(b, j)
			if !ok {
				return 0, false
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
	return 0, false
}

// Name returns what a key or string literal reads as, for a switch over
// known names. A literal with escapes is decoded into buf (no known name has
// any, but "\u0074ype" is "type" to every JSON parser); anything that is not
// a string literal reads as nil.
func Name(lit []byte, buf *[32]byte) []byte {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return nil
	}
	inner := lit[1 : len(lit)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner
	}
	v, _ := jsonstr.AppendContent(buf[:0], inner)
	return v
}
