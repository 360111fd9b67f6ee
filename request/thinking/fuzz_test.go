package thinking

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// oracleBlock is a thinking block as encoding/json sees it.
type oracleBlock struct {
	kind                  block.Kind
	msg, index            int
	text, signature, data string
}

// key is the block's key, from the fields encoding/json decoded.
func (b oracleBlock) key() block.Key {
	var h block.Hasher
	if b.kind == block.Redacted {
		return h.Redacted([]byte(b.data))
	}
	h.Write([]byte(b.text))
	return h.Thinking([]byte(b.signature))
}

// oracleBlocks finds the thinking blocks of body with encoding/json, reading
// keys exactly (a map, not a struct: structs match keys case-insensitively).
// ok is false when the body is not something Parse must accept.
func oracleBlocks(body []byte) (blocks []oracleBlock, ok bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return nil, false
	}
	var msgs []map[string]json.RawMessage
	if raw, has := top["messages"]; !has || json.Unmarshal(raw, &msgs) != nil {
		return nil, false
	}
	for mi, m := range msgs {
		var role string
		json.Unmarshal(m["role"], &role)
		var content []json.RawMessage
		if json.Unmarshal(m["content"], &content) != nil || role != "assistant" {
			continue
		}
		for ci, c := range content {
			var b map[string]json.RawMessage
			if json.Unmarshal(c, &b) != nil {
				continue
			}
			var typ string
			json.Unmarshal(b["type"], &typ)
			ob := oracleBlock{msg: mi, index: ci}
			str := func(key string, dst *string) bool {
				raw, has := b[key]
				return !has || json.Unmarshal(raw, dst) == nil && raw[0] == '"'
			}
			switch typ {
			case "thinking":
				ob.kind = block.Thinking
				if !str("thinking", &ob.text) || !str("signature", &ob.signature) {
					return nil, false
				}
			case "redacted_thinking":
				ob.kind = block.Redacted
				if !str("data", &ob.data) {
					return nil, false
				}
			case "reasoning", "reasoning-delta":
				ob = oracleReasoning(b, mi, ci)
			default:
				continue
			}
			blocks = append(blocks, ob)
		}
	}
	return blocks, true
}

// oracleReasoning reads an AI SDK reasoning part as reasoning.go documents
// it, with encoding/json.
func oracleReasoning(b map[string]json.RawMessage, mi, ci int) oracleBlock {
	ob := oracleBlock{kind: block.Thinking, msg: mi, index: ci}
	str := func(m map[string]json.RawMessage, key string) (string, bool) {
		var s string
		raw := m[key]
		return s, len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil
	}
	for _, k := range []string{"text", "reasoning", "thinking", "delta"} {
		if s, ok := str(b, k); ok {
			ob.text = s
			break
		}
	}
	sigSet := false
	if s, ok := str(b, "signature"); ok {
		ob.signature, sigSet = s, true
	}
	for _, p := range []string{"providerOptions", "providerMetadata"} {
		var providers map[string]json.RawMessage
		var fields map[string]json.RawMessage
		if json.Unmarshal(b[p], &providers) != nil || json.Unmarshal(providers["anthropic"], &fields) != nil {
			continue
		}
		if s, ok := str(fields, "signature"); ok && !sigSet {
			ob.signature, sigSet = s, true
		}
		if s, ok := str(fields, "redactedData"); ok && ob.kind != block.Redacted {
			ob.kind, ob.data = block.Redacted, s
		}
	}
	return ob
}

func sameBlocks(t *testing.T, got []Block, want []oracleBlock) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("Parse found %d blocks, encoding/json %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Kind != w.kind || int(g.Message) != w.msg || int(g.Index) != w.index || g.Key != w.key() {
			t.Fatalf("block %d: Parse %+v, encoding/json %+v", i, g, w)
		}
	}
}

// FuzzRewrite checks Parse against encoding/json and the promises of
// Rewrite under arbitrary actions: valid JSON stays valid, kept blocks stay
// byte-identical, counts add up, no message is left empty, and the thinking
// config only goes away when Rewrite says so.
func FuzzRewrite(f *testing.F) {
	for _, b := range fixtureBodies(f) {
		f.Add(b, uint64(0x1234))
	}
	f.Add([]byte(obj(messages(user("do"), assistant(th("", "glm"), toolUse("t1")), toolResult("t1")), enabled, clearOnly)), uint64(1))
	f.Add([]byte(obj(messages(user("hi"), assistant(th("a\n", "s"), red("r"), text("x")), user("go")))), uint64(7))
	f.Add(fixtureOfSize(f, 16<<10), uint64(99))
	f.Add([]byte(obj(messages(user("do"), assistant(text("x"), reasoning5("a", "s"), redactedReasoning("r"), toolUse("t1")), toolResult("t1")), enabled)), uint64(3))
	f.Add([]byte(obj(messages(user("do"), assistant(text("x"), th("", "s"), toolUse("t1")), toolResult("t1")), adaptive)), uint64(5))
	// Configs the API refuses for their type, which are not malformed JSON.
	f.Add([]byte(`{"thinking":true,"metadata":1,"context_management":null,"messages":[]}`), uint64(21))
	// A long opening before the messages, which Heads remembers.
	f.Add(openedBy(strings.Repeat("s ", minHead), model, enabled, stream), uint64(11))

	f.Fuzz(func(t *testing.T, body []byte, seed uint64) {
		req, err := Parse(body)
		want, mustParse := oracleBlocks(body)
		if err != nil {
			if mustParse && !errors.Is(err, ErrNotMessages) {
				t.Fatalf("Parse rejected a valid request: %v", err)
			}
			return
		}
		if mustParse {
			sameBlocks(t, req.Blocks(), want)
		}
		checkResume(t, req, body, seed)

		actions := make([]Action, len(req.Blocks()))
		dropSig := seed%4 == 0
		for i := range actions {
			seed = seed*6364136223846793005 + 1442695040888963407
			actions[i] = Action(seed >> 61 % 4) // Keep, Strip, ConvertToText, ConvertToTags
			if dropSig && seed>>59%2 == 0 {
				actions[i] = DropSignature
			}
		}
		req.Omit(Omission(seed>>20) & (OmitThinking | OmitContextManagement | OmitClearThinking | OmitThinkingDisplay | OmitThinkingOff))
		out, res, err := req.Rewrite(actions)
		if errors.Is(err, ErrInvalidJSON) {
			if json.Valid(body) {
				t.Fatal("valid body reported invalid")
			}
			return
		}
		if err != nil {
			t.Fatalf("Rewrite: %v", err)
		}
		after := checkRewrite(t, "", body, out, res, actions)
		if after == nil {
			return
		}
		checkOmitted(t, after, res)
		checkKeptBlocks(t, req, after, actions, res, dropSig)
		checkMessages(t, req, after, res)
		checkCautious(t, req, actions)
		checkFitted(t, body, actions, seed)
	})
}

// checkRewrite verifies what a rewrite of body promises: counts that add
// up, the body itself when nothing changed, and otherwise valid JSON that
// Parse reads. It returns the output parsed, or nil when nothing changed;
// how names the rewrite in failures ("" or "fitted ").
func checkRewrite(t *testing.T, how string, body, out []byte, res Result, actions []Action) *Request {
	t.Helper()
	checkCounts(t, how, res, actions)
	if !res.Changed() {
		if !bytes.Equal(out, body) {
			t.Fatal("unchanged " + how + "result but different body")
		}
		return nil
	}
	return parseOwn(t, how, out)
}

// checkCounts verifies that a rewrite counted each block once; how names
// the rewrite in failures ("", "fitted ", "cautious ").
func checkCounts(t *testing.T, how string, res Result, actions []Action) {
	t.Helper()
	if res.Kept+res.Stripped+res.Converted != len(actions) {
		t.Fatalf(how+"counts %+v do not add up to %d blocks", res, len(actions))
	}
}

// parseOwn verifies that a rewrite's output is valid JSON that Parse reads,
// and returns it parsed; how names the rewrite in failures.
func parseOwn(t *testing.T, how string, out []byte) *Request {
	t.Helper()
	if !json.Valid(out) {
		t.Fatalf(how+"rewrite produced invalid JSON:\n%s", out)
	}
	after, err := Parse(out)
	if err != nil {
		t.Fatalf("cannot parse own "+how+"output: %v", err)
	}
	return after
}

// checkFitted verifies the promises of WantThinkingBack and Retype on a
// body rewritten with the same actions: valid JSON, the same messages,
// counts that add up, thinking of the type asked for, every message that
// must hold thinking starting with it, and no thinking block but the
// kept ones and unsigned ones.
func checkFitted(t *testing.T, body []byte, actions []Action, seed uint64) {
	t.Helper()
	req, err := Parse(body)
	if err != nil {
		t.Fatalf("Parse again: %v", err)
	}
	defer req.Release()
	tb := ThinkingBack(seed >> 40 % 3)
	typ := [...]string{"", "adaptive", "enabled"}[seed>>42%3]
	req.WantThinkingBack(tb)
	req.Retype(typ)
	out, res, err := req.Rewrite(actions)
	if err != nil {
		if errors.Is(err, ErrInvalidJSON) {
			return
		}
		t.Fatalf("fitted Rewrite: %v", err)
	}
	after := checkRewrite(t, "fitted ", body, out, res, actions)
	if after == nil {
		return
	}
	defer after.Release()
	checkMessages(t, req, after, res)
	if res.Retyped != "" && string(after.thinkingType) != res.Retyped {
		t.Fatalf("retyped to %q, sent %q:\n%s", res.Retyped, after.thinkingType, out)
	}
	kept := map[string]bool{}
	for _, p := range req.content {
		if p.block >= 0 && actions[p.block] == Keep && !p.reasoning {
			kept[string(p.span.Of(req.body))] = true
		}
	}
	for _, p := range after.content {
		raw := string(p.span.Of(after.body))
		if p.block >= 0 && !kept[raw] && !slices.Contains(actions, DropSignature) && !strings.HasSuffix(raw, `,"signature":""}`) && !req.shapesReasoning() {
			t.Fatalf("thinking block %s is neither kept nor unsigned:\n%s", raw, out)
		}
	}
	if !thinkingOn(string(after.thinkingType)) || tb == NoThinkingBack {
		return
	}
	after.WantThinkingBack(tb)
	for mi := range after.messages {
		if after.wantsThinking(mi, after.lastRole()) {
			if !slices.ContainsFunc(after.parts(mi), func(p part) bool { return p.typ.isThinking() }) {
				t.Fatalf("message %d must hold thinking:\n%s", mi, out)
			}
		}
	}
}

// shapesReasoning reports whether the body holds AI SDK reasoning parts or
// misplaced thinking, which a rewrite sends in the API's shape.
func (r *Request) shapesReasoning() bool { return r.shapes.reasoning > 0 || r.shapes.misordered > 0 }

// checkResume verifies that a checkpoint of the body reads it again as
// Parse does, and that a body changed anywhere is read from the first
// message that changed.
func checkResume(t *testing.T, req *Request, body []byte, seed uint64) {
	t.Helper()
	var cp Checkpoint
	h := req.History()
	req.Save(&cp)
	// The body's opening is remembered first, when it is worth it: again
	// takes both it and the checkpoint.
	var heads Heads
	if first, err := ResumeWith(body, Resumption{Heads: &heads}); err == nil {
		first.Release()
	}
	again, err := ResumeWith(body, Resumption{Find: follow(h, &cp), Heads: &heads})
	if err != nil {
		t.Fatalf("Resume of the body a checkpoint was saved from: %v", err)
	}
	if again.from.Shared != h.Len() || h.Len() > 0 && again.resumedAt == 0 {
		t.Fatalf("a checkpoint did not cover its own body: %d of %d messages", again.from.Shared, h.Len())
	}
	// A rewrite of what was taken from the checkpoint as it was, before
	// anything else asks for it, is the rewrite of the body read in full.
	actions := make([]Action, len(again.Blocks()))
	for i := range actions {
		actions[i] = Action(seed >> (i % 60) % 4)
	}
	full, _ := Parse(body)
	a, ra, aerr := again.Rewrite(actions)
	b, rb, berr := full.Rewrite(actions)
	if !bytes.Equal(a, b) || ra != rb || (aerr == nil) != (berr == nil) {
		t.Fatalf("rewrites of a resumed and a full read differ:\n%s\n%s", a, b)
	}
	full.Release()
	sameState(t, again, req)
	// Saved again once the rewrite made its structure its own, the
	// checkpoint still reads the body as Parse does.
	var cp2 Checkpoint
	h2 := again.History()
	again.Save(&cp2)
	again.Release()
	third, err := Resume(body, follow(h2, &cp2))
	if err != nil {
		t.Fatalf("Resume from a checkpoint saved after a rewrite: %v", err)
	}
	sameState(t, third, req)
	third.Release()
	if len(body) == 0 {
		return
	}
	changed := bytes.Clone(body)
	changed[int(seed%uint64(len(body)))] ^= 1
	resumed, rerr := Resume(changed, follow(h, &cp))
	full, ferr := Parse(changed)
	if (rerr == nil) != (ferr == nil) {
		t.Fatalf("changed body: Resume err %v, Parse err %v", rerr, ferr)
	}
	if rerr == nil {
		if rh, fh := resumed.History(), full.History(); !reflect.DeepEqual(rh, fh) {
			t.Fatalf("History of a resumed read %+v, of a full read %+v", rh, fh)
		}
		sameState(t, resumed, full)
		resumed.Release()
		full.Release()
	}
}

// checkOmitted verifies that what a rewrite says it left out is gone.
func checkOmitted(t *testing.T, after *Request, res Result) {
	t.Helper()
	if res.Omitted&(OmitThinking|OmitContextManagement) != 0 && res.Omitted&OmitContextManagement != 0 && after.hasMember(contextMember) {
		t.Fatal("context_management omitted but still there")
	}
	if res.Omitted&OmitThinking != 0 && after.hasMember(thinkingMember) {
		t.Fatal("thinking omitted but its config is still there")
	}
	if res.Omitted&OmitThinkingDisplay != 0 && !res.DroppedThinkingConfig && after.thinkingDisplay {
		t.Fatal("thinking display omitted but still there")
	}
	if res.Omitted&(OmitThinking|OmitClearThinking) != 0 && after.contextEdits.End != 0 && after.hasClearThinkingEdit() {
		t.Fatal("clear_thinking edits omitted but still there")
	}
}

// checkCautious verifies RewriteCautiously's promises on the same input:
// valid JSON, counts that add up, no assistant message ending in thinking,
// and no thinking left in a final tool loop once thinking is off.
func checkCautious(t *testing.T, req *Request, actions []Action) {
	t.Helper()
	out, res, err := req.RewriteCautiously(actions)
	if err != nil {
		t.Fatalf("RewriteCautiously: %v", err)
	}
	checkCounts(t, "cautious ", res, actions)
	after := parseOwn(t, "cautious ", out)
	defer after.Release()
	for mi, m := range after.messages {
		if parts := after.parts(mi); m.role == assistantRole && len(parts) > 0 && parts[len(parts)-1].typ.isThinking() {
			t.Fatalf("message %d ends in thinking after a cautious rewrite:\n%s", mi, out)
		}
	}
	if thinkingOn(string(after.thinkingType)) {
		return
	}
	turn, _ := after.finalTurn()
	for _, mi := range turn {
		for _, p := range after.parts(mi) {
			if p.typ.isThinking() {
				t.Fatalf("thinking off, yet final-turn message %d holds thinking:\n%s", mi, out)
			}
		}
	}
}

// checkKeptBlocks verifies that the output's thinking blocks are the input's
// kept ones, in order and byte for byte.
func checkKeptBlocks(t *testing.T, before, after *Request, actions []Action, res Result, dropSig bool) {
	t.Helper()
	var kept [][]byte
	for _, p := range before.content {
		switch {
		case p.block < 0 || actions[p.block] != Keep:
		case p.reasoning: // sent in the API's shape
			kept = append(kept, before.appendNormalized(nil, p, true))
		default:
			kept = append(kept, p.span.Of(before.body))
		}
	}
	var outBlocks [][]byte
	for _, p := range after.content {
		if p.block >= 0 {
			outBlocks = append(outBlocks, p.span.Of(after.body))
		}
	}
	if !dropSig && len(outBlocks) != res.Kept {
		t.Fatalf("output has %d thinking blocks, result says %d kept", len(outBlocks), res.Kept)
	}
	// Every kept block that survived appears unchanged and in order.
	j := 0
	for _, ob := range outBlocks {
		for j < len(kept) && !bytes.Equal(kept[j], ob) {
			j++
		}
		if j == len(kept) && !dropSig {
			t.Fatalf("output block %s is not a kept input block", ob)
		}
	}
}

// checkMessages verifies message-level promises: same messages in the same
// roles, untouched non-assistant messages, no message emptied (but the
// last), and the thinking config present unless dropped.
func checkMessages(t *testing.T, before, after *Request, res Result) {
	t.Helper()
	if len(after.messages) != len(before.messages) {
		t.Fatalf("%d messages became %d", len(before.messages), len(after.messages))
	}
	for i, bm := range before.messages {
		am := after.messages[i]
		if am.role != bm.role {
			t.Fatalf("message %d changed role", i)
		}
		if bm.role != assistantRole && !bytes.Equal(bm.content.Of(before.body), am.content.Of(after.body)) {
			t.Fatalf("non-assistant message %d was edited", i)
		}
		emptied := bm.parts.End > bm.parts.Start && am.parts.End == am.parts.Start
		if emptied && i != len(before.messages)-1 {
			t.Fatalf("message %d was left empty", i)
		}
	}
	if hadConfig, hasConfig := before.hasMember(thinkingMember), after.hasMember(thinkingMember); hadConfig && !hasConfig != res.DroppedThinkingConfig {
		t.Fatalf("thinking config present %v after, dropped reported %v", hasConfig, res.DroppedThinkingConfig)
	}
}
