package integration

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// failOverInsideToolLoop takes a conversation round a tool loop on
// Anthropic (strict) and has Anthropic answer 529 to the request that
// brings the tool's result: the loop goes on at the next backend, which
// answers that request and, the conversation holding there, two more of
// its own loop. No turn may fail. It returns the signatures of Anthropic's
// blocks.
func failOverInsideToolLoop(t *testing.T, g *gateway, session string, stream bool) []string {
	t.Helper()
	anthropic := g.upstreams["anthropic"]
	c, ok := g.session(session)
	c.Stream = stream
	ok(c.Say("[tool] list the files"))
	ok(c.ToolResult("a.go b.go [tool]"))
	sigs := signaturesOf(t, historyBlocks(c))
	anthropic.FailNext(llmtest.Overloaded)
	ok(c.ToolResult("package a"))
	ok(c.Say("[tool] go on"))
	ok(c.ToolResult("done"))
	if got := len(anthropic.Requests()); got != 3 || lastRequest(t, anthropic).Status != 529 || refusals(anthropic) != 0 {
		t.Fatalf("anthropic got %d requests, refused %d; want 3, the last answered 529", got, refusals(anthropic))
	}
	return sigs
}

// TestFailoverInsideToolLoopToKimi: a failover inside Anthropic's tool loop
// to Kimi's Anthropic endpoint, which wants thinking on every assistant
// message with a tool call (declared with backend_profile, or learned from
// its refusal, which the safety net absorbs): the client sees no error, and
// Kimi gets the loop as the API takes it, with none of Anthropic's
// thinking.
func TestFailoverInsideToolLoopToKimi(t *testing.T) {
	for _, declared := range []bool{true, false} {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("declared=%v/stream=%v", declared, stream), func(t *testing.T) {
				opts := []func(*gateway){withFailover("anthropic", "kimi")}
				if declared {
					opts = append(opts, withHandler("backend_profile kimi {\n\tthinking_back tool_calls\n}"))
				}
				g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict, "kimi": llmtest.Lenient}, "anthropic", opts...)
				kimi := g.upstreams["kimi"]
				kimi.WantThinkingBack(llmtest.KimiThinkingBack)
				sigs := failOverInsideToolLoop(t, g, "failover-loop-kimi", stream)

				reqs := kimi.Requests()
				carriesNone(t, "kimi", reqs, sigs)
				assertToolLoop(t, reqs[0].Body)
				assertToolLoop(t, lastRequest(t, kimi).Body)
				want := 0
				if declared {
					// Thinking stays on: each of Anthropic's tool calls is
					// led by a filler.
					fillers := thinkingBlocks(t, reqs[0].Body)
					if len(fillers) != 2 || !isFiller(fillers[0]) || !isFiller(fillers[1]) {
						t.Errorf("kimi got, for Anthropic's two tool calls: %s", fillers)
					}
				} else {
					// The loop that lost Anthropic's thinking goes with
					// thinking off, as for any switch, which Kimi takes; the
					// next request, with thinking on, is refused for the
					// earlier tool call without thinking, and replayed with
					// fillers.
					want = 1
				}
				if n, st := refusals(kimi), g.stats(); n != want || st.Retries != uint64(want) {
					t.Errorf("kimi refused %d requests, %d replayed; want %d", n, st.Retries, want)
				}
			})
		}
	}
}

// assertToolLoop fails unless a Messages request body ends in a tool loop
// the API takes: its last message, the user's, answers each tool_use of
// the assistant message before it with a tool_result, and with thinking
// enabled that message starts with a thinking block.
func assertToolLoop(t *testing.T, body []byte) {
	t.Helper()
	var req struct {
		Thinking struct {
			Type string `json:"type"`
		} `json:"thinking"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string `json:"type"`
				ID        string `json:"id"`
				ToolUseID string `json:"tool_use_id"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) < 2 {
		t.Fatalf("not a request with a tool loop (%v): %s", err, body)
	}
	call, result := req.Messages[len(req.Messages)-2], req.Messages[len(req.Messages)-1]
	var uses, results []string
	for _, b := range call.Content {
		if b.Type == "tool_use" {
			uses = append(uses, b.ID)
		}
	}
	for _, b := range result.Content {
		if b.Type == "tool_result" {
			results = append(results, b.ToolUseID)
		}
	}
	if call.Role != "assistant" || result.Role != "user" || len(uses) == 0 || !slices.Equal(uses, results) {
		t.Fatalf("the request does not end in a tool loop: tool_use %v, tool_result %v: %s", uses, results, body)
	}
	if req.Thinking.Type == "enabled" && call.Content[0].Type != "thinking" && call.Content[0].Type != "redacted_thinking" {
		t.Fatalf("thinking is enabled and the loop's assistant message starts with %s: %s", call.Content[0].Type, body)
	}
}

// TestFailoverInsideToolLoopThroughTransports: a failover inside
// Anthropic's tool loop to a backend reached through a translating
// transport, against its strict mock: chat completions in Kimi's dialect
// (which refuses a tool call that comes back without its reasoning, or is
// not answered right after) and the Responses API (strict about its items
// and their encrypted reasoning). The client sees no error; the server
// refuses nothing, never gets Anthropic's thinking, and gets the loop in
// its own API: Anthropic's call, then its result.
func TestFailoverInsideToolLoopThroughTransports(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("openai/stream=%v", stream), func(t *testing.T) {
			body := failOverThrough(t, "chat", stream, func(g *gateway) mockUpstream {
				withChat("chat", llmtest.KimiStyle, "transport openai")(g)
				return g.chats["chat"]
			})
			_, msgs := chatRequest(t, body)
			call, result := msgs[len(msgs)-2], msgs[len(msgs)-1]
			if call.Role != "assistant" || len(call.ToolCalls) != 1 || call.ReasoningContent == nil ||
				result.Role != "tool" || result.ToolCallID != call.ToolCalls[0].ID {
				t.Errorf("the chat server did not get Anthropic's call, with reasoning, then its result: %s", body)
			}
		})
		t.Run(fmt.Sprintf("responses/stream=%v", stream), func(t *testing.T) {
			oa := startResponses(t, "oa", responsesKey)
			body := failOverThrough(t, "oa", stream, func(g *gateway) mockUpstream {
				withResponses("oa", oa, responsesKey)(g)
				return oa
			})
			_, items := responsesInput(t, body)
			call, result := items[len(items)-2], items[len(items)-1]
			if call.Type != "function_call" || result.Type != "function_call_output" || result.CallID != call.CallID {
				t.Errorf("the Responses API did not get Anthropic's call then its result: %s", body)
			}
		})
	}
}

// failOverThrough fails over inside Anthropic's tool loop (see
// failOverInsideToolLoop) to the backend called name, whose mock reach
// adds to the gateway and returns: the mock must refuse nothing and get
// nothing of Anthropic's. It returns the body of the request the failover
// brought it.
func failOverThrough(t *testing.T, name string, stream bool, reach func(*gateway) mockUpstream) []byte {
	t.Helper()
	var u mockUpstream
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic",
		withFailover("anthropic", name), func(g *gateway) { u = reach(g) })
	sigs := failOverInsideToolLoop(t, g, "failover-loop-"+name, stream)
	carriesNone(t, name, u.Requests(), sigs)
	assertAccepted(t, name, u)
	return u.Requests()[0].Body
}
