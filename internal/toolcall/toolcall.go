// Package toolcall pairs tool results with the tool calls they answer, as
// translations into APIs that want each result right after its call do.
package toolcall

import (
	"bytes"
	"slices"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// Pending are the tool calls of the last assistant message, which the
// tool results of the next user message answer: each result right after its
// call, as a tool message; a call left unanswered gets a placeholder
// result. Results come in the order of their calls, and the next call is
// looked at first; a result out of order is looked up in an index sorted
// once, so that a message of a million calls costs a few bytes each and a
// sort, never a scan per result.
//
// Ids are compared as the client wrote them: the API's tool ids are
// letters, digits, '_' and '-', which have one way of being written.
type Pending struct {
	ids      []jsonscan.Value // the calls' id literals, in order
	answered []bool
	next     int     // no call before it is waiting
	sorted   []int32 // indexes of ids in the order of their bytes, once needed
	// skip leads from a place in sorted to a later one, with no call
	// waiting in between (see free).
	skip []int32
}

// CallBytes is what one call waiting for its result holds: its id, its
// mark, its place in the index and its skip.
const CallBytes = 24 + 1 + 4 + 4

// IDOf returns the literal of a call's or result's id; one that is not a
// string is "" (the empty id).
func IDOf(v jsonscan.Value) jsonscan.Value {
	if v.Kind() != jsonscan.String {
		return jsonscan.Value(`""`)
	}
	return v
}

// Add records a call, and reports whether what the calls hold grew (see
// Held).
func (c *Pending) Add(id jsonscan.Value) (grew bool) {
	grew = len(c.ids) == cap(c.ids)
	c.ids = append(c.ids, IDOf(id))
	c.answered = append(c.answered, false)
	return grew
}

// Held returns about how many bytes the calls hold.
func (c *Pending) Held() int { return cap(c.ids) * CallBytes }

// Answer marks the first call with id waiting answered, and returns its
// place among the calls, or false when no call of that id waits.
func (c *Pending) Answer(id jsonscan.Value) (int, bool) {
	id = IDOf(id)
	for c.next < len(c.ids) && c.answered[c.next] {
		c.next++
	}
	if c.next < len(c.ids) && bytes.Equal(c.ids[c.next], id) {
		c.answered[c.next] = true
		c.next++
		return c.next - 1, true
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
		k := int(c.sorted[i])
		c.answered[k] = true
		return k, true
	}
	return 0, false
}

// free returns the first place from i on in sorted whose call waits, or
// len(sorted), shortening the skips it followed: results of one id
// repeated a million times cost no scan each.
func (c *Pending) free(i int) int {
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

// Waiting yields the place and id of each call not answered, in order,
// and forgets every call.
func (c *Pending) Waiting(yield func(int, jsonscan.Value) bool) {
	ids, answered := c.ids, c.answered
	c.ids, c.answered, c.next, c.sorted, c.skip = c.ids[:0], c.answered[:0], 0, nil, nil
	for i, id := range ids {
		if !answered[i] && !yield(i, id) {
			return
		}
	}
}
