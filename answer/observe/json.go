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

// ReadMessage reads a whole JSON Messages answer.
func ReadMessage(body []byte) (Message, error) {
	if !jsonscan.Valid(body) {
		return Message{}, errors.New("observe: response body is not valid JSON")
	}
	var typ, content, usage, model []byte
	var buf [32]byte
	it := members(body)
	for k, v, ok := it.Item(); ok; k, v, ok = it.Item() {
		switch string(jsonscan.Name(k, &buf)) {
		case "type":
			typ = v
		case "content":
			content = v
		case "usage":
			usage = v
		case "model":
			model = v
		}
	}
	if it.Err() != nil || string(jsonscan.Name(typ, &buf)) != "message" {
		return Message{}, errors.New("observe: response body is not a message object")
	}
	m := Message{Model: string(appendModelValue(nil, model))}
	m.Usage.read(usage)
	var err error
	m.Blocks, err = contentBlocks(content)
	return m, err
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

// contentBlocks returns the thinking and redacted_thinking blocks of a
// message's content array.
func contentBlocks(content []byte) ([]block.Observed, error) {
	var blocks []block.Observed
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
			return nil, fmt.Errorf("observe: %s block at content index %d has a field that is not a string", f.Kind, index)
		}
		blocks = append(blocks, block.Observed{Kind: f.Kind, Index: index, Key: key})
	}
	if elems.Err() != nil {
		return nil, errors.New("observe: response content is not an array")
	}
	return blocks, nil
}
