package chatcompletions

import "github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"

// members walks the members of one object of a chunk: the chunk parser's
// hot path, lighter than jsonscan.Iter. next gives each key literal and
// where its value starts; the caller walks or skips the value and says
// where it ended with after.
type members struct {
	b     []byte
	i     int  // where the next separator or the end is looked for
	first bool // no member read yet
	end   int  // just past the closing brace, once reached
	bad   bool // the object is malformed
}

// objectAt starts walking the object at b[i].
func objectAt(b []byte, i int) members {
	if i >= len(b) || b[i] != '{' {
		return members{bad: true}
	}
	return members{b: b, i: i + 1, first: true}
}

// next returns the next member's key literal and where its value starts;
// false at the end of the object or when it is malformed.
func (m *members) next() (key []byte, value int, ok bool) {
	if m.bad || m.end > 0 {
		return nil, 0, false
	}
	b := m.b
	i := jsonscan.SkipSpace(b, m.i)
	if i >= len(b) {
		m.bad = true
		return nil, 0, false
	}
	if b[i] == '}' {
		m.end = i + 1
		return nil, 0, false
	}
	if !m.first {
		if b[i] != ',' {
			m.bad = true
			return nil, 0, false
		}
		i = jsonscan.SkipSpace(b, i+1)
	}
	m.first = false
	if i >= len(b) || b[i] != '"' {
		m.bad = true
		return nil, 0, false
	}
	kend, ok := jsonscan.SkipString(b, i)
	if !ok {
		m.bad = true
		return nil, 0, false
	}
	j := jsonscan.SkipSpace(b, kend)
	if j >= len(b) || b[j] != ':' {
		m.bad = true
		return nil, 0, false
	}
	v := jsonscan.SkipSpace(b, j+1)
	if v >= len(b) {
		m.bad = true
		return nil, 0, false
	}
	return b[i:kend], v, true
}

// after records where the current member's value ended.
func (m *members) after(end int) { m.i = end }

// skip passes over the value that starts at v and returns it.
func (m *members) skip(v int) ([]byte, bool) {
	end, ok := jsonscan.SkipValue(m.b, v)
	if !ok {
		m.bad = true
		return nil, false
	}
	m.i = end
	return m.b[v:end], true
}

// keyName returns what a key literal reads as: its contents, decoded only
// when they hold an escape ("\u0074ype" is "type" to every JSON parser).
// Keys are short; a loop finds a backslash in them faster than a call.
func keyName(lit []byte, buf *[32]byte) []byte {
	inner := lit[1 : len(lit)-1]
	for _, c := range inner {
		if c == '\\' {
			return jsonscan.Name(lit, buf)
		}
	}
	return inner
}
