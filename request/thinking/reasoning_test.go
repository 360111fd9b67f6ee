package thinking

import (
	"fmt"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// Reasoning parts as AI SDK clients keep them.
func reasoning5(text, sig string) string {
	return fmt.Sprintf(`{"type":"reasoning","text":%q,"providerOptions":{"anthropic":{"signature":%q}}}`, text, sig)
}
func reasoning4(text, sig string) string {
	return fmt.Sprintf(`{"type":"reasoning","reasoning":%q,"signature":%q}`, text, sig)
}
func reasoningDelta(delta string) string {
	return fmt.Sprintf(`{"type":"reasoning-delta","id":"r1","delta":%q}`, delta)
}
func redactedReasoning(data string) string {
	return fmt.Sprintf(`{"type":"reasoning","text":"","providerMetadata":{"anthropic":{"redactedData":%q}}}`, data)
}

func TestReasoningPartsBecomeThinkingBlocks(t *testing.T) {
	tests := []rewriteCase{
		{
			name:    "an AI SDK 5 part, kept, is sent as a thinking block, moved before the text",
			in:      obj(messages(user("hi"), assistant(text("x"), reasoning5("plan", "s1")), user("go")), enabled),
			actions: []Action{Keep},
			want:    obj(messages(user("hi"), assistant(th("plan", "s1"), text("x")), user("go")), enabled),
			res:     Result{Kept: 1, Normalized: 2},
		},
		{
			name:    "an AI SDK 4 part keeps the escaped literals",
			in:      obj(messages(user("hi"), assistant(reasoning4("a\n\"b\"", "s/1"), toolUse("t1")), toolResult("t1")), enabled),
			actions: []Action{Keep},
			want:    obj(messages(user("hi"), assistant(th("a\n\"b\"", "s/1"), toolUse("t1")), toolResult("t1")), enabled),
			res:     Result{Kept: 1, Normalized: 1},
		},
		{
			name:    "a foreign reasoning part is stripped like any block",
			in:      obj(messages(user("hi"), assistant(reasoning5("a", "glm"), text("x")), user("go"))),
			actions: []Action{Strip},
			want:    obj(messages(user("hi"), assistant(text("x")), user("go"))),
			res:     Result{Stripped: 1},
		},
		{
			name:    "redacted data becomes a redacted_thinking block",
			in:      obj(messages(user("hi"), assistant(redactedReasoning("opaque"), text("x")), user("go"))),
			actions: []Action{Keep},
			want:    obj(messages(user("hi"), assistant(red("opaque"), text("x")), user("go"))),
			res:     Result{Kept: 1, Normalized: 1},
		},
		{
			name:    "reasoning deltas become unsigned thinking blocks, in order",
			in:      obj(messages(user("hi"), assistant(reasoningDelta("a"), reasoningDelta("b"), text("x")), user("go"))),
			actions: []Action{Keep, Keep},
			want:    obj(messages(user("hi"), assistant(`{"type":"thinking","thinking":"a"}`, `{"type":"thinking","thinking":"b"}`, text("x")), user("go"))),
			res:     Result{Kept: 2, Normalized: 2},
		},
		{
			name:    "drop signature sends the part without its signature",
			in:      obj(messages(user("hi"), assistant(reasoning5("a", "glm"), text("x")), user("go"))),
			actions: []Action{DropSignature},
			want:    obj(messages(user("hi"), assistant(`{"type":"thinking","thinking":"a"}`, text("x")), user("go"))),
			res:     Result{Converted: 1},
		},
		{
			name:    "convert to text reads the part's text",
			in:      obj(messages(user("hi"), assistant(reasoning4("a", "glm"), text("x")), user("go"))),
			actions: []Action{ConvertToText},
			want:    obj(messages(user("hi"), assistant(text("a"), text("x")), user("go"))),
			res:     Result{Converted: 1},
		},
		{
			name:    "a tool loop's first message moves its thinking to the front",
			in:      obj(messages(user("do"), assistant(text("let me look"), th("", "own"), toolUse("t1")), toolResult("t1")), enabled),
			actions: []Action{Keep},
			want:    obj(messages(user("do"), assistant(th("", "own"), text("let me look"), toolUse("t1")), toolResult("t1")), enabled),
			res:     Result{Kept: 1, Normalized: 1},
		},
		{
			name:    "with its leading thinking stripped, the tool loop drops the config",
			in:      obj(messages(user("do"), assistant(text("let me look"), th("", "glm"), toolUse("t1")), toolResult("t1")), enabled),
			actions: []Action{Strip},
			want:    obj(messages(user("do"), assistant(text("let me look"), toolUse("t1")), toolResult("t1"))),
			res:     Result{Stripped: 1, DroppedThinkingConfig: true, ToolLoopRule: true},
		},
	}
	runRewriteCases(t, tests, (*Request).Rewrite)
}

func TestAReasoningPartHasTheKeyOfTheBlockItStandsFor(t *testing.T) {
	for part, want := range map[string]block.Key{
		reasoning5("plan", "s1"):    thinkingKey("plan", "s1"),
		reasoning4("a\u00e9", "s2"): thinkingKey("a\u00e9", "s2"),
		reasoningDelta("d"):         thinkingKey("d", ""),
		redactedReasoning("opaque"): redactedKey("opaque"),
		// The top-level signature wins over the provider's, options over
		// metadata, and a member that is not a string is passed over.
		`{"type":"reasoning","text":"t","signature":"top","providerOptions":{"anthropic":{"signature":"opt"}}}`:                     thinkingKey("t", "top"),
		`{"type":"reasoning","text":5,"reasoning":"r","providerMetadata":{"anthropic":{"signature":"m"}}}`:                          thinkingKey("r", "m"),
		`{"providerMetadata":{"anthropic":{"signature":"m"}},"providerOptions":{"anthropic":{"signature":"o"}},"type":"reasoning"}`: thinkingKey("", "o"),
	} {
		body := []byte(obj(messages(user("hi"), assistant(part, text("x")), user("go"))))
		req, err := Parse(body)
		if err != nil || len(req.Blocks()) != 1 {
			t.Fatalf("%s: Parse found %d blocks, %v", part, len(req.Blocks()), err)
		}
		if got := req.Blocks()[0]; got.Key != want || got.Message != 1 || got.Index != 0 {
			t.Errorf("%s: block %+v, want key %v", part, got, want)
		}
		if oracle := blockKey(t, body, 1, 0); oracle != want {
			t.Errorf("%s: encoding/json reads key %v, want %v", part, oracle, want)
		}
		req.Release()
	}
}

func TestValidMessagesAreNotTouched(t *testing.T) {
	for _, in := range []string{
		// Thinking after text in a message that is not a tool loop's first:
		// a response may hold that, and the latest must come back as is.
		obj(messages(user("hi"), assistant(th("a", "s1"), text("x"), th("b", "s2"), text("y")), user("go")), enabled),
		obj(messages(user("do"), assistant(th("", "s1"), toolUse("t1")), toolResult("t1"), assistant(text("x"), th("b", "s2"))), enabled),
		// Thinking off: the order does not matter to the API.
		obj(messages(user("do"), assistant(text("x"), th("", "s1"), toolUse("t1")), toolResult("t1"))),
	} {
		req := mustParse(t, []byte(in))
		out, res, err := req.Rewrite(make([]Action, len(req.Blocks())))
		if err != nil || string(out) != in || res.Changed() {
			t.Errorf("a valid body changed (%+v, %v):\n got %s\nwant %s", res, err, out, in)
		}
		req.Release()
	}
}

func TestResumedRequestsRememberReasoningParts(t *testing.T) {
	first := obj(messages(user("hi"), assistant(reasoning5("plan", "s1"), text("x")), user("go")), enabled)
	next := obj(messages(user("hi"), assistant(reasoning5("plan", "s1"), text("x")), user("go"), assistant(text("y")), user("more")), enabled)
	var cp Checkpoint
	req := mustParse(t, []byte(first))
	h := req.History()
	req.Save(&cp)
	req.Release()
	req, err := Resume([]byte(next), follow(h, &cp))
	if err != nil {
		t.Fatal(err)
	}
	defer req.Release()
	if req.resumedAt == 0 {
		t.Fatal("the request was not resumed from the checkpoint")
	}
	out, res, err := req.Rewrite([]Action{Keep})
	want := obj(messages(user("hi"), assistant(th("plan", "s1"), text("x")), user("go"), assistant(text("y")), user("more")), enabled)
	if err != nil || string(out) != want || res.Normalized != 1 {
		t.Fatalf("resumed rewrite (%+v, %v):\n got %s\nwant %s", res, err, out, want)
	}
}
