package chatcompletions

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/thinktags"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// The content of an answer is read for <think> tags only at its start:
// content that opens with <think> (after whitespace) is split by the
// thinktags Splitter into one thinking section and the text after it;
// content that opens with anything else is text as it comes. Options'
// AssumeOpen starts inside the section instead (a model that omits the
// opening tag). Only whitespace and a partial "<think>" wait for the
// decision, and only a partial tag waits once the section is open.

const openTag = "<think>"

// content writes a chunk's content, a string literal; bytes that are not
// UTF-8 as U+FFFD, as every path writes them (see jsonstr.AppendUTF8).
func (s *Stream) content(dst, lit []byte) []byte {
	if s.tags == plain && s.open == textBlock {
		dst = messagesapi.AppendDeltaHead(dst, s.index, messagesapi.TextDeltaHead)
		return messagesapi.AppendDeltaTail(jsonstr.AppendUTF8(dst, lit))
	}
	var value []byte
	value, s.scratch, _ = jsonstr.Value(s.scratch[:0], lit)
	switch s.tags {
	case tagged:
		return s.splitText(dst, value)
	case undecided:
		return s.decide(dst, value)
	}
	return s.text(dst, value)
}

// decide reads the start of the content until it shows whether a think
// section opens it.
func (s *Stream) decide(dst, value []byte) []byte {
	s.lead = append(s.lead, value...)
	rest := bytes.TrimLeft(s.lead, " \t\r\n")
	switch {
	case len(rest) == 0 && len(s.lead) <= maxLead,
		len(rest) < len(openTag) && bytes.HasPrefix([]byte(openTag), rest):
		return dst
	case bytes.HasPrefix(rest, []byte(openTag)):
		s.tags, s.split = tagged, thinktags.NewSplitter(false, 1)
		s.lead = s.lead[:0]
		return s.splitText(dst, rest)
	}
	s.tags = plain
	dst = s.text(dst, s.lead)
	s.lead = s.lead[:0]
	return dst
}

// endTagDecision settles the tags when something else than content comes
// first (reasoning in its own field, a tool call): what was held is text,
// and tags no longer open.
func (s *Stream) endTagDecision(dst []byte) []byte {
	if s.tags != undecided {
		return dst
	}
	s.tags = plain
	if !isBlank(s.lead) {
		dst = s.text(dst, s.lead)
	}
	s.lead = s.lead[:0]
	return dst
}

// splitText writes content inside or after the think section.
func (s *Stream) splitText(dst, value []byte) []byte {
	s.runs = s.split.Split(s.runs[:0], value)
	dst = s.writeRuns(dst)
	if s.split.Left() == 0 && !s.split.Inside() && !s.split.Holding() && s.open == textBlock {
		// The section closed and text followed it (so no whitespace after
		// the tag is being dropped any more): the rest is text, copied as
		// it comes.
		s.tags = plain
	}
	return dst
}

func (s *Stream) writeRuns(dst []byte) []byte {
	for _, r := range s.runs {
		if r.Thinking {
			dst = s.thinkingText(dst, r.Text)
		} else {
			dst = s.text(dst, r.Text)
		}
	}
	return dst
}

// flushContent writes what the content holds back when something else
// follows it or the answer ends: a partial tag is text on its side.
func (s *Stream) flushContent(dst []byte) []byte {
	switch s.tags {
	case undecided:
		return s.endTagDecision(dst)
	case tagged:
		s.runs = s.split.Flush(s.runs[:0])
		return s.writeRuns(dst)
	}
	return dst
}

// splitWhole splits a whole content, for a JSON answer: the thinking and
// the text, in that order.
func splitWhole(content []byte, assumeOpen bool) (thinking, text []byte) {
	rest := bytes.TrimLeft(content, " \t\r\n")
	if !assumeOpen && !bytes.HasPrefix(rest, []byte(openTag)) {
		return nil, content
	}
	sp := thinktags.NewSplitter(assumeOpen, 1)
	runs := sp.Split(nil, rest)
	runs = sp.Flush(runs)
	for _, r := range runs {
		if r.Thinking {
			thinking = append(thinking, r.Text...)
		} else {
			text = append(text, r.Text...)
		}
	}
	return thinking, text
}
