package toolcall

import (
	"iter"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// Orphans marks the tool results of a user message that answer no call
// the upstream saw (a call another backend made and the history lost, a
// result sent twice), by their place among the message's blocks: such a
// result cannot follow a call, and is told as text instead (see Write).
type Orphans struct{ bits []uint64 }

// Reset forgets every mark.
func (o *Orphans) Reset() { clear(o.bits) }

// Mark marks the k-th block, and reports whether what the marks hold grew
// (see Held).
func (o *Orphans) Mark(k int) (grew bool) {
	if k/64 >= len(o.bits) {
		before := cap(o.bits)
		o.bits = append(o.bits, make([]uint64, k/64+1-len(o.bits))...)
		grew = cap(o.bits) != before
	}
	o.bits[k/64] |= 1 << (k % 64)
	return grew
}

// Has reports whether the k-th block is marked.
func (o *Orphans) Has(k int) bool {
	return k/64 < len(o.bits) && o.bits[k/64]&(1<<(k%64)) != 0
}

// Held returns how many bytes the marks hold.
func (o *Orphans) Held() int { return cap(o.bits) * 8 }

// Write writes, escaped for the inside of a string literal, the marked
// results of content as text: "Tool result <id>:", its text (an error
// said so), a blank line.
func (o *Orphans) Write(w *jsonout.Writer, content jsonscan.Value) {
	k := -1
	for b := range content.Elements() {
		k++
		if !o.Has(k) {
			continue
		}
		w.Raw("Tool result ")
		w.StrContent(IDOf(b.Get("tool_use_id")))
		w.Raw(`:\n`)
		if b.Get("is_error").Bool() {
			w.Raw("Error: ")
		}
		messagesapi.WriteToolResult(w, b)
		w.Raw(`\n\n`)
	}
}

// Sort reads the tool results of a user message's content: each one whose
// call waits in calls is answered, and passed to answer with its call's
// place among the calls and its block;
// each other one is marked (hold told of any growth). It reports whether
// any was marked. The marks are reset first.
func (o *Orphans) Sort(content jsonscan.Value, calls *Pending, hold func(bytes int), answer func(place int, b jsonscan.Value)) (marked bool) {
	o.Reset()
	k := -1
	for b := range content.Elements() {
		k++
		if !b.Get("type").Is("tool_result") {
			continue
		}
		if place, ok := calls.Answer(b.Get("tool_use_id")); ok {
			answer(place, b)
			continue
		}
		if o.Mark(k) {
			hold(o.Held())
		}
		marked = true
	}
	return marked
}

// Parts yields, in order, what of a user message's content goes in its
// message after the tool results: its blocks other than tool results, and
// the images and documents of the results not marked (their text went
// with the result; an API whose results hold only text takes their media
// so). See Following for one that carries some inside the results.
func (o *Orphans) Parts(content jsonscan.Value) iter.Seq[jsonscan.Value] {
	return func(yield func(jsonscan.Value) bool) {
		k := -1
		for b := range content.Elements() {
			k++
			if !b.Get("type").Is("tool_result") {
				if !yield(b) {
					return
				}
				continue
			}
			if o.Has(k) {
				continue
			}
			for c := range b.Get("content").Elements() {
				if (c.Get("type").Is("image") || c.Get("type").Is("document")) && !yield(c) {
					return
				}
			}
		}
	}
}
