package jsonstr

import "unicode/utf8"

// MinRequoteRoom is the least room Requote needs to make progress: the
// longest piece one escape or one character becomes.
const MinRequoteRoom = 6

// Requote appends to dst the contents s of a JSON string literal (what is
// between its quotes) written as Quote writes them: what
// Escape(AppendContent(s)) gives, without decoding s into memory of its
// own. It stops before it would append more than room bytes, at least
// MinRequoteRoom, and returns how many bytes of s it read: a caller
// writing a long literal into memory it counts goes piece by piece.
// Contents that are not a well-formed literal's come out as some valid
// literal; validate first where that matters.
func Requote(dst, s []byte, room int) ([]byte, int) {
	room = max(room, MinRequoteRoom)
	limit := len(dst) + room
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\\':
			var buf [utf8.UTFMax]byte
			dec, next, ok := appendEscape(buf[:0], s, i)
			if !ok {
				// Not an escape: the backslash is text.
				dec, next = append(buf[:0], '\\'), i+1
			}
			if len(dst)+escapedLen(dec) > limit {
				return dst, i
			}
			dst = Escape(dst, dec)
			i = next
		case c < 0x20 || c == '"':
			// Only in a literal that is not one: escaped.
			if len(dst)+6 > limit {
				return dst, i
			}
			dst = Escape(dst, s[i:i+1])
			i++
		case c < utf8.RuneSelf:
			j := i + 1
			for j < len(s) && j-i < limit-len(dst) && s[j] >= 0x20 && s[j] < utf8.RuneSelf && s[j] != '\\' && s[j] != '"' {
				j++
			}
			if len(dst)+1 > limit {
				return dst, i
			}
			dst = append(dst, s[i:j]...)
			i = j
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				if len(dst)+3 > limit {
					return dst, i
				}
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				if len(dst)+size > limit {
					return dst, i
				}
				dst = append(dst, s[i:i+size]...)
			}
			i += size
		}
	}
	return dst, i
}

// escapedLen returns how long Escape writes one decoded character.
func escapedLen(r []byte) int {
	if len(r) != 1 {
		return len(r)
	}
	switch c := r[0]; {
	case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
		return 2
	case c < 0x20:
		return 6
	}
	return 1
}

// EscapePiece appends Escape's writing of the longest piece of s that
// surely takes at most room bytes escaped, cut between characters, and
// returns how many bytes of s it took: at least one character's when s is
// not empty. Escaping piece by piece writes what Escape writes of s whole.
func EscapePiece(dst, s []byte, room int) ([]byte, int) {
	n := min(len(s), max(room, MinRequoteRoom)/6) // a byte escapes to at most 6
	// A cut must not split a character: when the character that starts
	// last before the cut runs past it, cut before that character.
	for p := n - 1; n < len(s) && p >= 0 && p >= n-(utf8.UTFMax-1); p-- {
		if utf8.RuneStart(s[p]) {
			if _, size := utf8.DecodeRune(s[p:]); p+size > n {
				n = p
			}
			break
		}
	}
	if n == 0 && len(s) > 0 {
		_, n = utf8.DecodeRune(s)
	}
	return Escape(dst, s[:n]), n
}
