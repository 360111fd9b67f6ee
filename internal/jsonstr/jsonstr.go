// Package jsonstr reads and writes JSON string literals, into caller-owned
// buffers.
//
// Thinking blocks are identified by a hash of their decoded text, and the same
// block reaches us escaped in different ways: an upstream may write "<" as
// \u003c, Claude Code re-serialises it as a plain "<". Both the request side
// and the response side therefore hash decoded bytes, and both decode with
// this one function so that they agree byte for byte, including on input that
// is not valid UTF-8 (replaced by U+FFFD exactly as encoding/json does).
//
// The package never allocates on its own: callers pass a scratch slice.
package jsonstr

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Append decodes the JSON string literal lit (including its quotes) and
// appends the value to dst. It reports false, leaving dst as it was, when lit
// is not a well-formed JSON string literal.
func Append(dst, lit []byte) ([]byte, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return dst, false
	}
	return AppendContent(dst, lit[1:len(lit)-1])
}

// AppendContent is Append for the bytes between the quotes of a literal.
func AppendContent(dst, s []byte) ([]byte, bool) {
	start := len(dst)
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\\':
			var ok bool
			dst, i, ok = appendEscape(dst, s, i)
			if !ok {
				return dst[:start], false
			}
		case c == '"' || c < 0x20:
			return dst[:start], false
		case c < utf8.RuneSelf:
			// Copy the whole run of plain ASCII at once.
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] < utf8.RuneSelf && s[j] != '\\' && s[j] != '"' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
		}
	}
	return dst, true
}

// appendEscape decodes the escape sequence at s[i] (a backslash).
func appendEscape(dst, s []byte, i int) ([]byte, int, bool) {
	if i+1 >= len(s) {
		return dst, i, false
	}
	switch s[i+1] {
	case '"', '\\', '/':
		return append(dst, s[i+1]), i + 2, true
	case 'b':
		return append(dst, '\b'), i + 2, true
	case 'f':
		return append(dst, '\f'), i + 2, true
	case 'n':
		return append(dst, '\n'), i + 2, true
	case 'r':
		return append(dst, '\r'), i + 2, true
	case 't':
		return append(dst, '\t'), i + 2, true
	case 'u':
		r, ok := hex4(s, i+2)
		if !ok {
			return dst, i, false
		}
		i += 6
		if utf16.IsSurrogate(r) {
			// A high surrogate followed by an escaped low surrogate is one
			// code point; anything else is replaced, as encoding/json does.
			if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if r2, ok := hex4(s, i+2); ok {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						return utf8.AppendRune(dst, dec), i + 6, true
					}
				}
			}
			r = utf8.RuneError
		}
		return utf8.AppendRune(dst, r), i, true
	}
	return dst, i, false
}

// hex4 parses the four hex digits at s[i:].
func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Value returns the value of the JSON string literal lit, which must be
// delimited as jsonscan delimits literals (its closing quote is the first
// unescaped one). When the contents hold no escape and are valid UTF-8, the
// value is those contents, with no copy; otherwise it is decoded onto dst,
// which Value returns for reuse either way. It reports false when lit is not
// a well-formed literal. Unlike Append, it does not look for raw control
// characters in contents without escapes: only invalid JSON holds them, and
// callers that must refuse invalid JSON validate the whole body.
func Value(dst, lit []byte) (value, buf []byte, ok bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return nil, dst, false
	}
	s := lit[1 : len(lit)-1]
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return s, dst, true
	}
	start := len(dst)
	dst, ok = AppendContent(dst, s)
	return dst[start:], dst, ok
}
