package chatcompletions

import "github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"

// chunk is what one streamed chat-completions chunk carries, as spans of
// its data: string fields as literals with their quotes, the rest as
// values. It points into the data.
type chunk struct {
	id        []byte // string literal
	err       []byte // the error member, any value
	usage     []byte // object
	reasoning []byte // reasoning_content, else reasoning: a string literal
	details   []byte // reasoning_details: an array
	content   []byte // string literal
	toolCalls []byte // array
	finish    []byte // string literal
	bad       bool   // malformed, or a literal copied to the client is not valid JSON
	seen      bool   // the first choice was read
}

// parseChunk reads a chunk's data. It reports false for anything but an
// object, and for an object whose structure breaks or whose literals that
// go to the client as they are are not valid JSON; the rest of the chunk
// is not validated, so no chunk costs a full validation.
func parseChunk(data []byte, c *chunk) bool {
	*c = chunk{}
	if len(data) == 0 || data[0] != '{' {
		return false
	}
	var buf [32]byte
	m := jsonscan.Members(data, 0)
	for key, at, ok := m.Next(); ok; key, at, ok = m.Next() {
		name := jsonscan.Name(key, &buf)
		if string(name) == "choices" && data[at] == '[' {
			// Walked once, not skipped and walked again.
			m.SetEnd(c.choices(data, at))
			continue
		}
		v, ok := skip(&m, data, at)
		if !ok {
			break
		}
		switch string(name) {
		case "id":
			c.id = stringLit(v)
		case "error":
			if string(v) != "null" {
				c.err = v
			}
		case "usage":
			if v[0] == '{' {
				c.usage = v
			}
		}
	}
	return m.Err() == nil && !c.bad && jsonscan.SkipSpace(data, m.End()) == len(data)
}

// literal returns v when it is a valid string literal, else nil; a literal
// that starts as one but is not valid marks the chunk bad.
func (c *chunk) literal(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	if !jsonscan.Valid(v) {
		c.bad = true
		return nil
	}
	return v
}

// choices reads the first choice of the choices array at data[at] (a
// client that asks for one choice gets one) and returns where the array
// ends, or len(data) when it is malformed.
func (c *chunk) choices(data []byte, at int) int {
	var buf [32]byte
	el := jsonscan.Elements(data, at)
	for _, v, ok := el.Next(); ok; _, v, ok = el.Next() {
		if data[v] != '{' || c.seen {
			el.Skip()
			continue
		}
		c.seen = true
		m := jsonscan.Members(data, v)
		for key, dv, ok := m.Next(); ok; key, dv, ok = m.Next() {
			name := jsonscan.Name(key, &buf)
			if (string(name) == "delta" || string(name) == "message") && data[dv] == '{' {
				m.SetEnd(c.delta(data, dv))
				continue
			}
			fv, ok := skip(&m, data, dv)
			if !ok {
				break
			}
			if string(name) == "finish_reason" {
				c.finish = stringLit(fv)
			}
		}
		if m.Err() != nil {
			c.bad = true
			return len(data)
		}
		el.SetEnd(m.End())
	}
	if el.Err() != nil {
		c.bad = true
		return len(data)
	}
	return el.End()
}

// delta reads the delta object at data[at] and returns where it ends, or
// len(data) when it is malformed.
func (c *chunk) delta(data []byte, at int) int {
	var buf [32]byte
	var reasoning []byte
	m := jsonscan.Members(data, at)
	for key, vs, ok := m.Next(); ok; key, vs, ok = m.Next() {
		v, ok := skip(&m, data, vs)
		if !ok {
			break
		}
		switch string(jsonscan.Name(key, &buf)) {
		case "content":
			c.content = nonEmpty(c.literal(v))
		case "reasoning_content":
			c.reasoning = nonEmpty(c.literal(v))
		case "reasoning":
			reasoning = nonEmpty(c.literal(v))
		case "reasoning_details":
			if v[0] == '[' {
				c.details = v
			}
		case "tool_calls":
			if v[0] == '[' {
				c.toolCalls = v
			}
		}
	}
	// Some servers mirror reasoning_content in reasoning: one is read.
	// OpenRouter sends the same text as reasoning and in
	// reasoning_details: the Stream reads one (see Stream.reasoning).
	if c.reasoning == nil {
		c.reasoning = reasoning
	}
	if m.Err() != nil {
		c.bad = true
		return len(data)
	}
	return m.End()
}

// stringLit returns v when it is a string literal, else nil.
func stringLit(v []byte) []byte {
	if len(v) >= 2 && v[0] == '"' {
		return v
	}
	return nil
}

// nonEmpty returns nil for the empty literal "".
func nonEmpty(lit []byte) []byte {
	if len(lit) <= 2 {
		return nil
	}
	return lit
}

// detailText returns the text literal of a reasoning_details item
// (reasoning.text or reasoning.summary); encrypted items carry none, and
// neither does an item whose text is not a valid literal.
func detailText(item []byte) []byte {
	if item[0] != '{' {
		return nil
	}
	var buf [32]byte
	var text []byte
	it := jsonscan.Members(item, 0)
	for key, v, ok := it.Item(); ok; key, v, ok = it.Item() {
		switch string(jsonscan.Name(key, &buf)) {
		case "text", "summary":
			if t := nonEmpty(stringLit(v)); t != nil && jsonscan.Valid(t) {
				text = t
			}
		}
	}
	return text
}

// toolCallDelta is one element of a delta's tool_calls.
type toolCallDelta struct {
	index     int
	hasIndex  bool
	id, name  []byte // string literals
	arguments []byte // string literal
}

func (c *chunk) parseToolCall(v []byte, position int) (toolCallDelta, bool) {
	d := toolCallDelta{index: position}
	if v[0] != '{' {
		return d, false
	}
	var buf [32]byte
	it := jsonscan.Members(v, 0)
	for key, v, ok := it.Item(); ok; key, v, ok = it.Item() {
		switch string(jsonscan.Name(key, &buf)) {
		case "index":
			if n, ok := index(v); ok {
				d.index, d.hasIndex = n, true
			}
		case "id":
			d.id = nonEmpty(stringLit(v))
		case "function":
			if v[0] != '{' {
				continue
			}
			f := jsonscan.Members(v, 0)
			for k, fv, ok := f.Item(); ok; k, fv, ok = f.Item() {
				switch string(jsonscan.Name(k, &buf)) {
				case "name":
					d.name = nonEmpty(c.literal(fv))
				case "arguments":
					d.arguments = nonEmpty(c.literal(fv))
				}
			}
		}
	}
	return d, true
}

// index reads a small non-negative integer.
func index(v []byte) (int, bool) {
	if len(v) == 0 || len(v) > 6 {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// skip passes over the value of the member m is at, which starts at
// data[at], and returns it.
func skip(m *jsonscan.Iter, data []byte, at int) ([]byte, bool) {
	end, ok := m.Skip()
	if !ok {
		return nil, false
	}
	return data[at:end], true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
