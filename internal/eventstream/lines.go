package eventstream

import "bytes"

// MaxEvent bounds the bytes of one event of a stream, from its first line
// to the blank line that ends it (see Assembler): past it a
// reader gives the stream up (the observer stops following it, the
// rewriters copy the rest untouched, the translator ends it with an error
// event), so that what it holds stays bounded whatever the upstream sends.
const MaxEvent = 1 << 20

// Lines frames the lines of an event stream fed in chunks, as the WHATWG
// parser and the SDKs read them however the bytes are cut: "\n", "\r\n"
// and a lone "\r" end a line, a "\r\n" cut between two chunks ends one
// line, and a byte order mark that starts the stream is not part of its
// first line. It holds no bytes: a line cut by the end of a chunk is the
// caller's to keep until the chunk that ends it. The zero Lines is ready.
type Lines struct {
	begun   bool // a line was read, so no byte order mark can follow
	afterCR bool // the last chunk ended in a '\r' that ended a line
	noCR    bool // the chunk being read holds no '\r'
}

// Chunk starts reading the next chunk p and returns where its first line
// starts: just past the '\n' of a "\r\n" that the end of the previous
// chunk cut, else 0.
func (l *Lines) Chunk(p []byte) int {
	l.noCR = bytes.IndexByte(p, '\r') < 0
	if l.afterCR && len(p) > 0 {
		l.afterCR = false
		if p[0] == '\n' {
			return 1
		}
	}
	return 0
}

// Next finds the next line of the chunk p from p[i]: where it ends and
// where the line after it starts, or -1, -1 when the rest of p holds no
// line end. A line that ends in a '\r' at the end of p is ended: a '\n'
// that starts the next chunk is then passed over (see Chunk).
func (l *Lines) Next(p []byte, i int) (end, next int) {
	if l.noCR {
		e := bytes.IndexByte(p[i:], '\n')
		if e < 0 {
			return -1, -1
		}
		return i + e, i + e + 1
	}
	e, n := LineEnd(p[i:])
	if e < 0 {
		return -1, -1
	}
	end, next = i+e, i+n
	l.afterCR = next == len(p) && next == end+1 && p[end] == '\r'
	return end, next
}

// Plain reports whether the chunk being read holds no '\r': its lines all
// end in "\n", as servers write them, which a reader may take a faster way.
func (l *Lines) Plain() bool { return l.noCR }

// Line returns a whole line as the stream means it: without the byte order
// mark that may start the stream's first line.
func (l *Lines) Line(line []byte) []byte {
	if !l.begun {
		l.begun = true
		return bytes.TrimPrefix(line, BOM)
	}
	return line
}

// Begun reports whether a line was read.
func (l *Lines) Begun() bool { return l.begun }

// Event gathers the fields of the event being read: its data lines, joined
// by "\n" as the format joins them, and the value of its last "event"
// field. Its memory is kept from one event to the next.
type Event struct {
	Data    []byte
	HasData bool // the event has a data line, maybe empty
	Name    []byte
	HasName bool
}

// Line reads one whole line of the event (see Lines.Line) and reports
// whether it is the blank line that ends the event.
func (e *Event) Line(line []byte) (end bool) {
	if len(line) == 0 {
		return true
	}
	field, value, comment := Field(line)
	if comment {
		return false
	}
	switch string(field) {
	case "data":
		e.Data, e.HasData = AppendData(e.Data, e.HasData, value), true
	case "event":
		e.Name, e.HasName = append(e.Name[:0], value...), true
	}
	return false
}

// Reset empties the event for the next one.
func (e *Event) Reset() {
	e.Data, e.HasData, e.Name, e.HasName = e.Data[:0], false, e.Name[:0], false
}

// Size returns the bytes the event holds.
func (e *Event) Size() int { return len(e.Data) + len(e.Name) }
