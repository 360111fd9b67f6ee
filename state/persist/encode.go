package persist

import (
	"strconv"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// encoder writes one file of the current version (see version) into one
// buffer, changes as they come: a snapshot of a large registry is written
// out batch after batch, and never sits in memory as a slice of changes,
// nor as a tree of values for encoding/json. A change costs its bytes and
// no allocation; only the names table and the buffer's growth allocate.
type encoder struct {
	buf   []byte
	names []string       // by index, as the file's names table lists them
	index map[string]int // of names
	n     int            // changes written
	// last is the latest backend name looked up and its index: most changes
	// in a row have the same backend, and this spares them the map.
	last      string
	lastIndex int
}

// bytesPerChange is a little more than a change takes in a file (55 bytes
// for a block's), to size the buffer of a file whose number of changes is
// about known: a buffer that grows copies the file and leaves the old copy
// to the garbage collector.
const bytesPerChange = 64

// newEncoder starts a file with header h in buf, which it appends to.
func newEncoder(buf []byte, h fileHeader) *encoder {
	e := &encoder{buf: buf, index: make(map[string]int), lastIndex: -1}
	e.buf = append(e.buf, `{"version":`...)
	e.buf = strconv.AppendInt(e.buf, version, 10)
	e.buf = append(e.buf, `,"writer":`...)
	e.buf = appendString(e.buf, h.Writer)
	if h.Generation != 0 || len(h.Folded) > 0 {
		e.buf = append(e.buf, `,"generation":`...)
		e.buf = strconv.AppendUint(e.buf, h.Generation, 10)
		e.buf = append(e.buf, `,"folded":`...)
		e.buf = appendStrings(e.buf, h.Folded)
	}
	e.buf = append(e.buf, `,"changes":[`...)
	return e
}

// add writes changes, one line each, so that a file reads and diffs well.
func (e *encoder) add(changes []registry.Change) {
	b := e.buf
	for i := range changes {
		c := &changes[i]
		if e.n > 0 {
			b = append(b, ',')
		}
		e.n++
		b = append(b, "\n["...)
		b = strconv.AppendUint(b, uint64(c.Op), 10)
		b = append(b, `,"`...)
		if c.Key != (block.Key{}) { // a served change has none: "" spares 22 bytes
			b = keyEncoding.AppendEncode(b, c.Key[:])
		}
		b = append(b, `",`...)
		b = strconv.AppendInt(b, int64(e.backend(c.Backend)), 10)
		b = append(b, ',')
		conv := -1
		switch {
		case c.Op == registry.Learned || c.Op == registry.Forgot:
			if c.Model != "" {
				conv = e.name(c.Model)
			}
		case c.Conversation != "":
			conv = e.name(c.Conversation)
		}
		b = strconv.AppendInt(b, int64(conv), 10)
		b = append(b, ',')
		var at int64
		if !c.At.IsZero() {
			at = c.At.UnixNano()
		}
		b = strconv.AppendInt(b, at, 10)
		if c.Op == registry.Learned {
			b = append(b, ',')
			b = strconv.AppendUint(b, uint64(c.Facts), 10)
		}
		b = append(b, ']')
	}
	e.buf = b
}

// finish ends the file with the names table and returns it.
func (e *encoder) finish() []byte {
	if e.n > 0 {
		e.buf = append(e.buf, '\n')
	}
	e.buf = append(e.buf, "],\n\"names\":"...)
	e.buf = appendStrings(e.buf, e.names)
	e.buf = append(e.buf, "}\n"...)
	return e.buf
}

// backend returns the index of a backend's name, adding it to the table.
func (e *encoder) backend(s string) int {
	if e.lastIndex < 0 || s != e.last {
		e.last, e.lastIndex = s, e.name(s)
	}
	return e.lastIndex
}

// name returns the index of s in the names table, adding it.
func (e *encoder) name(s string) int {
	i, ok := e.index[s]
	if !ok {
		i = len(e.names)
		e.names = append(e.names, s)
		e.index[s] = i
	}
	return i
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte { return jsonstr.Quote(b, []byte(s)) }

// appendStrings appends ss as a JSON array of strings; nil is empty too.
func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}
