package toolargs

// jsonTail follows tool-call arguments as their fragments pass, to finish
// them when the server stopped in the middle (max_tokens, a cut stream): the
// fragments already went to the client, so the repair is what comes after
// them. It stops at the first byte that is not JSON (or nests too deep): the
// bytes before it are a valid prefix, and its state is that prefix's, so the
// repair still completes what the client got. It keeps a bounded stack of
// one bit a level (a state only for the innermost: an outer container
// always expects a comma or its end once its inner one closes) and no
// text.
type jsonTail struct {
	objects uint64   // for the first 64 open containers, by depth: set for '{', clear for '['
	deeper  []uint64 // the same for the levels past 64, when arguments nest that deep
	inner   tailState
	depth   int
	top     tailState // where the value at top level stands
	broken  bool      // a byte was not JSON: nothing after it is followed

	inString, escape, key bool
	hex                   int    // hex digits still due in a \u escape
	literal               string // the rest of true, false or null being written
	num                   numState
}

// maxArgumentDepth bounds the nesting the repair follows: MaxDepth, as
// whole arguments are bounded (see Input), so that streamed and whole
// ones are read alike.
const maxArgumentDepth = MaxDepth

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

// feed follows the next fragment and returns how many of its bytes keep
// the arguments a JSON prefix: all of them, until one does not.
func (t *jsonTail) feed(p []byte) int {
	if t.broken {
		return 0
	}
	for i, c := range p {
		if t.step(c); t.broken {
			return i
		}
	}
	return len(p)
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
	case t.num != notNumber:
		if next := t.num.next(c); next != notNumber {
			t.num = next
			return
		}
		if !t.num.final() {
			t.broken = true
			return
		}
		t.num = notNumber
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
	case (c == '}' || c == ']') && t.depth > 0 && (st == wantCommaOrEnd || st == wantFirst) && closes(t.kind(t.depth-1), c):
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
		t.push(c == '{')
	case c == '"':
		t.inString, t.key = true, false
	case c == 't':
		t.literal = "rue"
	case c == 'f':
		t.literal = "alse"
	case c == 'n':
		t.literal = "ull"
	case c >= '0' && c <= '9' || c == '-':
		t.num = notNumber.next(c)
	default:
		t.broken = true
	}
}

func (t *jsonTail) stringByte(c byte) {
	switch {
	case t.hex > 0:
		if !isHex(c) {
			t.broken = true
			return
		}
		t.hex--
	case t.escape:
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			t.hex = 4
		default:
			t.broken = true
			return
		}
		t.escape = false
	case c < 0x20:
		t.broken = true
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
	t.inner = wantCommaOrEnd
}

func (t *jsonTail) expect() tailState {
	if t.depth == 0 {
		if t.top == done {
			return done
		}
		return wantValue
	}
	return t.inner
}

func (t *jsonTail) set(s tailState) {
	if t.depth == 0 {
		t.top = s
		return
	}
	t.inner = s
}

func (t *jsonTail) inObject() bool { return t.depth > 0 && t.kind(t.depth-1) == '{' }

// push opens a container, an object or an array, expecting its first
// member or element.
func (t *jsonTail) push(object bool) {
	i := t.depth
	bit := uint64(1) << (i % 64)
	words := &t.objects
	if i >= 64 {
		for len(t.deeper) <= i/64-1 {
			t.deeper = append(t.deeper, 0)
		}
		words = &t.deeper[i/64-1]
	}
	if object {
		*words |= bit
	} else {
		*words &^= bit
	}
	t.depth++
	t.inner = wantFirst
}

// kind returns the opening byte of the container open at depth i.
func (t *jsonTail) kind(i int) byte {
	w := t.objects
	if i >= 64 {
		w = t.deeper[i/64-1]
	}
	if w&(1<<(i%64)) != 0 {
		return '{'
	}
	return '['
}

// complete reports whether the arguments followed are one whole JSON value
// (or nothing at all).
func (t *jsonTail) complete() bool {
	return !t.inString && t.literal == "" && t.num == notNumber && t.depth == 0
}

// appendRepair appends what makes the arguments followed one JSON value:
// nothing when they are whole. When the tail stopped at a byte that was
// not JSON, that is the repair of the bytes before it.
func (t *jsonTail) appendRepair(dst []byte) []byte {
	if t.complete() {
		return dst
	}
	open := t.inString || t.literal != "" || t.num != notNumber
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
	if t.num != notNumber && !t.num.final() {
		dst = append(dst, '0')
	}
	if !open && t.depth > 0 {
		switch t.inner {
		case wantColon:
			dst = append(dst, ":null"...)
		case wantValue:
			dst = append(dst, "null"...)
		case wantKey:
			dst = append(dst, `"":null`...)
		}
	}
	for i := t.depth - 1; i >= 0; i-- {
		if t.kind(i) == '{' {
			dst = append(dst, '}')
		} else {
			dst = append(dst, ']')
		}
	}
	return dst
}

func closes(open, c byte) bool { return open == '{' && c == '}' || open == '[' && c == ']' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// numState is where a number stands in JSON's grammar.
type numState uint8

const (
	notNumber    numState = iota
	numMinus              // "-": a digit is due
	numZero               // a leading 0
	numInt                // digits of the integer part
	numDot                // ".": a digit is due
	numFrac               // digits of the fraction
	numE                  // "e": a sign or a digit is due
	numExpSign            // the exponent's sign: a digit is due
	numExpDigits          // digits of the exponent
)

// next is the state after c, notNumber when c cannot come next.
func (n numState) next(c byte) numState {
	digit := isDigit(c)
	switch n {
	case notNumber:
		switch {
		case c == '-':
			return numMinus
		case c == '0':
			return numZero
		case digit:
			return numInt
		}
	case numMinus:
		switch {
		case c == '0':
			return numZero
		case digit:
			return numInt
		}
	case numZero, numInt, numFrac:
		switch {
		case digit && n != numZero:
			return n
		case c == '.' && n != numFrac:
			return numDot
		case c == 'e' || c == 'E':
			return numE
		}
	case numDot:
		if digit {
			return numFrac
		}
	case numE:
		switch {
		case c == '+' || c == '-':
			return numExpSign
		case digit:
			return numExpDigits
		}
	case numExpSign, numExpDigits:
		if digit {
			return numExpDigits
		}
	}
	return notNumber
}

// final reports whether a number may end in state n.
func (n numState) final() bool {
	return n == numZero || n == numInt || n == numFrac || n == numExpDigits
}
