package thinking

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

// openedBy returns a body whose system prompt and a tool come before its
// messages, as an SDK writes one when they are set first.
func openedBy(system string, config ...string) []byte {
	tool := `{"name":"Bash","description":"Runs a command.","input_schema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}`
	return openedWith(system, `"tools":[`+tool+`]`, config...)
}

// openedWith is openedBy with the tools member given.
func openedWith(system, tools string, config ...string) []byte {
	members := append([]string{`"system":[{"type":"text","text":` + `"` + system + `"}]`, tools}, config...)
	members = append(members, messages(user("hi"), assistant(th("a", "s1"), text("x")), user("go")), `"metadata":{"user_id":"tail"}`)
	return []byte(obj(members...))
}

// TestResumeTakesTheOpeningOfABodyReadBefore: a body that opens as one
// read before takes its members before the messages from Heads, config
// included, and reads as Parse reads it; one that opens otherwise, even
// by a byte of the same length, is read in full.
func TestResumeTakesTheOpeningOfABodyReadBefore(t *testing.T) {
	system := strings.Repeat("You are a careful assistant. ", 40)
	body := openedBy(system, model, enabled, `"metadata":{"user_id":"head"}`, `"max_tokens":32000`, stream)
	other := bytes.Clone(body)
	other[bytes.Index(other, []byte("careful"))] = 'C'
	var heads Heads
	for i, tc := range []struct {
		body     []byte
		restored bool
	}{{body, false}, {body, true}, {other, false}, {other, true}, {body, true}} {
		req, err := ResumeWith(tc.body, Resumption{Heads: &heads})
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		if req.headRestored != tc.restored {
			t.Fatalf("read %d: opening taken from Heads %v, want %v", i, req.headRestored, tc.restored)
		}
		full := mustParse(t, tc.body)
		sameState(t, req, full)
		if req.Model() != "claude-sonnet-4-5" || !req.Stream() || req.UserID() != "tail" || req.maxTokens != 32000 || req.budgetTokens != 31999 {
			t.Fatalf("read %d: config model %q stream %v user %q max_tokens %d budget %d", i,
				req.Model(), req.Stream(), req.UserID(), req.maxTokens, req.budgetTokens)
		}
		actions := make([]Action, len(full.blocks))
		a, ra, _ := req.Rewrite(actions)
		b, rb, _ := full.Rewrite(actions)
		if !bytes.Equal(a, b) || ra != rb {
			t.Fatalf("read %d: rewrites differ", i)
		}
		req.Release()
		full.Release()
	}
}

// TestHeadsRememberWhatIsWorthIt: short openings, bodies that open with
// their messages and bodies of too many members are not remembered, and
// no more than headsKept openings are.
func TestHeadsRememberWhatIsWorthIt(t *testing.T) {
	var heads Heads
	read := func(body []byte) bool {
		t.Helper()
		req, err := ResumeWith(body, Resumption{Heads: &heads})
		if err != nil {
			t.Fatal(err)
		}
		defer req.Release()
		return req.headRestored
	}
	short := []byte(obj(model, messages(user(strings.Repeat("x", 2*minHead)))))
	first := []byte(obj(messages(user("hi")), `"system":"`+strings.Repeat("s", 2*minHead)+`"`))
	many := make([]string, maxHeadMembers+1)
	for i := range many {
		many[i] = `"m` + strings.Repeat("x", i) + `":` + strings.Repeat("1", 20)
	}
	wide := []byte(obj(append(many, messages(user("hi")))...))
	for _, body := range [][]byte{short, first, wide} {
		if read(body) || read(body) {
			t.Fatalf("%.40s...: the opening was remembered", body)
		}
	}
	// One more opening than Heads keeps, each read twice: the first is
	// forgotten.
	bodies := make([][]byte, headsKept+1)
	for i := range bodies {
		bodies[i] = openedBy(strings.Repeat(string(rune('a'+i)), 2*minHead), model)
		if read(bodies[i]) || !read(bodies[i]) {
			t.Fatalf("opening %d: not remembered after a read", i)
		}
	}
	if read(bodies[0]) {
		t.Fatal("the oldest opening is still remembered")
	}
}

// TestHeadsConcurrentReads: readers of two openings at once each read what
// Parse reads.
func TestHeadsConcurrentReads(t *testing.T) {
	var heads Heads
	bodies := [][]byte{
		openedBy(strings.Repeat("one ", minHead), model, stream),
		openedBy(strings.Repeat("two ", minHead), model, enabled),
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8) // one a reader at most
	for g := range 8 {
		wg.Go(func() {
			body := bodies[g%2]
			want := mustParse(t, body)
			defer want.Release()
			for range 200 {
				req, err := ResumeWith(body, Resumption{Heads: &heads})
				if err != nil {
					errs <- err.Error()
					return
				}
				differs := req.Stream() != want.Stream() || req.ThinkingOn() != want.ThinkingOn() || len(req.members) != len(want.members)
				req.Release()
				if differs {
					errs <- "a read differs from Parse's"
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
