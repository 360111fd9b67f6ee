package thinking

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// follow returns the Finder of a request that continues the one whose
// History and Checkpoint are h and cp, as a gateway's thread would.
func follow(h *History, cp *Checkpoint) Finder {
	return func(body []byte, o Opening) From {
		if h.Len() == 0 || o.First != h.First() {
			return From{}
		}
		var m Memo
		return From{History: h, Checkpoint: cp, Shared: h.Shared(body, o.Array, &m)}
	}
}

// nextRequest returns body as Claude Code's next request would be: the same
// history with an assistant answer and a new user message appended. The
// bytes before the old last message stay as they were.
func nextRequest(tb testing.TB, body []byte, turn int) []byte {
	tb.Helper()
	req := mustParse(tb, body)
	i := -1
	for _, m := range req.members {
		if m.name == messagesMember {
			i = m.value.End - 1 // the closing bracket
		}
	}
	req.Release()
	added := fmt.Sprintf(`,{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"next-%d"},{"type":"text","text":"ok"}]},{"role":"user","content":"go on %d"}`, turn, turn)
	return []byte(string(body[:i]) + added + string(body[i:]))
}

// materialize fills r.messages and r.content with what r holds lazily,
// through the accessors a rewrite uses, so that two Requests compare.
func materialize(r *Request) {
	for i := range r.messages {
		r.parts(i)
		r.messages[i] = r.msg(i)
	}
}

// sameState fails unless two parses of one body agree on everything.
func sameState(t *testing.T, got, want *Request) {
	t.Helper()
	materialize(got)
	g, w := got, want
	for _, pair := range []struct {
		name string
		a, b any
	}{
		{"members", g.members, w.members}, {"messages", g.messages, w.messages},
		{"content", g.content, w.content}, {"blocks", g.blocks, w.blocks},
		{"thinking type", string(g.thinkingType), string(w.thinkingType)},
		{"context edits", g.contextEdits, w.contextEdits}, {"only edits", g.contextOnlyEdits, w.contextOnlyEdits},
		{"user id", g.userID, w.userID}, {"model", g.model, w.model}, {"stream", g.stream, w.stream},
		{"shapes", g.shapes, w.shapes}, {"messages array", g.arrayAt, w.arrayAt},
	} {
		if !reflect.DeepEqual(pair.a, pair.b) && !(reflect.ValueOf(pair.a).Kind() == reflect.Slice && reflect.ValueOf(pair.a).Len() == 0 && reflect.ValueOf(pair.b).Len() == 0) {
			t.Fatalf("%s differ:\nresumed %+v\n   full %+v", pair.name, pair.a, pair.b)
		}
	}
	if gh, wh := got.History(), want.History(); !reflect.DeepEqual(gh, wh) {
		t.Fatalf("histories differ:\nresumed %+v\n   full %+v", gh, wh)
	}
}

func TestResumeReadsTheNextRequestAsParseDoes(t *testing.T) {
	bodies := [][]byte{fixtureOfSize(t, 64<<10), fixture(t, "capture-3-continue-replays-thinking.json"),
		[]byte(obj(model, messages(user("hi"), assistant(th("a", "s1"), text("x")), user("go")), enabled)),
		// Blocks this module made, from think tags and from reasoning.
		[]byte(obj(model, messages(user("hi"), assistant(th("a", block.SynthesizedPrefix+"x"), text("x")), user("go"),
			assistant(th("b", block.ReasoningPrefix+"y"), text("y")), user("more")), enabled)),
		// Members that change the reading of the body before the messages.
		[]byte(obj(enabled, clearOnly, `"metadata":{"user_id":"u"}`, stream, messages(user("hi"), assistant(th("a", "s1"), toolUse("t")), toolResult("t"))))}
	for bi, body := range bodies {
		var cp Checkpoint
		var h *History
		for turn := range 4 {
			req, err := Resume(body, follow(h, &cp))
			if err != nil {
				t.Fatalf("body %d turn %d: %v", bi, turn, err)
			}
			full := mustParse(t, body)
			if turn > 0 && (req.resumedAt == 0 || req.tailAt == 0) {
				t.Fatalf("body %d turn %d: the checkpoint did not cover the next request (prefix %d, tail %d)", bi, turn, req.resumedAt, req.tailAt)
			}
			if turn > 0 && req.from.Shared != h.Len() {
				t.Fatalf("body %d turn %d: shares %d messages with the last request, want all %d", bi, turn, req.from.Shared, h.Len())
			}
			// Rewriting from a resumed parse gives the same bytes, whatever
			// it took from the checkpoint as it was.
			actions := make([]Action, len(full.blocks))
			for i := range actions {
				actions[i] = Action(i % 3)
			}
			if h := req.History(); !reflect.DeepEqual(h, full.History()) {
				t.Fatalf("body %d turn %d: histories differ", bi, turn)
			}
			a, ra, _ := req.Rewrite(actions)
			b, rb, _ := full.Rewrite(actions)
			if !bytes.Equal(a, b) || ra != rb {
				t.Fatalf("body %d turn %d: rewrites differ", bi, turn)
			}
			sameState(t, req, full)
			h = req.History()
			req.Save(&cp)
			req.Release()
			full.Release()
			body = nextRequest(t, body, turn)
		}
	}
}

func TestResumeReadsFromWhereTheBodyDiffers(t *testing.T) {
	body := fixtureOfSize(t, 32<<10)
	req := mustParse(t, body)
	var cp Checkpoint
	h := req.History()
	req.Save(&cp)
	ends := make([]int, len(req.messages))
	for i, m := range req.messages {
		ends[i] = m.end
	}
	if len(req.blocks) == 0 {
		t.Fatal("fixture has no thinking block")
	}
	lastBlock := int(req.blocks[len(req.blocks)-1].Message) // its blocks are read, not restored
	req.Release()
	if len(ends) < 4 || lastBlock < 1 {
		t.Fatalf("fixture has %d messages, the last thinking block in message %d", len(ends), lastBlock)
	}
	flip := func(at int) []byte {
		b := bytes.Clone(body)
		b[at] ^= 0x20
		return b
	}
	// flipIn flips the case of a letter in a string of message i, which
	// leaves the body valid JSON.
	flipIn := func(i int) []byte {
		start := ends[i-1]
		for at := bytes.LastIndex(body[start:ends[i]], []byte(`":"`)); at >= 0; at = bytes.LastIndex(body[start:start+at], []byte(`":"`)) {
			if c := body[start+at+3] | 0x20; 'a' <= c && c <= 'z' {
				return flip(start + at + 3)
			}
		}
		t.Fatalf("message %d has no string that starts with a letter", i)
		return nil
	}
	cases := []struct {
		name   string
		body   []byte
		shared int // -1: the first message differs, nothing is looked up
		prefix bool
	}{
		{"same body", body, len(ends), true},
		{"second message", flipIn(1), 1, true},
		{"last message", flipIn(len(ends) - 1), len(ends) - 1, true},
		{"the last message with a thinking block", flipIn(lastBlock), lastBlock, true},
		{"first message", flip(ends[0] - 3), -1, false},
		{"shorter body", body[:ends[2]-1], -1, false},
		{"another model, same length", flip(bytes.Index(body, []byte(`"model":"`)) + 9), len(ends), false},
		{"a longer model", []byte(strings.Replace(string(body), `"model":"`, `"model":"xx`, 1)), len(ends), false},
		{"another tail", flip(len(body) - 20), len(ends), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			looked := false
			find := func(b []byte, o Opening) From {
				looked = true
				return follow(h, &cp)(b, o)
			}
			resumed, rerr := Resume(c.body, find)
			full, ferr := Parse(c.body)
			if (rerr == nil) != (ferr == nil) {
				t.Fatalf("Resume err %v, Parse err %v", rerr, ferr)
			}
			if rerr != nil {
				if c.shared > 0 {
					t.Fatalf("a body that shares %d messages does not parse: %v", c.shared, rerr)
				}
				return
			}
			defer resumed.Release()
			defer full.Release()
			materialize(resumed)
			switch {
			case c.shared < 0 && resumed.from.Shared != 0:
				t.Fatalf("a body whose first message differs shares %d messages (looked up: %v)", resumed.from.Shared, looked)
			case c.shared >= 0 && resumed.from.Shared != c.shared:
				t.Fatalf("shares %d messages, want %d", resumed.from.Shared, c.shared)
			case c.shared > 0 && resumed.resumedAt != resumed.messages[c.shared-1].end:
				t.Fatalf("resumed at %d, want the end of message %d", resumed.resumedAt, c.shared-1)
			case c.shared > 0 && resumed.prefixValid != (c.prefix && cp.valid):
				t.Fatalf("prefix taken as checked: %v", resumed.prefixValid)
			}
			sameState(t, resumed, full)
		})
	}
}

func TestHistoriesTellConversationsApart(t *testing.T) {
	start := messages(user("the same first message"))
	a := obj(model, strings.TrimSuffix(start, "]")+","+assistant(th("", "sig-a"), text("x"))+","+user("go")+"]", enabled)
	b := obj(model, strings.TrimSuffix(start, "]")+","+assistant(th("", "sig-b"), text("x"))+","+user("go")+"]", enabled)
	other := obj(model, messages(user("another first message")), enabled)
	hist := func(body string) *History {
		req := mustParse(t, []byte(body))
		defer req.Release()
		return req.History()
	}
	ha, hb, ho := hist(a), hist(b), hist(other)
	if ha.First() != hb.First() {
		t.Fatal("identical first messages have different digests")
	}
	if ha.First() == ho.First() {
		t.Fatal("different first messages have the same digest")
	}
	if got := hb.Shared([]byte(a), strings.Index(a, "["), new(Memo)); got != 1 {
		t.Fatalf("conversations that differ from their second message share %d messages", got)
	}
	if got := ha.Shared([]byte(a), strings.Index(a, "["), new(Memo)); got != ha.Len() {
		t.Fatalf("a body shares %d of its own %d messages", got, ha.Len())
	}
}

func TestSaveLeavesNothingWhenThereIsNothingToResume(t *testing.T) {
	req := mustParse(t, []byte(obj(model, `"messages":[]`)))
	defer req.Release()
	cp := Checkpoint{messages: []cmessage{{}}, tailLen: 3}
	req.Save(&cp)
	if len(cp.messages) != 0 || cp.tailLen != 0 {
		t.Fatalf("checkpoint kept %d messages and a tail of %d bytes", len(cp.messages), cp.tailLen)
	}
	if req.History() != nil {
		t.Fatal("a body without messages has a history")
	}
}

func TestACheckpointCostsLittleOfItsBody(t *testing.T) {
	body := fixtureOfSize(t, 1<<20)
	req := mustParse(t, body)
	defer req.Release()
	var cp Checkpoint
	req.Save(&cp)
	size := cp.Size() + req.History().Size()
	if size > len(body)/4 {
		t.Fatalf("the checkpoint of a %d-byte body holds %d bytes", len(body), size)
	}
	t.Logf("a %d-byte body with %d messages: checkpoint and history %d bytes", len(body), len(req.messages), size)
}
