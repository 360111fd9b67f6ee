package streaming

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// JSON observes a non-streaming Messages response (a JSON body), up to limit
// bytes. A JSON is not safe for concurrent use.
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
func (j *JSON) Blocks() ([]Block, error) {
	body, err := j.decoded()
	if err != nil {
		return nil, err
	}
	blocks, model, err := MessageBlocks(body)
	j.model = model
	return blocks, err
}

// MessageBlocks returns the thinking and redacted_thinking blocks of a
// whole JSON message body, decoded already, as Blocks does, and the model
// the message names ("" for none). A caller that holds the body itself
// reads it with this.
func MessageBlocks(body []byte) ([]Block, string, error) {
	if !jsonscan.Valid(body) {
		return nil, "", errors.New("streaming: response body is not valid JSON")
	}
	var typ, content []byte
	var buf [32]byte
	it := members(body)
	for k, v, ok := it.Item(); ok; k, v, ok = it.Item() {
		switch string(jsonscan.Name(k, &buf)) {
		case "type":
			typ = v
		case "content":
			content = v
		}
	}
	if it.Err() != nil || string(jsonscan.Name(typ, &buf)) != "message" {
		return nil, "", errors.New("streaming: response body is not a message object")
	}
	model := string(appendModel(nil, body, ""))
	blocks, err := contentBlocks(content)
	return blocks, model, err
}

// Model returns the model the body names, once Blocks read it; "" when it
// names none.
func (j *JSON) Model() string { return j.model }

// decoded returns the body with its content encoding removed.
func (j *JSON) decoded() ([]byte, error) {
	if j.overflow {
		return nil, fmt.Errorf("streaming: response body exceeds %d bytes", j.limit)
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

// Decompressor returns a reader of body with its Content-Encoding ("" /
// identity or gzip) removed, or nil when it has none. The caller bounds
// what it reads: a small body can expand into an unbounded one.
func Decompressor(body []byte, contentEncoding string) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(contentEncoding)) {
	case "", "identity":
		return nil, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("streaming: bad gzip response body: %w", err)
		}
		return zr, nil
	}
	return nil, fmt.Errorf("streaming: cannot read a response body with Content-Encoding %q", contentEncoding)
}

// gunzip reads a decompressing reader, refusing to produce more than limit
// bytes.
func gunzip(zr io.Reader, limit int64) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(zr, min(limit, math.MaxInt64-1)+1))
	if err != nil {
		return nil, fmt.Errorf("streaming: bad gzip response body: %w", err)
	}
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("streaming: decompressed response body exceeds %d bytes", limit)
	}
	return out, nil
}

// contentBlocks returns the thinking and redacted_thinking blocks of a
// message's content array.
func contentBlocks(content []byte) ([]Block, error) {
	var blocks []Block
	var h block.Hasher
	var scratch []byte
	elems := elements(content)
	for index := 0; ; index++ {
		_, v, ok := elems.Item()
		if !ok {
			break
		}
		f, ok := readBlock(v)
		if !ok || f.Kind == 0 {
			continue
		}
		var key block.Key
		if key, scratch, ok = h.Key(v, f, scratch); !ok {
			return nil, fmt.Errorf("streaming: %s block at content index %d has a field that is not a string", f.Kind, index)
		}
		blocks = append(blocks, Block{Kind: f.Kind, Index: index, Key: key})
	}
	if elems.Err() != nil {
		return nil, errors.New("streaming: response content is not an array")
	}
	return blocks, nil
}
