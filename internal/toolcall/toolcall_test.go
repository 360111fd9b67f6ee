package toolcall

import (
	"slices"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// TestAnswerReturnsTheCallsPlace: a result answers the first call of its
// id still waiting, in or out of order, and Waiting yields what is left,
// in order, and forgets the calls.
func TestAnswerReturnsTheCallsPlace(t *testing.T) {
	var p Pending
	for _, id := range []string{`"a"`, `"b"`, `"a"`, `"c"`, `7`} {
		p.Add(jsonscan.Value(id))
	}
	for _, c := range []struct {
		id    string
		place int
		ok    bool
	}{{`"b"`, 1, true}, {`"a"`, 0, true}, {`"a"`, 2, true}, {`"a"`, 0, false}, {`""`, 4, true}, {`"z"`, 0, false}} {
		if place, ok := p.Answer(jsonscan.Value(c.id)); place != c.place || ok != c.ok {
			t.Errorf("Answer(%s) = %d, %v; want %d, %v", c.id, place, ok, c.place, c.ok)
		}
	}
	var left []int
	for i, id := range p.Waiting {
		if string(id) != `"c"` {
			t.Errorf("waiting %s", id)
		}
		left = append(left, i)
	}
	if len(left) != 1 || left[0] != 3 {
		t.Fatalf("waiting %v, want the call at 3", left)
	}
	if _, ok := p.Answer(jsonscan.Value(`"c"`)); ok {
		t.Fatal("a call forgotten was answered")
	}
}

// TestOrphansSortAndParts: results of waiting calls are answered in order,
// the others marked; the parts after them are the message's own blocks and
// the answered results' images and documents, never a marked result's.
func TestOrphansSortAndParts(t *testing.T) {
	var calls Pending
	calls.Add(jsonscan.Value(`"a"`))
	calls.Add(jsonscan.Value(`"b"`))
	content := jsonscan.Parse([]byte(`[{"type":"tool_result","tool_use_id":"b","content":[{"type":"image","n":1},{"type":"text"},{"type":"document","n":4}]},` +
		`{"type":"tool_result","tool_use_id":"zz","content":[{"type":"image","n":2}]},{"type":"text","text":"t"},` +
		`{"type":"tool_result","tool_use_id":"a"},{"type":"image","n":3}]`))
	var o Orphans
	var answered []int
	held := 0
	marked := o.Sort(content, &calls, func(n int) { held = n }, func(place int, _ jsonscan.Value) { answered = append(answered, place) })
	if !marked || !slices.Equal(answered, []int{1, 0}) || !o.Has(1) || o.Has(0) || held == 0 {
		t.Fatalf("marked %v, answered %v, held %d", marked, answered, held)
	}
	var parts []string
	for p := range o.Parts(content) {
		parts = append(parts, string(p))
	}
	want := []string{`{"type":"image","n":1}`, `{"type":"document","n":4}`, `{"type":"text","text":"t"}`, `{"type":"image","n":3}`}
	if !slices.Equal(parts, want) {
		t.Errorf("parts %q, want %q", parts, want)
	}
}
