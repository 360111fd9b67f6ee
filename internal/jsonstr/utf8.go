package jsonstr

import (
	"encoding/binary"
	"unicode/utf8"
)

// AppendUTF8 appends the JSON string literal lit (with its quotes) as a
// strict decoder reads it: lit itself when it is valid UTF-8, otherwise
// written again as Requote writes its contents, each byte that is not
// UTF-8 as U+FFFD. A translation that passes an upstream's literals on as
// they are calls it where it would append one.
func AppendUTF8(dst, lit []byte) []byte {
	if validUTF8(lit) {
		return append(dst, lit...)
	}
	return append(RequoteAll(append(dst, '"'), lit[1:len(lit)-1]), '"')
}

// RequoteAll is Requote with room for all of s.
func RequoteAll(dst, s []byte) []byte {
	for len(s) > 0 {
		var n int
		dst, n = Requote(dst, s, len(s)*3+MinRequoteRoom)
		s = s[n:]
	}
	return dst
}

// ValidUTF8 returns the JSON text b as a strict decoder reads it: b itself
// when it is valid UTF-8, else a copy with each byte that is not UTF-8
// written as U+FFFD, as encoding/json decodes it. In valid JSON such bytes
// can only be inside string literals, where U+FFFD keeps the text valid and
// of the same shape. A translation that passes an upstream's JSON value on
// as it is calls it where it would copy the value.
func ValidUTF8(b []byte) []byte {
	if validUTF8(b) {
		return b
	}
	out := make([]byte, 0, len(b)+len(b)/2)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// validUTF8 is utf8.Valid with a faster way through ASCII, which is most
// of what the translations pass on (utf8.Valid costs about as much for
// eight bytes as for a hundred): eight bytes a step, the last word
// overlapping, and utf8.Valid only for a text that is not all ASCII.
func validUTF8(b []byte) bool {
	n := len(b)
	if n < 8 {
		var high byte
		for _, c := range b {
			high |= c
		}
		return high < utf8.RuneSelf || utf8.Valid(b)
	}
	m := binary.LittleEndian.Uint64(b[n-8:])
	for i := 0; i+8 <= n; i += 8 {
		m |= binary.LittleEndian.Uint64(b[i:])
	}
	return m&0x8080808080808080 == 0 || utf8.Valid(b)
}
