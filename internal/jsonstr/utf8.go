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
