package policy

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
)

func envelope(typ, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}, "request_id": "req_1"})
	return b
}

func TestRefusalMessage(t *testing.T) {
	refusals := []string{
		"messages.1.content.0: Invalid `signature` in `thinking` block",
		"messages.1.content.0.thinking.signature: Field required",
		"messages.1.content.2: Invalid `data` in `redacted_thinking` block",
		"messages.13.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.",
		"messages.3.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).",
		"messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.",
		"messages.1: The final block in an assistant message cannot be `thinking`.",
		"messages.5.content.0: thinking block is bound to a different conversation",
		"`clear_thinking_20251015` strategy requires `thinking` to be enabled",
		"Corrupted thought signature.",
		"The encrypted content gAAAAABo9x could not be verified. Reason: Encrypted content organization_id did not match the target organization.",
		"The encrypted content gAAAAABo9x could not be decrypted or parsed.",
	}
	for _, msg := range refusals {
		if got, ok := RefusalMessage(envelope("invalid_request_error", msg)); !ok || got != msg {
			t.Errorf("not a refusal: %q", msg)
		}
	}
	// FastAPI servers refuse with a 422 and a list of what is wrong.
	for body, want := range map[string]string{
		`{"detail":[{"type":"literal_error","loc":["body","thinking","type"],"msg":"Input should be 'enabled' or 'disabled'","input":"adaptive"}]}`: "thinking.type: Input should be 'enabled' or 'disabled'",
		`{"detail":[{"loc":["body","messages",1,"content",0,"thinking","signature"],"msg":"Field required"}]}`:                                      "messages.1.content.0.thinking.signature: Field required",
	} {
		if got, ok := RefusalMessage([]byte(body)); !ok || got != want {
			t.Errorf("%s: %q %v, want %q", body, got, ok, want)
		}
	}
	others := [][]byte{
		[]byte(`{"detail":[{"loc":["body","max_tokens"],"msg":"Input should be less than 64000"}]}`),
		[]byte(`{"detail":"Not Found"}`),
		envelope("invalid_request_error", "max_tokens: must be at most 64000"),
		envelope("overloaded_error", "Invalid `signature` in `thinking` block"),
		[]byte(`{"type":"error","error":{"type":"invalid_request_error"`),
		[]byte(`not json`),
		[]byte(`{"type":"message","content":[]}`),
	}
	for _, body := range others {
		if _, ok := RefusalMessage(body); ok {
			t.Errorf("refusal: %s", body)
		}
	}
}

func TestRefusedPosition(t *testing.T) {
	for msg, want := range map[string][2]int{
		"messages.1.content.0: Invalid `signature` in `thinking` block":      {1, 0},
		"messages.13.content.4.thinking.signature: Field required":           {13, 4},
		"messages.7.content.12: Invalid `data` in `redacted_thinking` block": {7, 12},
	} {
		if n, m, ok := refusedPosition(msg); !ok || [2]int{n, m} != want {
			t.Errorf("%q: %d %d %v", msg, n, m, ok)
		}
	}
	for _, msg := range []string{
		"messages.1: The final block in an assistant message cannot be `thinking`.",
		"Invalid `signature` in `thinking` block",
		"messages.x.content.0: Invalid `signature` in `thinking` block",
	} {
		if _, _, ok := refusedPosition(msg); ok {
			t.Errorf("%q names a block", msg)
		}
	}
}

// signatureRefusal is the strict upstream's answer to the block at
// messages.m.content.0.
func signatureRefusal(backend string, m int, sent []byte) Refusal {
	return Refusal{Backend: backend, Message: fmt.Sprintf("messages.%d.content.0: Invalid `signature` in `thinking` block", m), Sent: sent}
}

func TestReplayAfterAKeyChangeRefusesEveryOldBlock(t *testing.T) {
	p := newPolicy()
	for _, sig := range []string{"a1", "a2"} {
		p.Plan(Request{Body: body(), Header: session("s1"), Backend: "anthropic"})
		p.Register(0, "anthropic", "m", []block.Observed{{Kind: block.Thinking, Key: keyOf(sig)}})
	}
	req := Request{Body: body("a1", "a2"), Header: session("s1"), Backend: "anthropic"}
	first := p.Plan(req)
	if first.Result.Kept != 2 {
		t.Fatalf("first plan kept %d blocks, want 2", first.Result.Kept)
	}
	// anthropic's key changed: it refuses its own first block.
	replay := p.Replay(req, signatureRefusal("anthropic", 1, first.Body))
	if replay.Result.Kept != 0 || strings.Contains(string(replay.Body), `"signature"`) {
		t.Fatalf("the replay kept blocks the upstream no longer accepts: %+v\n%s", replay.Result, replay.Body)
	}
	// The next request does not offer them again.
	next := p.Plan(req)
	for _, d := range next.Decisions {
		if d.Action == thinking.Keep || d.Reason != ReasonRefused {
			t.Fatalf("after the refusal: %+v", next.Decisions)
		}
	}
	if s := p.Registry.Stats(); s.Retries != 1 || s.Refusals != 2 {
		t.Fatalf("stats %+v, want 1 retry and 2 refusals", s)
	}
}

// TestReplayAfterABoundRefusalKeepsTheEarlierBlocks: a block refused for
// a conversation that changed before it takes the backend's later blocks
// with it, whose prefix changed too; the earlier ones are still good.
func TestReplayAfterABoundRefusalKeepsTheEarlierBlocks(t *testing.T) {
	p := newPolicy()
	for _, sig := range []string{"a1", "a2", "a3"} {
		p.Plan(Request{Body: body(), Header: session("s1"), Backend: "anthropic"})
		p.Register(0, "anthropic", "m", []block.Observed{{Kind: block.Thinking, Key: keyOf(sig)}})
	}
	req := Request{Body: body("a1", "a2", "a3"), Header: session("s1"), Backend: "anthropic"}
	first := p.Plan(req)
	refusal := Refusal{Backend: "anthropic", Message: "messages.3.content.0: thinking block is bound to a different conversation", Sent: first.Body}
	p.Replay(req, refusal)
	next := p.Plan(req)
	var kept []block.Key
	for _, d := range next.Decisions {
		if d.Action == thinking.Keep {
			kept = append(kept, d.Key)
		}
	}
	if len(kept) != 1 || kept[0] != keyOf("a1") {
		t.Fatalf("after the refusal: %+v", next.Decisions)
	}
}

func TestReplayKeepsWhatIsProvenTheTargets(t *testing.T) {
	p := newPolicy()
	p.Plan(Request{Body: body(), Header: session("s1"), Backend: "anthropic"})
	p.Register(0, "anthropic", "m", []block.Observed{{Kind: block.Thinking, Key: keyOf("own")}})
	// "stray" is unknown (say, from before a restart) and the conversation
	// has known anthropic alone, so the plan keeps it; the upstream refuses.
	req := Request{Body: body("own", "stray"), Header: session("s1"), Backend: "anthropic"}
	first := p.Plan(req)
	if first.Result.Kept != 2 {
		t.Fatalf("first plan kept %d, want 2", first.Result.Kept)
	}
	replay := p.Replay(req, signatureRefusal("anthropic", 3, first.Body))
	// The stray block was in the latest assistant message: thinking goes
	// off for the replay, as the API may refuse that message otherwise.
	if replay.Result != (thinking.Result{Kept: 1, Stripped: 1, DroppedThinkingConfig: true, ToolLoopRule: true}) || !strings.Contains(string(replay.Body), thinkingBlock("own")) {
		t.Fatalf("replay %+v:\n%s", replay.Result, replay.Body)
	}
	if s := p.Registry.Stats(); s.Refusals != 1 {
		t.Fatalf("refusals = %d, want only the stray block", s.Refusals)
	}
}

func TestReplayWithoutANamedBackendKeepsNothing(t *testing.T) {
	p := newPolicy()
	p.Register(0, "10.0.0.1:443", "m", []block.Observed{{Kind: block.Thinking, Key: keyOf("up1")}})
	p.Registry.Served(hashedID("s1"), "10.0.0.1:443")
	req := Request{Body: body("up1"), Header: session("s1")}
	first := p.Plan(req)
	if first.Target != "10.0.0.1:443" || first.Result.Kept != 1 {
		t.Fatalf("first plan: target %q, %+v", first.Target, first.Result)
	}
	// Another upstream behind the same route answered.
	replay := p.Replay(Request{Body: req.Body, Header: req.Header}, signatureRefusal("10.0.0.2:443", 1, first.Body))
	if replay.Result.Kept != 0 || replay.Target != "" {
		t.Fatalf("replay to an unknown upstream: target %q, %+v", replay.Target, replay.Result)
	}
	if a := p.Plan(Request{Body: req.Body, Header: http.Header{}, Backend: "10.0.0.2:443"}); a.Decisions[0].Reason != ReasonRefused {
		t.Fatalf("the refusing upstream is offered the block again: %+v", a.Decisions)
	}
}
