package observe

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"

	"fmt"
	"io"
	"math"
)

// JSON observes a non-streaming Messages response as the handler does:
// it holds the body, up to limit bytes, and reads its blocks with
// Decompressor and ReadMessage once it is whole. The tests drive the
// production functions through it.
type JSON struct {
	limit    int64
	encoding string
	body     []byte
	overflow bool
	model    string
}

// NewJSON returns an observer for a body with the given Content-Encoding
// ("" / "identity" or "gzip"; anything else makes Blocks return an error
// saying which encoding it cannot read). A negative limit counts as zero.
func NewJSON(limit int64, contentEncoding string) *JSON {
	return &JSON{limit: max(limit, 0), encoding: contentEncoding}
}

// Write copies p into the observer's own buffer, up to limit bytes in all;
// past the limit it stops buffering and remembers that the body overflowed.
// It always returns len(p), nil.
func (j *JSON) Write(p []byte) (int, error) {
	if j.overflow {
		return len(p), nil
	}
	if room := j.limit - int64(len(j.body)); int64(len(p)) > room {
		j.body = append(j.body, p[:room]...)
		j.overflow = true
		return len(p), nil
	}
	j.body = append(j.body, p...)
	return len(p), nil
}

// Blocks decodes the body seen so far and returns the thinking and
// redacted_thinking blocks of its top-level "content" array, with their keys,
// in content order. Blocks of other types are skipped. It fails when the
// body overflowed, cannot be decompressed within limit bytes, is not valid
// JSON or is not a message object.
func (j *JSON) Blocks() ([]block.Observed, error) {
	body, err := j.decoded()
	if err != nil {
		return nil, err
	}
	m, err := ReadMessage(body)
	blocks, model := m.Blocks, m.Model
	j.model = model
	return blocks, err
}

// Model returns the model the body names, once Blocks read it; "" when it
// names none.
func (j *JSON) Model() string { return j.model }

// decoded returns the body with its content encoding removed.
func (j *JSON) decoded() ([]byte, error) {
	if j.overflow {
		return nil, fmt.Errorf("observe: response body exceeds %d bytes", j.limit)
	}
	return Decode(j.body, j.encoding, j.limit)
}

// Decode returns a response body with its Content-Encoding ("" / identity
// or gzip) removed, refusing to produce more than limit bytes.
func Decode(body []byte, contentEncoding string, limit int64) ([]byte, error) {
	zr, err := Decompressor(body, contentEncoding)
	if zr == nil || err != nil {
		return body, err
	}
	return gunzip(zr, limit)
}

// gunzip reads a decompressing reader, refusing to produce more than limit
// bytes.
func gunzip(zr io.Reader, limit int64) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(zr, min(limit, math.MaxInt64-1)+1))
	if err != nil {
		return nil, fmt.Errorf("observe: bad gzip response body: %w", err)
	}
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("observe: decompressed response body exceeds %d bytes", limit)
	}
	return out, nil
}
