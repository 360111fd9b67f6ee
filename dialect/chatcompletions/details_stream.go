package chatcompletions

import (
	"crypto/sha256"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// In a stream, the parts of reasoning_details ride with the thinking block
// open when they come, or, when none has opened yet, open it: their texts
// are its deltas, and its signature, when it closes, is their envelope.
// Parts that come after a text or a tool call wait for the next thinking
// block, or, when a tool call comes first, go in an empty thinking block
// right before its tool_use (Gemini signs a call after the text that
// introduces it); parts still waiting when the answer ends (Gemini's
// signature of an answer without calls, after its text) are not carried:
// a block after the text would hide the answer from Claude Code, which
// shows a message's last block, and Gemini does not check those.

// carriesDetails reports whether the stream seals reasoning_details in
// envelopes.
func (s *Stream) carriesDetails() bool { return s.opts.Details.Key != nil }

// reasoning writes the reasoning a chunk carries: with reasoning_details
// carried, its parts, else the text of a reasoning field; otherwise the
// reasoning field, else the texts of reasoning_details.
func (s *Stream) reasoning(dst []byte, c *chunk) []byte {
	if s.carriesDetails() {
		if c.details != nil && jsonscan.SkipSpace(c.details, 1) < len(c.details)-1 {
			return s.detailParts(dst, c.details)
		}
		if c.reasoning != nil {
			return s.reasoningLiteral(dst, c.reasoning, -1)
		}
		return dst
	}
	if c.reasoning != nil {
		return s.reasoningLiteral(dst, c.reasoning, -1)
	}
	if c.details != nil {
		el := jsonscan.Elements(c.details, 0)
		for _, v, ok := el.Item(); ok; _, v, ok = el.Item() {
			if t := detailText(v); t != nil {
				dst = s.reasoningLiteral(dst, t, -1)
			}
		}
	}
	return dst
}

// detailParts reads the parts of a chunk's reasoning_details.
func (s *Stream) detailParts(dst, arr []byte) []byte {
	el := jsonscan.Elements(arr, 0)
	for _, v, ok := el.Item(); ok; _, v, ok = el.Item() {
		if !jsonscan.Valid(v) {
			return s.Fail(dst, "api_error", "the upstream sent a chunk that is not a JSON object")
		}
		if s.blocks == 0 {
			dst = s.endTagDecision(dst)
			dst = s.openThinking(dst)
		}
		part, text, ok := s.det.add(v, true)
		if !ok {
			return s.Fail(dst, "api_error", "the upstream's reasoning_details for one block are over 4 MiB")
		}
		if nonEmpty(text) != nil {
			dst = s.reasoningLiteral(dst, text, part)
		}
	}
	return dst
}

// carryWaitingParts writes, before a tool call, an empty thinking block
// for the parts that wait for one.
func (s *Stream) carryWaitingParts(dst []byte) []byte {
	if len(s.det.parts) == 0 {
		return dst
	}
	return s.closeBlock(s.openThinking(dst))
}

// signature returns the signature of the thinking block that closes, whose
// text has the SHA-256 sum: the envelope of the parts it carries, or the
// reasoning signature.
func (s *Stream) signature(sum [sha256.Size]byte) string {
	defer s.det.reset()
	if len(s.det.parts) == 0 {
		return s.opts.Sign(sum)
	}
	var sig string
	sig, s.payload = s.det.seal(s.opts.Details, sum, s.payload)
	return sig
}
