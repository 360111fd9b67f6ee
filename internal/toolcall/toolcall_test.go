package toolcall

import (
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
