package chatcompletions

// jsonTail follows tool-call arguments as their fragments pass, to finish
// them when the server stopped in the middle (max_tokens, a cut stream): the
// fragments already went to the client, so the repair is what comes after
// them. It keeps a bounded stack and no text.
type jsonTail struct {
	stack  [maxArgumentDepth]byte // for each open container: '{' or '['
	state  [maxArgumentDepth]tailState
	depth  int
	top    tailState // where the value at top level stands
	broken bool      // not JSON, or nested too deep: no repair

	inString, escape, key bool
	hex                   int    // hex digits still due in a \u escape
	literal               string // the rest of true, false or null being written
	number                bool
	lastNumber            byte
}

// maxArgumentDepth bounds the nesting the repair follows.
const maxArgumentDepth = 64

// tailState is what a container (or the top level) expects next.
type tailState uint8

const (
	wantValue      tailState = iota // a value (at the top, after ':' or ',' in an array)
	wantFirst                       // the first member or element, or the end
	wantKey                         // a key after ','
	wantColon                       // ':' after a key
	wantCommaOrEnd                  // ',' or the end, after a value
	done                            // the top-level value is complete
)

// feed follows the next fragment.
func (t *jsonTail) feed(p []byte) {
	for _, c := range p {
		if t.broken {
			return
		}
		t.step(c)
	}
}

func (t *jsonTail) step(c byte) {
	switch {
	case t.inString:
		t.stringByte(c)
		return
	case t.literal != "":
		if c != t.literal[0] {
			t.broken = true
			return
		}
		if t.literal = t.literal[1:]; t.literal == "" {
			t.valueDone()
		}
		return
	case t.number:
		if isNumberByte(c) {
			t.lastNumber = c
			return
		}
		t.number = false
		t.valueDone()
	}
	if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
		return
	}
	st := t.expect()
	switch {
	case c == '"' && (st == wantFirst && t.inObject() || st == wantKey):
		t.inString, t.key = true, true
	case c == ':' && st == wantColon:
		t.set(wantValue)
	case c == ',' && st == wantCommaOrEnd && t.depth > 0:
		if t.inObject() {
			t.set(wantKey)
		} else {
			t.set(wantValue)
		}
	case (c == '}' || c == ']') && t.depth > 0 && (st == wantCommaOrEnd || st == wantFirst) && closes(t.stack[t.depth-1], c):
		t.depth--
		t.valueDone()
	case st == wantValue || st == wantFirst && !t.inObject():
		t.value(c)
	default:
		t.broken = true
	}
}

func (t *jsonTail) value(c byte) {
	switch {
	case c == '{' || c == '[':
		if t.depth == maxArgumentDepth {
			t.broken = true
			return
		}
		t.stack[t.depth], t.state[t.depth] = c, wantFirst
		t.depth++
	case c == '"':
		t.inString, t.key = true, false
	case c == 't':
		t.literal = "rue"
	case c == 'f':
		t.literal = "alse"
	case c == 'n':
		t.literal = "ull"
	case c == '-' || c >= '0' && c <= '9':
		t.number, t.lastNumber = true, c
	default:
		t.broken = true
	}
}

func (t *jsonTail) stringByte(c byte) {
	switch {
	case t.hex > 0:
		t.hex--
	case t.escape:
		t.escape = false
		if c == 'u' {
			t.hex = 4
		}
	case c == '\\':
		t.escape = true
	case c == '"':
		t.inString = false
		if t.key {
			t.set(wantColon)
		} else {
			t.valueDone()
		}
	}
}

// valueDone records that a value ended where the innermost container (or
// the top level) expected one.
func (t *jsonTail) valueDone() {
	if t.depth == 0 {
		t.top = done
		return
	}
	t.state[t.depth-1] = wantCommaOrEnd
}

func (t *jsonTail) expect() tailState {
	if t.depth == 0 {
		if t.top == done {
			return done
		}
		return wantValue
	}
	return t.state[t.depth-1]
}

func (t *jsonTail) set(s tailState) {
	if t.depth == 0 {
		t.top = s
		return
	}
	t.state[t.depth-1] = s
}

func (t *jsonTail) inObject() bool { return t.depth > 0 && t.stack[t.depth-1] == '{' }

// complete reports whether the arguments so far are one whole JSON value
// (or nothing at all).
func (t *jsonTail) complete() bool {
	return !t.broken && !t.inString && t.literal == "" && !t.number && t.depth == 0
}

// appendRepair appends what makes the arguments so far one JSON value;
// nothing when they are whole or cannot be repaired.
func (t *jsonTail) appendRepair(dst []byte) []byte {
	if t.broken || t.complete() {
		return dst
	}
	open := t.inString || t.literal != "" || t.number
	if t.inString {
		switch {
		case t.hex > 0:
			for range t.hex {
				dst = append(dst, '0')
			}
		case t.escape:
			dst = append(dst, '\\')
		}
		dst = append(dst, '"')
		if t.key {
			dst = append(dst, ":null"...)
		}
	}
	dst = append(dst, t.literal...)
	if t.number && !isDigit(t.lastNumber) {
		dst = append(dst, '0')
	}
	if !open && t.depth > 0 {
		switch t.state[t.depth-1] {
		case wantColon:
			dst = append(dst, ":null"...)
		case wantValue:
			dst = append(dst, "null"...)
		case wantKey:
			dst = append(dst, `"":null`...)
		}
	}
	for i := t.depth - 1; i >= 0; i-- {
		if t.stack[i] == '{' {
			dst = append(dst, '}')
		} else {
			dst = append(dst, ']')
		}
	}
	return dst
}

func closes(open, c byte) bool { return open == '{' && c == '}' || open == '[' && c == ']' }

func isNumberByte(c byte) bool {
	return isDigit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
