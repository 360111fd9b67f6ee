package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// maxDepth is encoding/json's nesting limit; Valid agrees with json.Valid,
// so a body the upstream's parser would refuse is never edited.
const maxDepth = 10000

// Valid reports whether b is one valid JSON value, exactly as json.Valid
// does, at several times its speed: strings are checked eight bytes at a
// time. The scanner itself is lenient; the request rewriter calls Valid
// before it edits a body, so that invalid JSON is forwarded untouched rather
// than half-repaired.
func Valid(b []byte) bool {
	// The open containers of a usual body fit on the stack.
	var open [32]byte
	return valid(b, SkipSpace(b, 0), open[:0], false, 0)
}

// ValidAfter reports whether b is valid JSON given that b[:i] is a valid
// beginning of it that ends just after a value, inside the containers open
// lists from the outermost ('{' or '['): what follows must complete them.
// A request whose start was checked before is checked from there on.
func ValidAfter(b []byte, i int, open []byte) bool {
	return ValidBetween(b, i, open, 0)
}

// ValidBetween is ValidAfter for a b that ends just after a value that
// leaves the first depth containers of open still open: the part of a body
// between a checked start and a checked end.
func ValidBetween(b []byte, i int, open []byte, depth int) bool {
	stack := make([]byte, len(open), len(open)+8)
	copy(stack, open)
	return valid(b, i, stack, true, depth)
}

// valid checks b from i, with the containers of stack open; ended says
// that a value ended just before i. b must end when depth containers are
// left open, just after a value.
func valid(b []byte, i int, stack []byte, ended bool, depth int) bool {
	for {
		if !ended {
			var closed, ok bool
			if i, stack, closed, ok = validValue(b, i, stack); !ok {
				return false
			}
			if !closed {
				continue
			}
		}
		ended = false
		// A value ended at i: close containers until one continues.
		for {
			if depth > 0 && len(stack) == depth && i == len(b) {
				return true
			}
			i = SkipSpace(b, i)
			if len(stack) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := stack[len(stack)-1]
			if b[i] == ',' {
				i = SkipSpace(b, i+1)
				if top == '{' {
					var ok bool
					if i, ok = validKey(b, i); !ok {
						return false
					}
				}
				break
			}
			if b[i] != top+2 || len(stack) <= depth { // '}' and ']' follow '{' and '[' by two
				return false
			}
			stack = stack[:len(stack)-1]
			i++
		}
	}
}

// validValue checks the value that starts at b[i]. A container it opens is
// pushed on stack and reported as not closed, with i at its first value; any
// other value (an empty container too) is reported closed, with i just past
// it. It returns the stack, which a caller's array holds while it can (a
// pointer to it would move it to the heap).
func validValue(b []byte, i int, stack []byte) (next int, _ []byte, closed, ok bool) {
	if i >= len(b) {
		return 0, stack, false, false
	}
	switch c := b[i]; c {
	case '{', '[':
		stack = append(stack, c)
		if len(stack) > maxDepth {
			return 0, stack, false, false
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == c+2 {
			return i + 1, stack[:len(stack)-1], true, true
		}
		if c == '{' {
			i, ok = validKey(b, i)
			return i, stack, false, ok
		}
		return i, stack, false, true
	case '"':
		i, ok = validString(b, i)
	case 't':
		i, ok = validLiteral(b, i, "true")
	case 'f':
		i, ok = validLiteral(b, i, "false")
	case 'n':
		i, ok = validLiteral(b, i, "null")
	default:
		i, ok = validNumber(b, i)
	}
	return i, stack, true, ok
}

// validKey checks a key and its colon at b[i], returning where the value
// starts.
func validKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	i, ok := validString(b, i)
	if !ok {
		return 0, false
	}
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return 0, false
	}
	return SkipSpace(b, i+1), true
}

// specials returns a word whose lowest set bit lies in the first byte of w
// that is a quote, a backslash or a control character; zero when none is.
// Bits above the first match may be false alarms, so only the lowest is used.
func specials(w uint64) uint64 {
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	return ((w-ones*0x20) & ^w | (q-ones) & ^q | (bs-ones) & ^bs) & highs
}

// Plain reports whether s, the contents of a string literal, is the
// string itself: nothing but ASCII, and no quote, backslash or control
// character to end it or be decoded. Such contents need neither decoding
// nor a check of their UTF-8; the text of nearly every delta a server
// streams is plain. It tests eight bytes a step (see plainWord).
func Plain(s []byte) bool {
	n := len(s)
	if n < 8 {
		for _, c := range s {
			if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	// Two words a step: the loop and the constants cost once for both.
	// The last bytes are read in a word that ends where s ends, which
	// overlaps the words before it.
	le := binary.LittleEndian
	m := plainWord(le.Uint64(s[n-8:]))
	for rest := s; len(rest) >= 16; rest = rest[16:] {
		m |= plainWord(le.Uint64(rest)) | plainWord(le.Uint64(rest[8:]))
	}
	if n&8 != 0 { // a word is left between the pairs and the last word
		m |= plainWord(le.Uint64(s[n&^15:]))
	}
	return m&highs == 0
}

// plainWord returns a word whose lanes' high bits are all clear when every
// byte of w is plain (see Plain), and some set otherwise. A byte below
// 0x20 borrows in w-0x20, a quote or backslash in the lane that its xor
// zeroed, and a byte from 0x80 has its own high bit: the tests that would
// tell "equal" from "above" (an and with ^w) are left out, since every byte
// they would clear a lane for is past ASCII and caught by w itself. A
// borrow can set a lane above a byte that is not plain, never without one.
func plainWord(w uint64) uint64 {
	return w | (w - ones*0x20) | ((w ^ ones*'"') - ones) | ((w ^ ones*'\\') - ones)
}

// nextSpecial returns the index of the first quote, backslash or control
// character in b at or after j, or len(b).
func nextSpecial(b []byte, j int) int {
	for ; j+16 <= len(b); j += 16 {
		if m := specials(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
		if m := specials(binary.LittleEndian.Uint64(b[j+8:])); m != 0 {
			return j + 8 + bits.TrailingZeros64(m)>>3
		}
	}
	for ; j < len(b); j++ {
		if c := b[j]; c < 0x20 || c == '"' || c == '\\' {
			return j
		}
	}
	return j
}

// validString checks the string literal at b[i] and returns the index just
// past it. It jumps from one special byte to the next, eight bytes a step.
func validString(b []byte, i int) (int, bool) {
	j := i + 1
	for {
		j = nextSpecial(b, j)
		if j >= len(b) || b[j] < 0x20 {
			return 0, false
		}
		if b[j] == '"' {
			return j + 1, true
		}
		n, ok := escapeLen(b, j)
		if !ok {
			return 0, false
		}
		j += n
	}
}

// escapeLen returns the length of the valid escape sequence at b[i].
func escapeLen(b []byte, i int) (int, bool) {
	if i+1 >= len(b) {
		return 0, false
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, true
	case 'u':
		if _, ok := hex4(b, i+2); ok {
			return 6, true
		}
	}
	return 0, false
}

// hex4 reports whether b[i:i+4] are four hex digits.
func hex4(b []byte, i int) (int, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	for _, c := range b[i : i+4] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return 0, false
		}
	}
	return i + 4, true
}

func validLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// validNumber checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at b[i].
func validNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
