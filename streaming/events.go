package streaming

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/eventstream"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// Bounds on what one response can make an SSE hold. Past any of them the
// observer gives up on the response rather than grow or guess.
const (
	// maxSignature bounds a decoded signature; real ones are a few KiB.
	maxSignature = 64 << 10
	// maxIndex is the largest content block index followed; events for
	// larger ones are ignored, so their blocks are never reported.
	maxIndex = 1024
	// maxOpen bounds the thinking blocks started and not yet stopped.
	// Servers stream blocks one after the other.
	maxOpen = 16
	// maxFinished bounds the blocks reported for one response.
	maxFinished = maxIndex + 1
)

// openBlock is a thinking or redacted_thinking block being streamed. Its
// hasher and signature buffer are kept when the block finishes, for the next
// block of the response to reuse.
type openBlock struct {
	index int
	kind  block.Kind
	text  block.Hasher
	sig   []byte
	key   block.Key // a redacted block's, known from its start
}

// deltaPrefix starts the data of a content_block_delta event as the
// Messages API writes it.
const deltaPrefix = `{"type":"content_block_delta","index":`

// event applies the data of one event to the response. Data that is not a
// JSON object, such as "[DONE]", is ignored.
func (s *SSE) event(data []byte) {
	var typ, index, block, delta []byte
	var buf [32]byte
	it := members(data)
	for k, v, ok := it.Item(); ok; k, v, ok = it.Item() {
		switch string(jsonscan.Name(k, &buf)) {
		case "type":
			typ = v
		case "index":
			index = v
		case "delta":
			delta = v
		case "content_block":
			block = v
		}
	}
	if it.Err() != nil {
		return
	}
	switch string(jsonscan.Name(typ, &buf)) {
	case "content_block_delta":
		// Nearly every event, and most are for text or tool_use blocks,
		// which are not followed.
		if b := s.find(index); b >= 0 {
			s.delta(&s.open[b], delta)
		}
	case "content_block_start":
		if i, ok := eventstream.Index(index, maxIndex); ok {
			s.start(i, block)
		}
	case "content_block_stop":
		if b := s.find(index); b >= 0 {
			s.stop(b)
		}
	case "message_start":
		s.model = appendModel(s.model[:0], data, "message")
	case "message_stop":
		s.report()
	case "error":
		s.quit()
	}
}

// unfollowedDelta reports whether the first data line of an event starts
// as the API writes a delta ({"type":"content_block_delta","index":N,...)
// of a block the observer does not follow (text, tool input): nearly every
// event of a response, which then costs a comparison, and its data is not
// even kept. The rest of the event does not matter: whatever a delta of
// such a block says, nothing follows from it.
func (s *SSE) unfollowedDelta(data []byte) bool {
	rest, ok := bytes.CutPrefix(data, []byte(deltaPrefix))
	return ok && s.unfollowedIndex(rest)
}

// unfollowedIndex reports whether rest, what follows the delta prefix,
// starts with the index of a block not followed and a comma.
func (s *SSE) unfollowedIndex(rest []byte) bool {
	end := bytes.IndexByte(rest, ',')
	if end < 0 {
		return false
	}
	i, ok := eventstream.Index(rest[:end], maxIndex)
	return ok && s.slot(i) < 0
}

// find returns the slot in s.open of the block whose index literal is
// given, or -1 when that block is not followed.
func (s *SSE) find(index []byte) int {
	if len(s.open) == 0 {
		return -1
	}
	i, ok := eventstream.Index(index, maxIndex)
	if !ok {
		return -1
	}
	return s.slot(i)
}

// slot returns the slot in s.open of the block at index, or -1.
func (s *SSE) slot(index int) int {
	for b := range s.open {
		if s.open[b].index == index {
			return b
		}
	}
	return -1
}

// start begins the block at index. A block still open at that index is
// dropped: the index now names the new block.
func (s *SSE) start(index int, obj []byte) {
	if b := s.slot(index); b >= 0 {
		s.drop(b)
	}
	f, ok := readBlock(obj)
	if !ok || f.Kind == 0 {
		return
	}
	b := s.openBlock(index, f.Kind)
	if b == nil {
		return
	}
	if f.Kind == block.Redacted {
		b.key, s.scratch, ok = b.text.Key(obj, f, s.scratch)
	} else if s.scratch, ok = b.text.WriteString(s.scratch, f.Thinking.Of(obj)); ok {
		s.setSignature(b, f.Signature.Of(obj))
	}
	if !ok {
		s.quit()
	}
}

// delta applies a content_block_delta to an open block. Deltas of a type
// that does not fit the block are ignored, as the SDKs ignore them.
//
// Each delta is decoded on its own, as the client parses each event. A
// surrogate pair escaped across two deltas, which no server has been seen to
// send, decodes here as two U+FFFD but joins into one character in a
// JavaScript client; that block's key will not match its replay.
func (s *SSE) delta(b *openBlock, delta []byte) {
	if b.kind != block.Thinking {
		return
	}
	var typ, text, sig []byte
	var buf [32]byte
	it := members(delta)
	for k, v, ok := it.Item(); ok; k, v, ok = it.Item() {
		switch string(jsonscan.Name(k, &buf)) {
		case "type":
			typ = v
		case "thinking":
			text = v
		case "signature":
			sig = v
		}
	}
	if it.Err() != nil {
		return
	}
	switch string(jsonscan.Name(typ, &buf)) {
	case "thinking_delta":
		var ok bool
		if s.scratch, ok = b.text.WriteString(s.scratch, text); !ok {
			s.quit()
		}
	case "signature_delta":
		s.setSignature(b, sig)
	}
}

// setSignature sets the block's signature. A signature_delta replaces the
// signature rather than extending it, as the Anthropic SDKs' message
// accumulators do: the client replays the last one it got.
func (s *SSE) setSignature(b *openBlock, sig []byte) {
	var ok bool
	if b.sig, ok = block.AppendString(b.sig[:0], sig); !ok || len(b.sig) > maxSignature {
		s.quit()
	}
}

// stop finishes the block in slot b.
func (s *SSE) stop(b int) {
	if len(s.finished) == maxFinished {
		s.quit()
		return
	}
	o := &s.open[b]
	key := o.key
	if o.kind == block.Thinking {
		key = o.text.Thinking(o.sig)
	}
	s.finished = append(s.finished, Block{Kind: o.kind, Index: o.index, Key: key})
	s.drop(b)
}

// openBlock starts following a block, reusing the buffers of a finished one.
func (s *SSE) openBlock(index int, kind block.Kind) *openBlock {
	if len(s.open) == maxOpen {
		s.quit()
		return nil
	}
	if len(s.open) < cap(s.open) {
		s.open = s.open[:len(s.open)+1]
	} else {
		s.open = append(s.open, openBlock{})
	}
	b := &s.open[len(s.open)-1]
	b.index, b.kind, b.sig = index, kind, b.sig[:0]
	b.text.Reset()
	return b
}

// drop stops following the block in slot b, keeping its buffers past the
// end of s.open.
func (s *SSE) drop(b int) {
	last := len(s.open) - 1
	s.open[b], s.open[last] = s.open[last], s.open[b]
	s.open = s.open[:last]
}
