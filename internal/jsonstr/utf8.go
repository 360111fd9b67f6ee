package jsonstr

import "unicode/utf8"

// AppendUTF8 appends the JSON string literal lit (with its quotes) as a
// strict decoder reads it: lit itself when it is valid UTF-8, otherwise
// written again as Requote writes its contents, each byte that is not
// UTF-8 as U+FFFD. A translation that passes an upstream's literals on as
// they are calls it where it would append one.
func AppendUTF8(dst, lit []byte) []byte {
	if utf8.Valid(lit) {
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
	if utf8.Valid(b) {
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
