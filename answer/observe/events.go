package observe

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/events"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
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

// event applies the data of one event to the response. Data that is not a
// JSON object, such as "[DONE]", is ignored.
func (s *SSE) event(data []byte) {
	if i, ok := events.DeltaIndex(data); ok && (i > maxIndex || s.slot(i) < 0) {
		// Nearly every event: a delta of a block not followed (text, tool
		// input), which needs nothing more than its index.
		return
	}
	ev, ok := events.Quick(data)
	if !ok {
		if ev, ok = events.Read(data); !ok {
			return
		}
	}
	switch ev.Type {
	case events.ContentBlockDelta:
		if b := s.find(ev); b >= 0 {
			s.delta(&s.open[b], &ev)
		}
	case events.ContentBlockStart:
		if ev.HasIndex && ev.Index <= maxIndex {
			s.start(ev.Index, ev.Block)
		}
	case events.ContentBlockStop:
		if b := s.find(ev); b >= 0 {
			s.stop(b)
		}
	case events.MessageStart:
		s.model = appendModel(s.model[:0], ev.Message, "")
		s.usage.read(jsonscan.Value(ev.Message).Get("usage"))
	case events.MessageDelta:
		s.usage.read(ev.Usage)
	case events.MessageStop:
		s.report()
	case events.Error:
		s.quit()
	}
}

// find returns the slot in s.open of the block the event is about, or -1
// when that block is not followed.
func (s *SSE) find(ev events.Event) int {
	if len(s.open) == 0 || !ev.HasIndex || ev.Index > maxIndex {
		return -1
	}
	return s.slot(ev.Index)
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
func (s *SSE) delta(b *openBlock, ev *events.Event) {
	if b.kind != block.Thinking {
		return
	}
	if d, ok := ev.ReadDelta(); ok {
		s.applyDelta(b, d)
	}
}

// followedDelta applies the delta event d, of the block in slot b, read
// in place when it is written as the API writes one.
func (s *SSE) followedDelta(b int, d events.RawDelta) {
	if s.open[b].kind != block.Thinking {
		return
	}
	if text, ok := d.PlainThinking(); ok {
		s.open[b].text.Write(text)
		return
	}
	if delta, ok := d.Delta(); ok {
		s.applyDelta(&s.open[b], delta)
		return
	}
	s.event(d.Data())
}

// applyDelta applies a delta of a thinking block.
func (s *SSE) applyDelta(b *openBlock, d events.Delta) {
	var ok bool
	switch d.Type {
	case events.ThinkingDelta:
		if d.Plain {
			b.text.Write(d.Field[1 : len(d.Field)-1])
		} else if s.scratch, ok = b.text.WriteString(s.scratch, d.Field); !ok {
			s.quit()
		}
	case events.SignatureDelta:
		s.setSignature(b, d.Field)
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
	s.finished = append(s.finished, block.Observed{Kind: o.kind, Index: o.index, Key: key})
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
