package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// step is one thing a test does to a conversation: a turn that must
// succeed, a setting, or an edit of the history.
type step func(t *testing.T, c *Conversation)

// say and toolResult are turns that must succeed.
func say(text string) step { return func(t *testing.T, c *Conversation) { must(t)(c.Say(text)) } }

func toolResult(text string) step {
	return func(t *testing.T, c *Conversation) { must(t)(c.ToolResult(text)) }
}

// thinking sets the conversation's thinking mode for the turns after it.
func thinking(mode string) step { return func(t *testing.T, c *Conversation) { c.Thinking = mode } }

// edit applies f to the content blocks of history message i.
func edit(i int, f func([]json.RawMessage) []json.RawMessage) step {
	return func(t *testing.T, c *Conversation) { editContent(t, c, i, f) }
}

// replace replaces the first old in history message i with new.
func replace(i int, old, new string) step {
	return func(t *testing.T, c *Conversation) {
		c.Messages[i] = bytes.Replace(c.Messages[i], []byte(old), []byte(new), 1)
	}
}

// appendMessage appends a message to the history as it is.
func appendMessage(m string) step {
	return func(t *testing.T, c *Conversation) { c.Messages = append(c.Messages, json.RawMessage(m)) }
}

// sayLast and toolResultLast are the final request of a case, whatever it
// is answered.
func sayLast(text string) func(*Conversation) (*Turn, error) {
	return func(c *Conversation) (*Turn, error) { return c.Say(text) }
}

func toolResultLast(text string) func(*Conversation) (*Turn, error) {
	return func(c *Conversation) (*Turn, error) { return c.ToolResult(text) }
}

// historyCase runs steps against src, which break its history in one
// way, and sends the last request to dst.
type historyCase struct {
	name  string
	from  Flavor // flavor of src
	self  bool   // at Strict, dst is src itself rather than another instance
	steps []step
	last  func(c *Conversation) (*Turn, error)
	want  string // the Strict 400 message
}

// toolLoopWithout is the Strict 400 for a tool loop that starts with a
// block of type found instead of thinking.
func toolLoopWithout(found string) string {
	return "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `" + found + "`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
}

// modified is the Strict 400 for the latest assistant message's thinking
// block at path changed.
func modified(path string) string {
	return path + ": `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response."
}

var historyCases = []historyCase{
	{
		name: "another Strict instance's history", from: Strict,
		steps: []step{say("hi"), say("again")}, last: sayLast("now elsewhere"),
		want: "messages.1.content.0: Invalid `signature` in `thinking` block",
	},
	{
		name: "another Strict instance's history, thinking from the second turn on", from: Strict,
		steps: []step{thinking("disabled"), say("hi"), thinking("enabled"), say("think [redacted]")}, last: sayLast("now elsewhere"),
		want: "messages.3.content.0: Invalid `signature` in `thinking` block",
	},
	{
		name: "another Strict instance's redacted block", from: Strict,
		steps: []step{say("hi [redacted]"), edit(1, without("thinking"))}, last: sayLast("now elsewhere"),
		want: "messages.1.content.0: Invalid `data` in `redacted_thinking` block",
	},
	{
		name: "Unsigned history", from: Unsigned,
		steps: []step{say("hi")}, last: sayLast("now elsewhere"),
		want: "messages.1.content.0.thinking.signature: Field required",
	},
	{
		name: "Lenient history", from: Lenient,
		steps: []step{say("hi [redacted]")}, last: sayLast("now elsewhere"),
		want: "messages.1.content.0: Invalid `signature` in `thinking` block",
	},
	{
		name: "altered thinking text", from: Strict, self: true,
		steps: []step{func(t *testing.T, c *Conversation) { c.ShowThinking = true }, say("hi"), replace(1, `\"plan\"`, `\"PLAN\"`)},
		last:  sayLast("again"),
		want:  "messages.1.content.0: Invalid `signature` in `thinking` block",
	},
	{
		name: "text added to an omitted thinking block", from: Strict, self: true,
		steps: []step{say("hi"), replace(1, `"thinking":""`, `"thinking":"x"`)}, last: sayLast("again"),
		want: "messages.1.content.0: Invalid `signature` in `thinking` block",
	},
	{
		name: "empty signature", from: Strict, self: true,
		steps: []step{say("hi"), say("again"), func(t *testing.T, c *Conversation) { replace(3, field(t, c, 3, 0, "signature"), "")(t, c) }},
		last:  sayLast("and again"),
		want:  "messages.3.content.0: Invalid `signature` in `thinking` block",
	},
	{
		name: "thinking block without its text", from: Strict, self: true,
		steps: []step{say("hi"), replace(1, `"thinking":"",`, "")}, last: sayLast("again"),
		want: "messages.1.content.0.thinking.thinking: Field required",
	},
	{
		name: "empty content", from: Strict, self: true,
		steps: []step{say("hi"), appendMessage(`{"role":"user","content":[]}`)}, last: sayLast("again"),
		want: "messages.2: all messages must have non-empty content except for the optional final assistant message",
	},
	{
		name: "empty string content", from: Strict, self: true,
		steps: []step{appendMessage(`{"role":"user","content":""}`)}, last: sayLast("hi"),
		want: "messages.0: all messages must have non-empty content except for the optional final assistant message",
	},
	{
		name: "thinking ends an assistant message", from: Strict, self: true,
		steps: []step{say("hi [redacted]"), edit(1, without("text"))}, last: sayLast("again"),
		want: "messages.1: The final block in an assistant message cannot be `thinking`.",
	},
	{
		name: "tool loop opened without thinking", from: Strict, self: true,
		steps: []step{say("go [tool]"), toolResult("more [tool]"), edit(1, without("thinking"))}, last: toolResultLast("done"),
		want: toolLoopWithout("tool_use"),
	},
	{
		name: "tool loop opened by text without thinking", from: Strict, self: true,
		steps: []step{say("go [tool]"), edit(1, func(blocks []json.RawMessage) []json.RawMessage {
			return []json.RawMessage{json.RawMessage(`{"type":"text","text":"Let me look."}`), blocks[1]}
		})},
		last: toolResultLast("done"),
		want: toolLoopWithout("text"),
	},
	{
		name: "tool loop without leading thinking behind a trailing system message", from: Strict, self: true,
		steps: []step{say("go [tool]"), edit(1, without("thinking")), func(t *testing.T, c *Conversation) {
			ids, err := c.pendingToolUses()
			if err != nil {
				t.Fatal(err)
			}
			appendMessage(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+ids[0]+`","content":"done"}]}`)(t, c)
		}, appendMessage(`{"role":"system","content":[{"type":"text","text":"env"}]}`)},
		last: (*Conversation).Send,
		want: toolLoopWithout("tool_use"),
	},
	{
		name: "thinking in the final turn while disabled", from: Strict, self: true,
		steps: []step{thinking("disabled"), say("hi"), thinking("enabled"), say("go [tool]"), toolResult("more [tool] [redacted]"),
			edit(3, without("thinking")), thinking("disabled")},
		last: toolResultLast("done"),
		want: "messages.5.content.0: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.",
	},
	{
		name: "clear_thinking while disabled", from: Strict, self: true,
		steps: []step{thinking("disabled"), appendMessage(`{"role":"user","content":"hi"}`)},
		last: func(c *Conversation) (*Turn, error) {
			body := bytes.Replace(c.Body(), []byte(`,"stream":`),
				[]byte(`,"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"stream":`), 1)
			return c.post("/v1/messages?beta=true", body)
		},
		want: "`clear_thinking_20251015` strategy requires `thinking` to be enabled",
	},
	{
		name: "latest assistant message lost its thinking", from: Strict, self: true,
		steps: []step{thinking("adaptive"), say("go [tool]"), edit(1, without("thinking"))}, last: toolResultLast("done"),
		want: modified("messages.1.content.0"),
	},
	{
		name: "latest tool loop message lost its thinking", from: Strict, self: true,
		steps: []step{say("go [tool]"), toolResult("more [tool]"), edit(3, without("thinking"))}, last: toolResultLast("done"),
		want: modified("messages.3.content.0"),
	},
	{
		name: "latest assistant message lost its redacted block", from: Strict, self: true,
		steps: []step{say("go [tool] [redacted]"), edit(1, without("redacted_thinking"))}, last: toolResultLast("done"),
		want: modified("messages.1.content.1"),
	},
	{
		name: "latest assistant message's thinking reordered", from: Strict, self: true,
		steps: []step{say("hi [redacted]"), edit(1, func(b []json.RawMessage) []json.RawMessage { return []json.RawMessage{b[1], b[0], b[2]} })},
		last:  sayLast("again"),
		want:  modified("messages.1.content.0"),
	},
}

// run takes c through the case's steps, then sends its last request to
// dst.
func (tc historyCase) run(t *testing.T, c *Conversation, dst *Upstream) (*Turn, error) {
	t.Helper()
	for _, s := range tc.steps {
		s(t, c)
	}
	c.BaseURL = dst.URL()
	return tc.last(c)
}

// TestStrictRejectsBrokenHistories checks each rule as a model that does
// not bind signatures to their conversation applies it: the cases edit
// earlier messages to break the rule they show, which a binding model
// refuses first (see TestStrictBindsSignaturesToTheirConversation).
func TestStrictRejectsBrokenHistories(t *testing.T) {
	for _, tc := range historyCases {
		t.Run(tc.name, func(t *testing.T) {
			src := newUpstream(t, "a", tc.from)
			src.BindSignatures(false)
			dst := src
			if !tc.self {
				dst = newUpstream(t, "b", Strict)
				dst.BindSignatures(false)
			}
			c := NewConversation(src.URL(), "session-1")
			turn, err := tc.run(t, c, dst)
			wantInvalid(t, turn, err, tc.want)
			reqs := dst.Requests()
			last := reqs[len(reqs)-1]
			if last.Status != http.StatusBadRequest || last.ErrorMessage != tc.want {
				t.Errorf("Received %d %q", last.Status, last.ErrorMessage)
			}
			if got, want := turn.Header.Get("Request-Id"), fmt.Sprintf("req_%s_%d", dst.name, len(reqs)); got != want {
				t.Errorf("Request-Id %q, want %q", got, want)
			}
		})
	}
}

func TestLenientAndUnsignedAcceptBrokenHistories(t *testing.T) {
	for _, f := range []Flavor{Lenient, Unsigned} {
		for _, tc := range historyCases {
			t.Run(f.String()+"/"+tc.name, func(t *testing.T) {
				src := newUpstream(t, "a", tc.from)
				dst := newUpstream(t, "b", f)
				c := NewConversation(src.URL(), "session-1")
				turn, err := tc.run(t, c, dst)
				must(t)(turn, err)
				if turn.Message != nil && !bytes.Contains(turn.Message, []byte(`"b answer 1."`)) {
					t.Errorf("message %s", turn.Message)
				}
				if reqs := dst.Requests(); len(reqs) != 1 || reqs[0].Status != http.StatusOK {
					t.Errorf("requests at dst: %+v", reqs)
				}
			})
		}
	}
}

func TestStrictAcceptsValidHistories(t *testing.T) {
	for _, tc := range []historyCase{
		{
			name:  "optional empty final assistant message",
			steps: []step{say("hi"), appendMessage(`{"role":"user","content":"more"}`), appendMessage(`{"role":"assistant","content":[]}`)},
			last:  (*Conversation).Send,
		},
		{name: "string content", steps: []step{appendMessage(`{"role":"user","content":"hi [tool]"}`)}, last: (*Conversation).Send},
		{
			name:  "adaptive tool loop whose first message lost its thinking",
			steps: []step{thinking("adaptive"), say("go [tool]"), toolResult("more [tool]"), edit(1, without("thinking"))},
			last:  toolResultLast("done"),
		},
		{
			name:  "later message of the tool loop without thinking",
			steps: []step{say("go [tool]"), toolResult("more [tool]"), toolResult("again [tool]"), edit(3, without("thinking"))},
			last:  toolResultLast("done"),
		},
		{
			name:  "thinking dropped from an older turn while disabled",
			steps: []step{say("go [tool]"), toolResult("done"), thinking("disabled")},
			last:  sayLast("next"),
		},
		{name: "latest plain answer without its thinking", steps: []step{say("hi"), edit(1, without("thinking"))}, last: sayLast("again")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := newUpstream(t, "a", Strict)
			up.BindSignatures(false) // the histories edit earlier messages
			c := NewConversation(up.URL(), "session-1")
			must(t)(tc.run(t, c, up))
		})
	}
}

// TestStrictBindsSignaturesToTheirConversation: a signature is refused
// once anything before its message differs from when it was produced;
// the prompt-caching mark that moves with the history does not count.
func TestStrictBindsSignaturesToTheirConversation(t *testing.T) {
	const bound = "messages.3.content.0: thinking block is bound to a different conversation: the system prompt, tools or earlier messages changed since it was produced"
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, c *Conversation)
		want string
	}{
		{"nothing changed, the caching mark moved", func(t *testing.T, c *Conversation) {}, ""},
		{"an earlier user message sent as the string its text block stands for", func(t *testing.T, c *Conversation) {
			c.Messages[2] = json.RawMessage(`{"role":"user","content":"again"}`)
		}, ""},
		{"an earlier message lost its thinking", func(t *testing.T, c *Conversation) { editContent(t, c, 1, without("thinking")) }, bound},
		{"an earlier message's thinking became an unsigned block", func(t *testing.T, c *Conversation) {
			editContent(t, c, 1, func(b []json.RawMessage) []json.RawMessage {
				return append([]json.RawMessage{json.RawMessage(`{"type":"thinking","thinking":"","signature":""}`)}, b[1:]...)
			})
		}, "messages.1.content.0: Invalid `signature` in `thinking` block"},
		{"an earlier user message changed", func(t *testing.T, c *Conversation) {
			c.Messages[0] = json.RawMessage(`{"role":"user","content":[{"type":"text","text":"something else"}]}`)
		}, "messages.1.content.0: thinking block is bound to a different conversation: the system prompt, tools or earlier messages changed since it was produced"},
	} {
		for _, on := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/bound %v", tc.name, on), func(t *testing.T) {
				up := newUpstream(t, "a", Strict)
				up.BindSignatures(on)
				c := NewConversation(up.URL(), "session-1")
				must(t)(c.Say("hi"))
				must(t)(c.Say("again"))
				tc.edit(t, c)
				turn, err := c.Say("and more")
				if tc.want == "" || !on && strings.Contains(tc.want, "bound") {
					must(t)(turn, err)
					return
				}
				wantInvalid(t, turn, err, tc.want)
			})
		}
	}
}

func TestStrictConversation(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	c := NewConversation(up.URL(), "session-1")
	steps := []struct {
		do        func() (*Turn, error)
		stop      string
		types     []string
		toolUseID string
	}{
		{func() (*Turn, error) { return c.Say("hello") }, "end_turn", []string{"thinking", "text"}, ""},
		{func() (*Turn, error) { return c.Say("run it [tool] [redacted]") }, "tool_use", []string{"thinking", "redacted_thinking", "tool_use"}, "toolu_a_2"},
		{func() (*Turn, error) { return c.ToolResult("a\n[tool] [redacted]") }, "tool_use", []string{"thinking", "redacted_thinking", "tool_use"}, "toolu_a_3"},
		{func() (*Turn, error) { return c.ToolResult("a") }, "end_turn", []string{"thinking", "text"}, ""},
		{func() (*Turn, error) { return c.Say("thanks [redacted]") }, "end_turn", []string{"thinking", "redacted_thinking", "text"}, ""},
	}
	for i, s := range steps {
		turn := must(t)(s.do())
		if turn.StopReason != s.stop {
			t.Errorf("step %d: stop_reason %q, want %q", i, turn.StopReason, s.stop)
		}
		last := len(c.Messages) - 1
		if got := contentTypes(t, c, last); !slices.Equal(got, s.types) {
			t.Errorf("step %d: blocks %v, want %v", i, got, s.types)
		}
		if s.toolUseID != "" {
			if got := field(t, c, last, len(s.types)-1, "id"); got != s.toolUseID {
				t.Errorf("step %d: tool_use id %q, want %q", i, got, s.toolUseID)
			}
		}
	}
	sig := field(t, c, 9, 0, "signature")
	data := field(t, c, 9, 1, "data")
	want := `{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"` + sig +
		`"},{"type":"redacted_thinking","data":"` + data + `"},{"type":"text","text":"a answer 5."}]}`
	if string(c.Messages[9]) != want {
		t.Errorf("last message\n got %s\nwant %s", c.Messages[9], want)
	}
	wantTool := `{"role":"user","content":[{"tool_use_id":"toolu_a_3","type":"tool_result","content":"a","is_error":false}]}`
	if string(c.Messages[6]) != wantTool {
		t.Errorf("tool result\n got %s\nwant %s", c.Messages[6], wantTool)
	}
	for _, r := range up.Requests() {
		if r.Status != http.StatusOK {
			t.Errorf("request answered %d: %s", r.Status, r.ErrorMessage)
		}
	}
}

func TestStrictReplaysDisplayedThinkingUnescaped(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			up := newUpstream(t, "a", Strict)
			c := NewConversation(up.URL(), "session-1")
			c.ShowThinking, c.Stream = true, stream
			turn := must(t)(c.Say("hi"))
			sig := field(t, c, 1, 0, "signature")
			want := `{"role":"assistant","content":[{"type":"thinking","thinking":"a thinks #1: \"plan\" <b>é😀\nstep 2","signature":"` +
				sig + `"},{"type":"text","text":"a answer 1."}]}`
			if string(turn.Message) != want || string(c.Messages[1]) != want {
				t.Errorf("message\n got %s\nwant %s", turn.Message, want)
			}
			if !bytes.Contains(turn.Body, []byte(`\u003cb`)) {
				t.Errorf("the upstream did not HTML-escape: %s", turn.Body)
			}
			must(t)(c.Say("again"))
		})
	}
}

func TestConcurrentConversations(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			c := NewConversation(up.URL(), fmt.Sprint("session-", g))
			for _, step := range []func() (*Turn, error){
				func() (*Turn, error) { return c.Say("go [tool] [redacted]") },
				func() (*Turn, error) { return c.ToolResult("more [tool]") },
				func() (*Turn, error) { return c.ToolResult("done") },
				func() (*Turn, error) { return c.Say("bye") },
			} {
				turn, err := step()
				if err == nil && turn.Status != http.StatusOK {
					err = fmt.Errorf("session-%d: %d %s", g, turn.Status, turn.ErrorMessage)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := len(up.Requests()); got != 16 {
		t.Errorf("%d requests, want 16", got)
	}
	if !strings.HasPrefix(up.Requests()[15].Path, "/v1/messages") {
		t.Errorf("path %q", up.Requests()[15].Path)
	}
}
