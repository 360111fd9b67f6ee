package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"
)

// AppendString appends s as a JSON string literal the way JavaScript's
// JSON.stringify writes it: only '"', '\\' and control characters are
// escaped; "<", ">", "&", U+2028 and U+2029 stay as they are (encoding/json
// would escape them).
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch c {
		case '"':
			dst = append(dst, `\"`...)
		case '\\':
			dst = append(dst, `\\`...)
		case '\b':
			dst = append(dst, `\b`...)
		case '\f':
			dst = append(dst, `\f`...)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		case '\t':
			dst = append(dst, `\t`...)
		default:
			if c < 0x20 {
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			} else {
				dst = append(dst, c)
			}
		}
		i++
	}
	return append(dst, '"')
}

// Stringify re-encodes one JSON value as JSON.stringify(JSON.parse(raw))
// would: compact, object keys in their original order, strings as
// AppendString writes them. Numbers keep their literal form.
func Stringify(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		object bool
		n      int // keys and values written so far
	}
	var (
		out   []byte
		stack []frame
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF && len(stack) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			out = append(out, byte(d))
			if len(stack) == 0 {
				break
			}
			continue
		}
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			switch {
			case top.n == 0:
			case top.object && top.n%2 == 1:
				out = append(out, ':')
			default:
				out = append(out, ',')
			}
			top.n++
		}
		switch v := tok.(type) {
		case json.Delim:
			out = append(out, byte(v))
			stack = append(stack, frame{object: v == '{'})
		case string:
			out = AppendString(out, v)
		case json.Number:
			out = append(out, v...)
		case bool:
			out = strconv.AppendBool(out, v)
		case nil:
			out = append(out, "null"...)
		}
		if len(stack) == 0 {
			break
		}
	}
	if out == nil {
		return nil, errors.New("claudecode: no JSON value")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("claudecode: data after the JSON value")
	}
	return out, nil
}
