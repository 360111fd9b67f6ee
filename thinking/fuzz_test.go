package thinking

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// oracleBlock is a thinking block as encoding/json sees it.
type oracleBlock struct {
	kind                  Kind
	msg, index            int
	text, signature, data string
	hasSignature          bool
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
				ob.kind = Thinking
				_, ob.hasSignature = b["signature"]
				if !str("thinking", &ob.text) || !str("signature", &ob.signature) {
					return nil, false
				}
			case "redacted_thinking":
				ob.kind = Redacted
				if !str("data", &ob.data) {
					return nil, false
				}
			default:
				continue
			}
			blocks = append(blocks, ob)
		}
	}
	return blocks, true
}

func sameBlocks(t *testing.T, got []Block, want []oracleBlock) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("Parse found %d blocks, encoding/json %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Kind != w.kind || g.Message != w.msg || g.Index != w.index || g.HasSignature != w.hasSignature ||
			string(g.Thinking) != w.text || string(g.Signature) != w.signature || string(g.Data) != w.data {
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

		actions := make([]Action, len(req.Blocks()))
		dropSig := seed%4 == 0
		for i := range actions {
			seed = seed*6364136223846793005 + 1442695040888963407
			actions[i] = Action(seed >> 61 % 4) // Keep, Strip, ConvertToText, ConvertToTags
			if dropSig && seed>>59%2 == 0 {
				actions[i] = DropSignature
			}
		}
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
		if res.Kept+res.Stripped+res.Converted != len(actions) {
			t.Fatalf("counts %+v do not add up to %d blocks", res, len(actions))
		}
		if !res.Changed() {
			if !bytes.Equal(out, body) {
				t.Fatal("unchanged result but different body")
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("rewrite produced invalid JSON:\n%s", out)
		}
		after, err := Parse(out)
		if err != nil {
			t.Fatalf("cannot parse own output: %v", err)
		}
		checkKeptBlocks(t, req, after, actions, res, dropSig)
		checkMessages(t, req, after, res)
	})
}

// checkKeptBlocks verifies that the output's thinking blocks are the input's
// kept ones, in order and byte for byte.
func checkKeptBlocks(t *testing.T, before, after *Request, actions []Action, res Result, dropSig bool) {
	t.Helper()
	var kept [][]byte
	for _, p := range before.content {
		if p.block >= 0 && actions[p.block] == Keep {
			kept = append(kept, p.span.of(before.body))
		}
	}
	var outBlocks [][]byte
	for _, p := range after.content {
		if p.block >= 0 {
			outBlocks = append(outBlocks, p.span.of(after.body))
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
		if bm.role != assistantRole && !bytes.Equal(bm.content.of(before.body), am.content.of(after.body)) {
			t.Fatalf("non-assistant message %d was edited", i)
		}
		emptied := bm.parts.end > bm.parts.start && am.parts.end == am.parts.start
		if emptied && i != len(before.messages)-1 {
			t.Fatalf("message %d was left empty", i)
		}
	}
	if hadConfig, hasConfig := before.hasMember(thinkingMember), after.hasMember(thinkingMember); hadConfig && !hasConfig != res.DroppedThinkingConfig {
		t.Fatalf("thinking config present %v after, dropped reported %v", hasConfig, res.DroppedThinkingConfig)
	}
}
