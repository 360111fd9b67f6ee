package thinktags

import (
	"bytes"
	"unicode/utf8"
)

// The tags around a think section. Both start with '<' and hold no other
// '<', so a partial match that fails leaves nothing but text behind it.
const (
	openTag  = "<think>"
	closeTag = "</think>"
)

// Run is a stretch of text on one side of the tags, in the order it came.
type Run struct {
	// Thinking is true for the text of a think section.
	Thinking bool
	// Text is never empty. It points into the piece given to Split or into
	// the Splitter, and is valid until the next call on the Splitter.
	Text []byte
}

// Splitter separates a text fed to it in pieces into runs of thinking and
// text, as the rules in the package documentation say. It emits every byte as
// soon as it knows which side it is on, holding back only a tag that may be
// completing at the end of a piece (at most seven bytes) or the start of a
// UTF-8 character cut by it (at most three). The zero Splitter starts outside
// a section and recognizes no tags; use NewSplitter.
type Splitter struct {
	inside  bool // in a think section
	eating  bool // right after a tag: whitespace is dropped
	fresh   bool // in a section with no thinking byte yet, where <think> is redundant
	altered bool // a tag or whitespace was dropped
	left    int  // sections that may still open

	pend     [len(closeTag)]byte // held bytes: a partial tag or a cut character
	npend    int
	runeHeld bool // pend holds a cut character, not a partial tag

	lit [len(closeTag)]byte // held bytes let go, for the Run that carries them
}

// NewSplitter returns a Splitter at the start of a text, inside a section
// when assumeOpen is true. It opens at most maxSections sections (the one
// assumed open counts); past that, tags are text.
func NewSplitter(assumeOpen bool, maxSections int) Splitter {
	s := Splitter{left: maxSections}
	if assumeOpen && s.left > 0 {
		s.left--
		s.inside, s.eating, s.fresh = true, true, true
	}
	return s
}

// Split appends to dst the runs of the next piece of the text.
func (s *Splitter) Split(dst []Run, p []byte) []Run {
	if s.npend > 0 {
		if s.runeHeld {
			dst, p = s.resumeRune(dst, p)
		} else {
			dst, p = s.resumeTag(dst, p)
		}
		if s.npend > 0 {
			return dst
		}
	}
	return s.scan(dst, p)
}

// Flush appends the bytes still held at the end of the text: a partial tag
// is text on its side, as is a cut character.
func (s *Splitter) Flush(dst []Run) []Run {
	if s.npend == 0 {
		return dst
	}
	return s.release(dst)
}

// Altered reports whether a tag or whitespace was dropped so far.
func (s *Splitter) Altered() bool { return s.altered }

// Holding reports whether bytes are held back for the next piece.
func (s *Splitter) Holding() bool { return s.npend > 0 }

// Inside reports whether the text so far ends inside a think section.
func (s *Splitter) Inside() bool { return s.inside }

// Left returns how many more sections may open.
func (s *Splitter) Left() int { return s.left }

// scan splits p, which follows no held bytes.
func (s *Splitter) scan(dst []Run, p []byte) []Run {
	lit, i := 0, 0 // text not yet emitted starts at lit; the search goes on at i
	for {
		if s.eating {
			for i < len(p) && isSpace(p[i]) {
				i++
			}
			if i > lit {
				s.altered, lit = true, i
			}
			if i == len(p) {
				return dst
			}
			if p[i] != '<' {
				s.eating = false
			}
		}
		j := bytes.IndexByte(p[i:], '<')
		if j < 0 {
			end := len(p) - cutRune(p[lit:])
			dst = s.emit(dst, p[lit:end])
			if end < len(p) {
				s.hold(p[end:], true)
			}
			return dst
		}
		j += i
		if j > lit {
			s.eating, s.fresh = false, false
		}
		tag, n := s.match(p[j:])
		switch {
		case tag != "":
			dst = s.emit(dst, p[lit:j])
			s.apply(tag)
			i = j + len(tag)
			lit = i
		case n == len(p)-j:
			dst = s.emit(dst, p[lit:j])
			s.hold(p[j:], false)
			return dst
		default:
			s.eating, s.fresh = false, false
			i = j + 1
		}
	}
}

// match reports the tag that b starts with, or else how many bytes of b
// match the start of a tag recognized where the text is.
func (s *Splitter) match(b []byte) (tag string, n int) {
	try := func(t string) bool {
		k := commonPrefix(b, t)
		n = max(n, k)
		if k == len(t) {
			tag = t
			return true
		}
		return false
	}
	switch {
	case s.inside:
		if !try(closeTag) && s.fresh {
			try(openTag)
		}
	case s.left > 0:
		try(openTag)
	}
	return tag, n
}

func commonPrefix(b []byte, t string) int {
	n := 0
	for n < len(b) && n < len(t) && b[n] == t[n] {
		n++
	}
	return n
}

// apply acts on a tag recognized where the text is.
func (s *Splitter) apply(tag string) {
	s.altered, s.eating = true, true
	switch {
	case tag == closeTag:
		s.inside = false
	case !s.inside:
		s.inside, s.fresh = true, true
		s.left--
	}
}

// emit appends a run of text on the side the splitter is on.
func (s *Splitter) emit(dst []Run, text []byte) []Run {
	if len(text) == 0 {
		return dst
	}
	s.eating, s.fresh = false, false
	return append(dst, Run{Thinking: s.inside, Text: text})
}

func (s *Splitter) hold(b []byte, isRune bool) {
	s.npend = copy(s.pend[:], b)
	s.runeHeld = isRune
}

// release emits the held bytes as text.
func (s *Splitter) release(dst []Run) []Run {
	n := copy(s.lit[:], s.pend[:s.npend])
	s.npend = 0
	return s.emit(dst, s.lit[:n])
}

// resumeTag goes on matching a held partial tag with the start of p, and
// returns what is left of p.
func (s *Splitter) resumeTag(dst []Run, p []byte) ([]Run, []byte) {
	var buf [len(closeTag)]byte
	held := copy(buf[:], s.pend[:s.npend])
	b := buf[:held+copy(buf[held:], p)]
	tag, n := s.match(b)
	switch {
	case tag != "":
		s.npend = 0
		s.apply(tag)
		return dst, p[len(tag)-held:]
	case n == len(b):
		// Still a partial tag, and p is used up: b is shorter than any tag.
		s.hold(b, false)
		return dst, nil
	}
	return s.release(dst), p
}

// resumeRune completes a held cut character with the start of p, and
// returns what is left of p.
func (s *Splitter) resumeRune(dst []Run, p []byte) ([]Run, []byte) {
	var buf [utf8.UTFMax]byte
	held := copy(buf[:], s.pend[:s.npend])
	b := buf[:held+copy(buf[held:], p)]
	if !utf8.FullRune(b) {
		s.hold(b, true)
		return dst, nil
	}
	if r, size := utf8.DecodeRune(b); r != utf8.RuneError || size > 1 {
		s.npend = 0
		n := copy(s.lit[:], b[:size])
		return s.emit(dst, s.lit[:n]), p[size-held:]
	}
	// Not a character after all: the held bytes are text as they are.
	return s.release(dst), p
}

// cutRune returns how many bytes at the end of b start a UTF-8 character
// that b cuts short, or 0.
func cutRune(b []byte) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
