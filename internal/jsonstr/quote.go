package jsonstr

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// Quote appends s as a JSON string literal, the encoder that matches this
// package's decoder: decoding what it writes gives s back, each byte that
// is not valid UTF-8 as U+FFFD. Unlike encoding/json it leaves <, > and &
// as they are.
func Quote(dst, s []byte) []byte {
	dst = append(dst, '"')
	return append(Escape(dst, s), '"')
}

// Escape appends s escaped for the inside of a JSON string literal; each
// byte that is not valid UTF-8 is written as U+FFFD, as encoding/json
// writes it.
func Escape(dst, s []byte) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(s[i:])
			if r != utf8.RuneError || size > 1 {
				i += size
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	return append(dst, s[start:]...)
}
