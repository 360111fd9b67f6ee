package eventstream

import "bytes"

// Assembler assembles the events of a stream fed to it in chunks, however
// the chunks cut it, for every reader of event streams: the observer of
// answers, the rewriters of <think> tags and of the model name, and the
// reader of the upstream streams the transports translate. A chunk is
// read with Feed, then its events with Next, one whole event at a time.
// The bytes of an event that the chunk does not end are kept until the
// chunk that does; past MaxEvent they are given up (see Overflow), so
// what an Assembler holds stays bounded whatever the stream sends. The
// zero Assembler is ready. An Assembler is not safe for concurrent use.
type Assembler struct {
	// Stray, when set, is told the lines of the stream that are no field
	// of the format (see IsField), which a well-formed stream never holds:
	// a server that ends its stream with an error object written bare.
	Stray func(line []byte)

	lines Lines
	carry []byte // the bytes of the event being read that came in earlier chunks
	// lineOff is where the line being read starts, counted from the start
	// of the event being read (carry, then the chunk).
	lineOff int
	ev      Event
	// dataAt is where the value of the event's one data line is in the
	// chunk, while it is there and is its only one: Data then points into
	// the chunk, not copied.
	dataAt    [2]int
	dataCount int
	dataOff   int // where the value of its first data line is in the event's bytes

	f       Frame  // the event Next and End return
	p       []byte // the chunk being read
	i       int    // where its next line starts
	evStart int    // where the event being read starts in it
	crEnded bool   // the last chunk ended on the '\r' that ended an event
	over    bool
}

// Frame is one whole event.
type Frame struct {
	// Raw is every byte of the event, its blank line included: p[Start:End]
	// of the chunk when InChunk, else the Assembler's own copy (the event
	// began in an earlier chunk).
	Raw        []byte
	InChunk    bool
	Start, End int
	// Name is the value of its last "event" field, when HasName; Data its
	// data lines joined by "\n", when HasData (an empty data line counts).
	Name    []byte
	HasName bool
	Data    []byte
	HasData bool
	// DataAt is where Data is in Raw when the event has one data line
	// (Raw[DataAt:DataAt+len(Data)] is Data), else -1: a rewriter can edit
	// the data in place.
	DataAt int
}

// Feed starts reading the chunk p. It reports whether p starts with the
// '\n' of a "\r\n" whose '\r' ended the last non-empty chunk and its last
// event: that byte belongs to an event Next returned already, and is none
// of the next one's. An empty chunk changes nothing: the '\n' may still
// come in the next one.
func (a *Assembler) Feed(p []byte) (lateLF bool) {
	a.p, a.i, a.evStart = p, a.lines.Chunk(p), 0
	if len(p) == 0 {
		return false
	}
	if a.i > 0 {
		if a.crEnded {
			a.evStart, lateLF = 1, true
		} else {
			a.lineOff++ // the '\n' ends a line of the event being read
		}
	}
	a.crEnded = false
	return lateLF
}

// Next returns the next whole event of the chunk, valid until the next
// call of Next, Feed or End. At the end of the chunk it keeps the bytes of
// the event it does not end, and reports false; it reports false too once
// the event being read passed MaxEvent (see Overflow).
func (a *Assembler) Next() (*Frame, bool) {
	p := a.p
	if _, fresh := a.Fresh(); fresh {
		if quickFrame(&a.f, p, a.i) {
			a.i, a.evStart = a.f.End, a.f.End
			return &a.f, true
		}
	} else if a.atEvent() && quickCRLFFrame(&a.f, p, a.i) {
		a.i, a.evStart, a.crEnded = a.f.End, a.f.End, false
		return &a.f, true
	}
	for !a.over && a.i < len(p) {
		end, next := a.lines.Next(p, a.i)
		if end < 0 {
			break
		}
		if len(a.carry)+next-a.evStart > MaxEvent {
			a.over = true
			return nil, false
		}
		line, inChunk, lineLen := p[a.i:end], true, end-a.i
		if len(a.carry) > a.lineOff {
			// The line began in an earlier chunk: make it whole in carry,
			// which then holds the event up to here.
			a.carry = append(a.carry, p[a.evStart:next]...)
			line, inChunk = a.carry[a.lineOff:len(a.carry)-(next-end)], false
			lineLen = len(line)
			a.evStart = next
		}
		line = a.lines.Line(line)
		a.i = next
		if len(line) == 0 {
			a.crEnded = next == len(p) && p[end] == '\r'
			return a.frame(next), true
		}
		a.field(line, inChunk, end, a.lineOff+lineLen)
		a.lineOff = len(a.carry) + next - a.evStart
	}
	if !a.over && a.evStart < len(p) {
		if len(a.carry)+len(p)-a.evStart > MaxEvent {
			a.over = true
			return nil, false
		}
		a.carry = append(a.carry, p[a.evStart:]...)
		a.evStart = len(p)
		if a.dataAt[1] > 0 {
			// The next chunk will not hold the data: keep it.
			a.ev.Data = append(a.ev.Data[:0], p[a.dataAt[0]:a.dataAt[1]]...)
			a.dataAt = [2]int{}
		}
	}
	return nil, false
}

// Fresh returns the rest of the chunk when the Assembler stands at the
// start of an event in it, with nothing of the event read yet, in a chunk
// that holds no '\r' past the stream's first line: a reader that knows an
// event by its bytes may then pass over it whole with Skip, at the cost of
// finding its end.
func (a *Assembler) Fresh() ([]byte, bool) {
	if a.i < len(a.p) && a.evStart == a.i && len(a.carry) == 0 && a.dataCount == 0 && !a.ev.HasName && a.lines.Plain() && a.lines.Begun() {
		return a.p[a.i:], true
	}
	return nil, false
}

// atEvent reports whether the next byte of the chunk starts an event, of
// a chunk that holds a '\r' (see Fresh for one that holds none).
func (a *Assembler) atEvent() bool {
	return a.i < len(a.p) && a.evStart == a.i && len(a.carry) == 0 && a.dataCount == 0 && !a.ev.HasName &&
		!a.lines.Plain() && a.lines.Begun() && !a.lines.afterCR
}

// Between reports whether the Assembler is between two events and holds
// nothing: the next chunk starts an event, and a reader may pass over
// whole events it starts with before it feeds the rest.
func (a *Assembler) Between() bool {
	return a.evStart >= len(a.p) && len(a.carry) == 0 && a.dataCount == 0 && !a.ev.HasName &&
		a.lines.begun && !a.lines.afterCR && !a.crEnded && !a.over
}

// Exhausted reports whether every byte of the chunk was read, none kept
// for an event the chunk did not end: Next has nothing more to do with it.
func (a *Assembler) Exhausted() bool { return a.i >= len(a.p) && a.evStart >= len(a.p) }

// Skip passes over the next n bytes of the chunk, a whole event (blank line
// included) that Fresh returned the start of.
func (a *Assembler) Skip(n int) {
	a.i += n
	a.evStart = a.i
}

// quickFrame reads into f the event that starts at p[i] when it is written as
// servers write events, "event: <name>\n" (or nothing) then "data: <data>\n" then a
// blank line, whole in p, which holds no '\r' and does not start the
// stream: nearly every event of a stream, which then costs two scans for
// a line end and no copy. It reports false for anything else, which Next
// reads line by line.
func quickFrame(f *Frame, p []byte, i int) bool {
	b := p[i:]
	if startsData(b, 0) { // one data line and no name: chat completions, Gemini
		return quickDataLine(f, b, i, 0, "\n\n")
	}
	if len(b) < len(quickName) || string(b[:len(quickName)]) != quickName {
		return false
	}
	nameEnd := bytes.IndexByte(b[len(quickName):], '\n') + len(quickName)
	if nameEnd < len(quickName) || !startsData(b, nameEnd+1) || !quickDataLine(f, b, i, nameEnd+1, "\n\n") {
		return false
	}
	f.Name, f.HasName = b[len(quickName):nameEnd], true
	return true
}

// quickCRLFFrame is quickFrame for an event of one data line ended by
// "\r\n\r\n", as Gemini writes them, at p[i]: its data holds neither '\r'
// nor '\n'.
func quickCRLFFrame(f *Frame, p []byte, i int) bool {
	b := p[i:]
	return startsData(b, 0) && quickDataLine(f, b, i, 0, "\r\n\r\n")
}

// startsData reports whether a data line starts at b[at].
func startsData(b []byte, at int) bool {
	return len(b)-at >= len(quickData) && string(b[at:at+len(quickData)]) == quickData
}

// quickDataLine reads into f the event b, which is p[i:], whose data line
// starts at b[at] (see startsData) and ends with ending, its line end and a
// blank line ("\n\n" or "\r\n\r\n"), and reports whether it is one: the
// line holds no other line end.
func quickDataLine(f *Frame, b []byte, i, at int, ending string) bool {
	dataAt := at + len(quickData)
	dataEnd := bytes.IndexByte(b[dataAt:], ending[0])
	if dataEnd < 0 {
		return false
	}
	dataEnd += dataAt
	end := dataEnd + len(ending)
	if end > len(b) || end > MaxEvent {
		return false
	}
	for k := 1; k < len(ending); k++ { // ending[0] is where the search stopped
		if b[dataEnd+k] != ending[k] {
			return false
		}
	}
	if ending[0] == '\r' && bytes.IndexByte(b[dataAt:dataEnd], '\n') >= 0 {
		return false
	}
	*f = Frame{Raw: b[:end], InChunk: true, Start: i, End: i + end, Data: b[dataAt:dataEnd], HasData: true, DataAt: dataAt}
	return true
}

// How servers start an event's lines (see quickFrame).
const (
	quickName = "event: "
	quickData = "data: "
)

// field reads one line of the event being read; inChunk says the line is
// in the chunk, where it ends at end: its data may point into the chunk.
// The line ends at evEnd in the event's bytes.
func (a *Assembler) field(line []byte, inChunk bool, end, evEnd int) {
	field, value, comment := Field(line)
	if comment {
		return
	}
	if a.Stray != nil && !IsField(field) {
		a.Stray(line)
		return
	}
	switch string(field) {
	case "data":
		a.dataCount++
		if a.dataCount == 1 {
			a.dataOff = evEnd - len(value)
		}
		if a.dataCount == 1 && inChunk {
			a.dataAt = [2]int{end - len(value), end}
			a.ev.HasData = true
			return
		}
		if a.dataAt[1] > 0 {
			// A second data line: the first joins it in Data.
			a.ev.Data = append(a.ev.Data[:0], a.p[a.dataAt[0]:a.dataAt[1]]...)
			a.dataAt = [2]int{}
		}
		a.ev.Data, a.ev.HasData = AppendData(a.ev.Data, a.ev.HasData, value), true
	case "event":
		a.ev.Name, a.ev.HasName = append(a.ev.Name[:0], value...), true
	}
}

// frame returns the event that ends at p[end] and readies the next one.
func (a *Assembler) frame(end int) *Frame {
	f := &a.f
	*f = Frame{Name: a.ev.Name, HasName: a.ev.HasName, Data: a.ev.Data, HasData: a.ev.HasData, DataAt: -1}
	if a.dataCount == 1 {
		f.DataAt = a.dataOff
	}
	if a.dataAt[1] > 0 {
		f.Data = a.p[a.dataAt[0]:a.dataAt[1]]
	}
	if len(a.carry) == 0 {
		f.Raw, f.InChunk, f.Start, f.End = a.p[a.evStart:end], true, a.evStart, end
	} else {
		a.carry = append(a.carry, a.p[a.evStart:end]...)
		f.Raw = a.carry
	}
	a.carry, a.evStart, a.lineOff = a.carry[:0], end, 0
	a.ev.Reset()
	a.dataAt, a.dataCount = [2]int{}, 0
	return f
}

// End ends the stream: the bytes of the event being read that no blank
// line ended are read as the event's last line, and the event is returned
// when it holds data, as a stream that ends without its last blank line
// still gives its last event (the SDKs read it so).
func (a *Assembler) End() (*Frame, bool) {
	pending := a.carry
	a.p, a.i, a.evStart = nil, 0, 0
	if a.over || len(pending) == 0 {
		return nil, false
	}
	if line := pending[a.lineOff:]; len(line) > 0 {
		a.field(a.lines.Line(line), false, 0, a.lineOff+len(line))
	}
	if !a.ev.HasData {
		return nil, false
	}
	return a.frame(0), true
}

// Overflow reports whether the event being read passed MaxEvent: the
// Assembler then reads nothing more, and Pending and Rest give what it
// held of that event and the chunk's bytes it did not read.
func (a *Assembler) Overflow() bool { return a.over }

// Pending returns the bytes of the event being read that came in earlier
// chunks, kept by the Assembler: at the end of a stream, an event its end
// never came for. They are the Assembler's, valid until the next Feed.
func (a *Assembler) Pending() []byte { return a.carry }

// Rest returns the bytes of the chunk from the start of the event being
// read on, which an Assembler that overflowed did not read.
func (a *Assembler) Rest() []byte { return a.p[a.evStart:] }

// Begun reports whether a line of the stream was read.
func (a *Assembler) Begun() bool { return a.lines.Begun() }

// Plain reports whether the chunk being read holds no '\r' (see
// Lines.Plain).
func (a *Assembler) Plain() bool { return a.lines.Plain() }

// Release lets go of the Assembler's buffers, for a reader that is done
// with the stream but may be kept until the response is copied.
func (a *Assembler) Release() {
	a.carry, a.ev, a.p, a.f = nil, Event{}, nil, Frame{}
}

// Size returns the bytes the Assembler holds of the event being read.
func (a *Assembler) Size() int { return len(a.carry) + a.ev.Size() }
