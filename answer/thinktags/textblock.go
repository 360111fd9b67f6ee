package thinktags

// kind is the kind of output block a text block has open.
type kind uint8

const (
	noBlock kind = iota
	textKind
	thinkingKind
)

func kindOf(thinking bool) kind {
	if thinking {
		return thinkingKind
	}
	return textKind
}

// textBlock is an upstream text block being split.
type textBlock struct {
	active   bool
	orig     int  // its upstream index
	base     int  // the output index of its first block
	next     int  // the output index of the next block it opens
	cur      kind // the output block open now
	verbatim bool // its output so far is its own events, held or written
	split    Splitter
}

// beginText starts splitting the text block whose start is ev. The start
// is held until the block's first text shows what comes first.
func (s *SSE) beginText(ev event, m message, assumeOpen bool) {
	base := m.Index + s.shift
	s.text = textBlock{active: true, orig: m.Index, base: base, next: base, verbatim: true, split: NewSplitter(assumeOpen, s.left)}
	s.hold(ev, roleStart, m)
}

// feed splits the next text of the block; ev is the text_delta carrying it,
// or nil for the text of the block's start.
func (s *SSE) feed(ev *event, m message, text []byte) {
	t := &s.text
	runs := t.split.Split(s.runs[:0], text)
	s.runs = runs
	switch {
	case !t.verbatim:
		s.writeRuns(runs)
	case t.split.Altered() || hasThinking(runs):
		s.rewriteText()
		s.writeRuns(runs)
	case t.split.Holding() || t.cur == noBlock && len(runs) == 0 && len(s.held.unsent) == 0:
		for _, r := range runs {
			s.held.unsent = append(s.held.unsent, r.Text...)
		}
		if ev != nil {
			s.hold(*ev, roleText, m)
		}
	default:
		s.writeHeld()
		if ev != nil {
			s.lastOut = s.writeIndexed(*ev, m, t.base)
		}
	}
}

// trackedOther passes on a delta of the text block other than text.
func (s *SSE) trackedOther(ev event, m message) {
	t := &s.text
	switch {
	case s.holding():
		s.hold(ev, roleTrackedOther, m)
	case t.verbatim:
		s.lastOut = s.writeIndexed(ev, m, t.base)
	default:
		s.switchTo(textKind)
		s.lastOut = s.writeIndexed(ev, m, t.next-1)
	}
}

// endText ends the text block, at its stop event or, with stop nil, where
// the upstream left it unstopped. It reports whether it wrote events of its
// own.
func (s *SSE) endText(stop *event, m message) bool {
	t := &s.text
	runs := t.split.Flush(s.runs[:0])
	s.runs = runs
	wrote := false
	if t.verbatim && !t.split.Altered() && !hasThinking(runs) {
		s.writeHeld()
		if stop != nil {
			s.lastOut = s.writeIndexed(*stop, m, t.base)
		}
	} else {
		if t.verbatim {
			s.rewriteText()
		}
		s.writeRuns(runs)
		wrote = s.closeBlock()
		if stop == nil {
			s.dropIdx = t.orig
		}
	}
	s.shift += t.next - t.base - 1
	s.left = t.split.Left()
	t.active = false
	return wrote
}

// writeHeld lets the held events go as they came (renumbered when earlier
// blocks moved): the text block's output is still its own.
func (s *SSE) writeHeld() {
	t := &s.text
	for i := range s.held.events {
		e := &s.held.events[i]
		ev := s.held.event(e)
		var f fate
		switch e.role {
		case roleOther:
			s.writeRaw(ev)
			f = copied
		case roleIndexed:
			f = s.writeIndexed(ev, e.msg, e.msg.Index+s.shift)
		case roleStart:
			f = s.writeIndexed(ev, e.msg, t.base)
			t.cur, t.next = textKind, t.base+1
		default:
			f = s.writeIndexed(ev, e.msg, t.base)
		}
		if i == len(s.held.events)-1 {
			s.settleLast(f)
		}
	}
	s.held.reset()
}

// rewriteText gives up the text block's own events: from here on its output
// is synthesized. Held events of other kinds are let go; its held start and
// text deltas are replaced by the text they carried.
func (s *SSE) rewriteText() {
	t := &s.text
	t.verbatim = false
	for i := range s.held.events {
		e := &s.held.events[i]
		ev := s.held.event(e)
		f := dropped
		switch e.role {
		case roleOther:
			s.writeRaw(ev)
			f = copied
		case roleIndexed:
			f = s.writeIndexed(ev, e.msg, e.msg.Index+s.shift)
		case roleTrackedOther:
			s.switchTo(textKind)
			f = s.writeIndexed(ev, e.msg, t.next-1)
		}
		if i == len(s.held.events)-1 {
			s.settleLast(f)
		}
	}
	if len(s.held.unsent) > 0 {
		unsent := [1]Run{{Text: s.held.unsent}}
		s.writeRuns(unsent[:])
	}
	s.held.reset()
}

// writeRuns writes runs as deltas of the block of their kind, one delta per
// stretch of runs of a kind, opening and closing blocks as the kind changes.
func (s *SSE) writeRuns(runs []Run) {
	for i := 0; i < len(runs); {
		j := i + 1
		for j < len(runs) && runs[j].Thinking == runs[i].Thinking {
			j++
		}
		s.switchTo(kindOf(runs[i].Thinking))
		s.writeDelta(runs[i:j])
		i = j
	}
}

// switchTo makes an output block of kind k the open one.
func (s *SSE) switchTo(k kind) {
	t := &s.text
	if t.cur == k {
		return
	}
	s.closeBlock()
	t.cur = k
	s.writeStart(k, t.next)
	t.next++
	if k == thinkingKind {
		s.hasher.Reset()
		s.sum.Reset()
	}
}

// closeBlock ends the open output block, signing a thinking block and
// recording its key. It reports whether a block was open.
func (s *SSE) closeBlock() bool {
	t := &s.text
	index := t.next - 1
	switch t.cur {
	case thinkingKind:
		var digest [32]byte
		s.sum.Sum(digest[:0])
		sig := s.opts.Sign(digest)
		s.writeSignature(index, sig)
		s.blocks = append(s.blocks, Block{Index: index, Key: s.hasher.Thinking([]byte(sig))})
	case textKind:
	default:
		return false
	}
	s.writeStop(index)
	t.cur = noBlock
	return true
}

func hasThinking(runs []Run) bool {
	for _, r := range runs {
		if r.Thinking {
			return true
		}
	}
	return false
}
