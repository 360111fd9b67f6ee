package observe

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// Message is what a whole JSON answer says: its thinking and
// redacted_thinking blocks with their keys, in content order, the model it
// names ("" when none) and its usage.
type Message struct {
	Blocks []block.Observed
	Model  string
	Usage  Usage
}

// ReadMessage reads a whole JSON Messages answer. Past the check that it
// is JSON, it is walked once: the content array where it stands, each of
// its blocks by its own members (a duplicate member counts as its last).
func ReadMessage(body []byte) (Message, error) {
	if !jsonscan.Valid(body) {
		return Message{}, errors.New("observe: response body is not valid JSON")
	}
	var typ, usage, model []byte
	var buf [32]byte
	var m Message
	var contentErr error = errNoContent
	it := members(body)
	for k, v, ok := it.Next(); ok; k, v, ok = it.Next() {
		switch string(jsonscan.Name(k, &buf)) {
		case "type":
			typ = valueAt(body, &it, v)
		case "content":
			var end int
			if m.Blocks, end, contentErr = contentBlocks(body, v); contentErr == nil {
				it.SetEnd(end)
			} // else the iterator skips it, or fails
		case "usage":
			usage = valueAt(body, &it, v)
		case "model":
			model = valueAt(body, &it, v)
		}
	}
	if it.Err() != nil || string(jsonscan.Name(typ, &buf)) != "message" {
		return Message{}, errors.New("observe: response body is not a message object")
	}
	m.Model = string(appendModelValue(nil, model))
	m.Usage.read(usage)
	if contentErr != nil {
		m.Blocks = nil
	}
	return m, contentErr
}

// valueAt skips the value of it's current item, which starts at b[v], and
// returns it.
func valueAt(b []byte, it *jsonscan.Iter, v int) []byte {
	end, ok := it.Skip()
	if !ok {
		return nil
	}
	return b[v:end]
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
			return nil, fmt.Errorf("observe: bad gzip response body: %w", err)
		}
		return zr, nil
	}
	return nil, fmt.Errorf("observe: cannot read a response body with Content-Encoding %q", contentEncoding)
}

// errNoContent is a message's content that is not an array.
var errNoContent = errors.New("observe: response content is not an array")

// contentBlocks returns the thinking and redacted_thinking blocks of the
// content array that starts at body[i], and where it ends.
func contentBlocks(body []byte, i int) ([]block.Observed, int, error) {
	var blocks []block.Observed
	var h block.Hasher
	var scratchBuf [256]byte
	scratch := scratchBuf[:0]
	var buf [32]byte
	elems := jsonscan.Elements(body, i)
	index := 0
	for _, v, ok := elems.Next(); ok; _, v, ok = elems.Next() {
		f, err := block.ReadFields(body, v, &buf)
		if err != nil {
			index++
			continue // not an object: elems skips it
		}
		elems.SetEnd(f.End)
		if f.Kind != 0 {
			var key block.Key
			if key, scratch, ok = h.Key(body, f, scratch); !ok {
				return nil, f.End, fmt.Errorf("observe: %s block at content index %d has a field that is not a string", f.Kind, index)
			}
			blocks = append(blocks, block.Observed{Kind: f.Kind, Index: index, Key: key})
		}
		index++
	}
	if elems.Err() != nil {
		return nil, 0, errNoContent
	}
	return blocks, elems.End(), nil
}
