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
}

// parseChunk reads a chunk's data, which must be valid JSON. It reports
// false for anything but an object.
func parseChunk(data []byte, c *chunk) bool {
	*c = chunk{}
	var buf [32]byte
	it := jsonscan.Members(data, 0)
	for key, v, ok := it.Item(); ok; key, v, ok = it.Item() {
		switch string(jsonscan.Name(key, &buf)) {
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
		case "choices":
			if v[0] == '[' {
				c.choice(v)
			}
		}
	}
	return it.Err() == nil
}

// choice reads the first choice of a choices array; a client that asks
// for one choice gets one.
func (c *chunk) choice(arr []byte) {
	var buf [32]byte
	el := jsonscan.Elements(arr, 0)
	_, v, ok := el.Item()
	if !ok || v[0] != '{' {
		return
	}
	it := jsonscan.Members(v, 0)
	for key, v, ok := it.Item(); ok; key, v, ok = it.Item() {
		switch string(jsonscan.Name(key, &buf)) {
		case "delta", "message":
			if v[0] == '{' {
				c.delta(v)
			}
		case "finish_reason":
			c.finish = stringLit(v)
		}
	}
}

func (c *chunk) delta(obj []byte) {
	var buf [32]byte
	var reasoning []byte
	it := jsonscan.Members(obj, 0)
	for key, v, ok := it.Item(); ok; key, v, ok = it.Item() {
		switch string(jsonscan.Name(key, &buf)) {
		case "content":
			c.content = nonEmpty(stringLit(v))
		case "reasoning_content":
			c.reasoning = nonEmpty(stringLit(v))
		case "reasoning":
			reasoning = nonEmpty(stringLit(v))
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
	// OpenRouter sends the same text as reasoning and in reasoning_details,
	// and some servers mirror reasoning_content in reasoning: one is read.
	switch {
	case c.reasoning != nil:
		c.details = nil
	case reasoning != nil:
		c.reasoning, c.details = reasoning, nil
	}
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
// (reasoning.text or reasoning.summary); encrypted items carry none.
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
			if t := nonEmpty(stringLit(v)); t != nil {
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

func parseToolCall(v []byte, position int) (toolCallDelta, bool) {
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
					d.name = nonEmpty(stringLit(fv))
				case "arguments":
					d.arguments = nonEmpty(stringLit(fv))
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
