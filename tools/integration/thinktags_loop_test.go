package integration

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// toolUseOf is the tool_use block of the n-th answer of the backend.
func toolUseOf(backend string, n int) string {
	return fmt.Sprintf(`{"type":"tool_use","id":"toolu_%s_%d","name":"Bash","input":{"command":"echo %s"}}`, backend, n, backend)
}

// synthesizedThinking is the thinking block the client gets for the n-th
// answer of the Tagged backend "tagged".
func synthesizedThinking(t *testing.T, n int) string {
	t.Helper()
	blocks := synthesizedBlocks(t, "tagged", n)
	return blocks[:len(blocks)-len(fmt.Sprintf(`,{"type":"text","text":"tagged answer %d."}`, n))]
}

// TestThinkTagsInAToolLoop runs a tool loop on a backend that writes its
// reasoning between think tags: the reasoning before each tool call becomes
// a thinking block of its own (the text block around it, nothing but the
// section and whitespace, is gone), the backend gets it back as
// think_tags_replay says, and keeps reasoning on every step of the loop.
func TestThinkTagsInAToolLoop(t *testing.T) {
	t.Run("replay as tags", func(t *testing.T) { testThinkTagsInAToolLoop(t, "tags") })
	t.Run("replay as thinking", func(t *testing.T) { testThinkTagsInAToolLoop(t, "thinking") })
}

func testThinkTagsInAToolLoop(t *testing.T, replay string) {
	g := newGateway(t, taggedAndAnthropic, "tagged", withHandler("think_tags on\nthink_tags_replay "+replay))
	tagged := g.upstreams["tagged"]
	c, ok := g.session("think-tags-loop")

	turn := ok(c.Say("[tool] list the files"))
	if want := `{"role":"assistant","content":[` + synthesizedThinking(t, 1) + `,` + toolUseOf("tagged", 1) + `]}`; string(turn.Message) != want {
		t.Fatalf("answer 1\n got %s\nwant %s", turn.Message, want)
	}
	want := []string{"message_start", "ping", "start 0 thinking", "delta 0 thinking_delta", "delta 0 signature_delta", "stop 0",
		"start 1 tool_use", "delta 1 input_json_delta", "stop 1", "message_delta", "message_stop"}
	if got := streamShape(t, turn.Raw); !slices.Equal(got, want) {
		t.Errorf("answer 1 events\n got %q\nwant %q", got, want)
	}

	turn = ok(c.ToolResult("[tool] file1 file2"))
	got := lastRequest(t, tagged).Body
	own := `{"role":"assistant","content":[{"type":"text","text":"<think>` + taggedThinking(1) + `</think>"},` + toolUseOf("tagged", 1) + `]}`
	if replay == "thinking" {
		own = string(c.Messages[1])
	}
	assertMessages(t, got, map[int]string{1: own})
	top := topLevel(t, got)
	if string(top["thinking"]) != `{"budget_tokens":31999,"type":"enabled","display":"omitted"}` ||
		string(top["context_management"]) != `{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]}` {
		t.Errorf("the loop's next step went out with thinking %s, context_management %s", top["thinking"], top["context_management"])
	}
	if want := `{"role":"assistant","content":[` + synthesizedThinking(t, 2) + `,` + toolUseOf("tagged", 2) + `]}`; string(turn.Message) != want {
		t.Errorf("answer 2\n got %s\nwant %s", turn.Message, want)
	}
}

// TestThinkTagsToolLoopMovesToAnthropic switches in the middle of a tool
// loop that a think-tags backend started: Anthropic, which never saw its
// reasoning, gets the loop without thinking and accepts it at once.
func TestThinkTagsToolLoopMovesToAnthropic(t *testing.T) {
	g := newGateway(t, taggedAndAnthropic, "tagged", withHandler("think_tags on"))
	anthropic := g.upstreams["anthropic"]
	c, ok := g.session("think-tags-loop-switch")
	turn := ok(c.Say("[tool] list the files"))
	if want := `{"role":"assistant","content":[` + synthesizedThinking(t, 1) + `,` + toolUseOf("tagged", 1) + `]}`; string(turn.Message) != want {
		t.Fatalf("answer 1\n got %s\nwant %s", turn.Message, want)
	}

	g.use("anthropic")
	ok(c.ToolResult("[tool] file1 file2"))
	ok(c.ToolResult("done"))
	reqs := answeredWith(t, anthropic, http.StatusOK, http.StatusOK)
	assertBlocks(t, thinkingBlocks(t, reqs[0].Body), nil)
	assertMessages(t, reqs[0].Body, map[int]string{1: `{"role":"assistant","content":[` + toolUseOf("tagged", 1) + `]}`})
	for i, r := range reqs {
		top := topLevel(t, r.Body)
		if _, ok := top["thinking"]; ok {
			t.Errorf("request %d: thinking config still sent although the loop lost its leading thinking", i)
		}
		if _, ok := top["context_management"]; ok {
			t.Errorf("request %d: clear_thinking edit still sent with thinking off", i)
		}
	}

	// A new turn: thinking is on again, Anthropic's own block comes back.
	ok(c.Say("thanks"))
	ok(c.Say("and then?"))
	last := lastRequest(t, anthropic).Body
	if _, ok := topLevel(t, last)["thinking"]; !ok {
		t.Error("thinking config missing from the next turn")
	}
	assertBlocks(t, thinkingBlocks(t, last), historyBlocks(c)[len(historyBlocks(c))-2:len(historyBlocks(c))-1])
}
