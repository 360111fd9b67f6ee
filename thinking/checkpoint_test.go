package thinking

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// nextRequest returns body as Claude Code's next request would be: the same
// history with an assistant answer and a new user message appended. The
// bytes before the old last message stay as they were.
func nextRequest(tb testing.TB, body []byte, turn int) []byte {
	tb.Helper()
	req, err := Parse(body)
	if err != nil {
		tb.Fatal(err)
	}
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

// sameState fails unless two parses of one body agree on everything.
func sameState(t *testing.T, got, want *Request) {
	t.Helper()
	g, w := got, want
	for _, pair := range []struct {
		name string
		a, b any
	}{
		{"members", g.members, w.members}, {"messages", g.messages, w.messages},
		{"content", g.content, w.content}, {"blocks", g.blocks, w.blocks},
		{"thinking type", string(g.thinkingType), string(w.thinkingType)},
		{"context edits", g.contextEdits, w.contextEdits}, {"only edits", g.contextOnlyEdits, w.contextOnlyEdits},
		{"user id", g.userID, w.userID}, {"stream", g.stream, w.stream},
	} {
		if !reflect.DeepEqual(pair.a, pair.b) && !(reflect.ValueOf(pair.a).Kind() == reflect.Slice && reflect.ValueOf(pair.a).Len() == 0 && reflect.ValueOf(pair.b).Len() == 0) {
			t.Fatalf("%s differ:\nresumed %+v\n   full %+v", pair.name, pair.a, pair.b)
		}
	}
}

func TestResumeReadsTheNextRequestAsParseDoes(t *testing.T) {
	bodies := [][]byte{fixtureOfSize(t, 64<<10), fixture(t, "capture-3-continue-replays-thinking.json"),
		[]byte(obj(model, messages(user("hi"), assistant(th("a", "s1"), text("x")), user("go")), enabled)),
		// Members that change the reading of the body before the messages.
		[]byte(obj(enabled, clearOnly, `"metadata":{"user_id":"u"}`, stream, messages(user("hi"), assistant(th("a", "s1"), toolUse("t")), toolResult("t"))))}
	for bi, body := range bodies {
		var cp Checkpoint
		for turn := range 4 {
			req, err := Resume(body, &cp)
			if err != nil {
				t.Fatalf("body %d turn %d: %v", bi, turn, err)
			}
			full, err := Parse(body)
			if err != nil {
				t.Fatal(err)
			}
			if turn > 0 && (req.resumedAt == 0 || req.tailAt == 0) {
				t.Fatalf("body %d turn %d: the checkpoint did not cover the next request (prefix %d, tail %d)", bi, turn, req.resumedAt, req.tailAt)
			}
			sameState(t, req, full)
			// Rewriting from a resumed parse gives the same bytes.
			actions := make([]Action, len(full.blocks))
			for i := range actions {
				actions[i] = Action(i % 3)
			}
			a, ra, _ := req.Rewrite(actions)
			b, rb, _ := full.Rewrite(actions)
			if !bytes.Equal(a, b) || ra != rb {
				t.Fatalf("body %d turn %d: rewrites differ", bi, turn)
			}
			req.Save(&cp)
			req.Release()
			full.Release()
			body = nextRequest(t, body, turn)
		}
	}
}

func TestResumeFallsBackWhenThePrefixChanged(t *testing.T) {
	body := fixtureOfSize(t, 32<<10)
	var cp Checkpoint
	req, err := Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	req.Save(&cp)
	req.Release()
	if len(cp.prefix) == 0 {
		t.Fatal("nothing was checkpointed")
	}
	flip := func(at int) []byte {
		b := bytes.Clone(body)
		b[at] ^= 0x20
		return b
	}
	changed := map[string][]byte{
		"early byte":   flip(3),
		"middle byte":  flip(len(cp.prefix) / 2),
		"last byte":    flip(len(cp.prefix) - 2),
		"shorter body": body[:len(cp.prefix)-1],
		"other model":  []byte(strings.Replace(string(body), `"model":"`, `"model":"x`, 1)),
	}
	// A changed tail: the prefix is still of use, the tail is read again.
	tail := flip(len(body) - 20)
	resumed, err := Resume(tail, &cp)
	if err != nil {
		t.Fatal(err)
	}
	full, err := Parse(tail)
	if err != nil {
		t.Fatal(err)
	}
	if resumed.resumedAt == 0 || resumed.tailAt != 0 {
		t.Fatalf("changed tail: prefix %d, tail %d", resumed.resumedAt, resumed.tailAt)
	}
	sameState(t, resumed, full)
	for name, b := range changed {
		t.Run(name, func(t *testing.T) {
			resumed, rerr := Resume(b, &cp)
			full, ferr := Parse(b)
			if (rerr == nil) != (ferr == nil) {
				t.Fatalf("Resume err %v, Parse err %v", rerr, ferr)
			}
			if rerr != nil {
				return
			}
			if resumed.resumedAt != 0 {
				t.Fatal("a changed prefix was taken for the checkpointed one")
			}
			sameState(t, resumed, full)
		})
	}
}

func TestSaveLeavesNothingWhenThereIsNothingToResume(t *testing.T) {
	for _, body := range []string{
		obj(model, messages(user("only one message"))),
	} {
		req, err := Parse([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		cp := Checkpoint{prefix: []byte("stale")}
		req.Save(&cp)
		if len(cp.prefix) != 0 {
			t.Fatalf("%s: checkpoint kept %d bytes", body, len(cp.prefix))
		}
	}
}
