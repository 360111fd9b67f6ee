package chatcompletions

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// The bulk of a stream is chunks of one piece of text or reasoning, which
// servers write byte for byte alike:
//
//	{"id":"…","object":"chat.completion.chunk","created":1,"model":"…","choices":[{"index":0,"delta":{"content":"…"},"finish_reason":null}]}
//
// with reasoning_content or reasoning in place of content, and with
// "system_fingerprint":"…" after the model and "logprobs":null before the
// finish reason where a server writes them.
// fastChunk recognizes such a chunk by comparing its bytes with this shape,
// instead of walking its members as parseChunk does; any other chunk, down
// to a space, another key order or an escape in a key, is left to
// parseChunk. Nothing it passes over changes what parseChunk reads: the id
// is delimited as parseChunk delimits it, created and model are not read,
// and the one literal read is validated as parseChunk validates it.

// The fixed parts of the shape, in order, around the id, created, model,
// system_fingerprint and the delta's field and literal.
const (
	fastID          = `{"id":`
	fastObject      = `,"object":"chat.completion.chunk","created":`
	fastModel       = `,"model":`
	fastFingerprint = `,"system_fingerprint":`
	fastChoice      = `,"choices":[{"index":0,"delta":{"`
	fastEnd         = `},"finish_reason":null}]}`
	fastLogprobsEnd = `},"logprobs":null,"finish_reason":null}]}`
)

// fastChunk reads data as parseChunk would when it is a chunk of the shape
// above, and reports whether it was; when not, c is left for parseChunk.
func fastChunk(data []byte, c *chunk) bool {
	if !bytes.HasPrefix(data, []byte(fastID)) {
		return false
	}
	idEnd, ok := jsonscan.SkipString(data, len(fastID))
	if !ok || !bytes.HasPrefix(data[idEnd:], []byte(fastObject)) {
		return false
	}
	i := idEnd + len(fastObject)
	digits := i
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	if i == digits || !bytes.HasPrefix(data[i:], []byte(fastModel)) {
		return false
	}
	if i, ok = jsonscan.SkipString(data, i+len(fastModel)); !ok {
		return false
	}
	if bytes.HasPrefix(data[i:], []byte(fastFingerprint)) {
		if i, ok = jsonscan.SkipString(data, i+len(fastFingerprint)); !ok {
			return false
		}
	}
	if !bytes.HasPrefix(data[i:], []byte(fastChoice)) {
		return false
	}
	i += len(fastChoice)
	n, content, ok := deltaKey(data[i:])
	if !ok {
		return false
	}
	i += n
	// The literal runs from i to the fixed end; the two ends cannot both
	// match, as the byte before ,"finish_reason" differs.
	end := len(data) - len(fastEnd)
	if !bytes.HasSuffix(data, []byte(fastEnd)) {
		end = len(data) - len(fastLogprobsEnd)
		if !bytes.HasSuffix(data, []byte(fastLogprobsEnd)) {
			return false
		}
	}
	if end-i < 2 || data[i] != '"' || data[end-1] != '"' || !jsonscan.Valid(data[i:end]) {
		return false
	}
	lit := nonEmpty(data[i:end])
	*c = chunk{id: data[len(fastID):idEnd], seen: true}
	if content {
		c.content = lit
	} else {
		c.reasoning = lit
	}
	return true
}

// deltaKey matches the rest of the delta's key, its closing quote and
// colon at the start of b, and returns their length and whether the key is
// content; the others are reasoning_content and reasoning, which parseChunk
// reads alike when either is alone in a delta. It reports false for any
// other key.
func deltaKey(b []byte) (n int, content, ok bool) {
	switch {
	case bytes.HasPrefix(b, []byte(`content":`)):
		return len(`content":`), true, true
	case bytes.HasPrefix(b, []byte(`reasoning_content":`)):
		return len(`reasoning_content":`), false, true
	case bytes.HasPrefix(b, []byte(`reasoning":`)):
		return len(`reasoning":`), false, true
	}
	return 0, false, false
}
