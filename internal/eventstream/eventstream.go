// Package eventstream holds the pieces of the text/event-stream format that
// the readers of streamed answers (packages events, observe, thinktags and
// modelname) read by: line endings, and the content block index of
// Messages API events. It never allocates.
package eventstream

import "bytes"

// BOM is the byte order mark an event stream may start with.
var BOM = []byte("\xef\xbb\xbf")

// LineEnd finds the first line ending in p ("\n", "\r\n" or a lone "\r").
// It returns where the line ends and where the next one starts, or -1, -1
// when p holds no line ending.
func LineEnd(p []byte) (end, next int) {
	lf := bytes.IndexByte(p, '\n')
	head := p
	if lf >= 0 {
		head = p[:lf]
	}
	cr := bytes.IndexByte(head, '\r')
	switch {
	case cr >= 0 && cr+1 < len(p) && p[cr+1] == '\n':
		return cr, cr + 2
	case cr >= 0:
		return cr, cr + 1
	case lf >= 0:
		return lf, lf + 1
	}
	return -1, -1
}

// Index parses a content block index as JSON writes a non-negative
// integer, refusing anything else and anything above limit.
func Index(v []byte, limit int) (int, bool) {
	if len(v) == 0 || len(v) > 9 || (v[0] == '0' && len(v) > 1) {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= limit
}

// Field splits a non-empty line of an event stream into its field name and
// value, dropping one space after the colon; a line without a colon is a
// field with an empty value. comment reports a line that starts with a
// colon, which carries nothing.
func Field(line []byte) (field, value []byte, comment bool) {
	i := bytes.IndexByte(line, ':')
	switch {
	case i == 0:
		return nil, nil, true
	case i < 0:
		return line, line[:0], false
	}
	field, value = line[:i], line[i+1:]
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	return field, value, false
}

// AppendData adds the value of a data line to the data of the event being
// read; more says that data holds an earlier data line of it, which the
// format joins to this one with "\n".
func AppendData(data []byte, more bool, value []byte) []byte {
	if more {
		data = append(data, '\n')
	}
	return append(data, value...)
}

// IsField reports whether name is a field of the event stream format:
// event, data, id or retry. A line of any other name is not one a
// well-formed stream holds (a server that ends its stream with a bare
// JSON error writes such lines).
func IsField(name []byte) bool {
	switch string(name) {
	case "event", "data", "id", "retry":
		return true
	}
	return false
}
