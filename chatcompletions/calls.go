package chatcompletions

import (
	"bytes"
	"slices"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// calls are the tool calls of the last assistant message, which the tool
// results of the next user message answer: each result right after its
// call, as a tool message; a call left unanswered gets a placeholder
// result. Results come in the order of their calls, and the next call is
// looked at first; a result out of order is looked up in an index sorted
// once, so that a message of a million calls costs a few bytes each and a
// sort, never a scan per result.
//
// Ids are compared as the client wrote them: the API's tool ids are
// letters, digits, '_' and '-', which have one way of being written.
type calls struct {
	ids      []jsonscan.Value // the calls' id literals, in order
	answered []bool
	next     int     // no call before it is waiting
	sorted   []int32 // indexes of ids in the order of their bytes, once needed
	// skip leads from a place in sorted to a later one, with no call
	// waiting in between (see free).
	skip []int32
}

// callBytes is what one call waiting for its result holds: its id, its
// mark, its place in the index and its skip.
const callBytes = 24 + 1 + 4 + 4

// idOf returns the literal of a call's or result's id; one that is not a
// string is "" (the empty id).
func idOf(v jsonscan.Value) jsonscan.Value {
	if v.Kind() != jsonscan.String {
		return jsonscan.Value(`""`)
	}
	return v
}

// add records a call, and tells w what the calls hold when that grew.
func (c *calls) add(w *requestWriter, id jsonscan.Value) {
	grew := len(c.ids) == cap(c.ids)
	c.ids = append(c.ids, idOf(id))
	c.answered = append(c.answered, false)
	if grew {
		w.Held(cap(c.ids) * callBytes)
	}
}

// answer marks the first call with id waiting answered, and reports
// whether there was one.
func (c *calls) answer(id jsonscan.Value) bool {
	id = idOf(id)
	for c.next < len(c.ids) && c.answered[c.next] {
		c.next++
	}
	if c.next < len(c.ids) && bytes.Equal(c.ids[c.next], id) {
		c.answered[c.next] = true
		c.next++
		return true
	}
	if c.sorted == nil && len(c.ids) > 0 {
		c.sorted, c.skip = make([]int32, len(c.ids)), make([]int32, len(c.ids))
		for i := range c.sorted {
			c.sorted[i], c.skip[i] = int32(i), int32(i+1)
		}
		slices.SortStableFunc(c.sorted, func(a, b int32) int { return bytes.Compare(c.ids[a], c.ids[b]) })
	}
	i, _ := slices.BinarySearchFunc(c.sorted, id, func(k int32, id jsonscan.Value) int { return bytes.Compare(c.ids[k], id) })
	if i = c.free(i); i < len(c.sorted) && bytes.Equal(c.ids[c.sorted[i]], id) {
		c.answered[c.sorted[i]] = true
		return true
	}
	return false
}

// free returns the first place from i on in sorted whose call waits, or
// len(sorted), shortening the skips it followed: results of one id
// repeated a million times cost no scan each.
func (c *calls) free(i int) int {
	end := i
	for end < len(c.sorted) && c.answered[c.sorted[end]] {
		end = int(c.skip[end])
	}
	for i < end {
		next := int(c.skip[i])
		c.skip[i] = int32(end)
		i = next
	}
	return end
}

// waiting returns the ids of the calls not answered, in order, and
// forgets every call.
func (c *calls) waiting(yield func(jsonscan.Value) bool) {
	ids, answered := c.ids, c.answered
	c.ids, c.answered, c.next, c.sorted, c.skip = c.ids[:0], c.answered[:0], 0, nil, nil
	for i, id := range ids {
		if !answered[i] && !yield(id) {
			return
		}
	}
}
