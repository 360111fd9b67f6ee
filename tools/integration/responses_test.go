package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	llmthinking "github.com/caddy-llm-thinking/caddy-llm-thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// responsesKey is the key the Responses upstreams of these tests want.
const responsesKey = "sk-oa-test"

// responsesEnvelope begins the signature of every thinking block that
// carries a reasoning item of transport responses.
const responsesEnvelope = "llmthinking.v1.reasoning.responses.t"

// startResponses starts a strict Responses mock named name that serves
// gpt-5 and, unless key is "", wants key; it is closed when the test ends.
func startResponses(t *testing.T, name, key string) *llmtest.ResponsesUpstream {
	t.Helper()
	u := llmtest.NewResponsesUpstream(name)
	t.Cleanup(u.Close)
	if key != "" {
		u.RequireKey(key)
	}
	u.ServeModel("gpt-5")
	return u
}

// responsesBlock is the reverse_proxy block of a Responses backend:
// transport responses mapping Claude's models to gpt-5, with key as its
// api_key, or the client's key when key is "".
func responsesBlock(key string) string {
	b := "transport responses {\n\t\t\tmodel claude-* gpt-5"
	if key != "" {
		b += "\n\t\t\tapi_key " + key
	}
	return b + "\n\t\t}"
}

// withResponses adds u as the backend called name, reached through
// reverse_proxy with transport responses (see responsesBlock).
func withResponses(name string, u *llmtest.ResponsesUpstream, key string) func(*gateway) {
	return func(g *gateway) {
		g.Upstreams[name] = u.HostPort()
		withBlock(name, responsesBlock(key))(g)
	}
}

// responsesItem is an input item of a Responses request, as a test reads
// it, with its bytes as they came.
type responsesItem struct {
	Raw       json.RawMessage `json:"-"`
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Encrypted string          `json:"encrypted_content"`
}

// responsesInput reads a Responses request body: its top-level members and
// its input items.
func responsesInput(t *testing.T, body []byte) (map[string]json.RawMessage, []responsesItem) {
	t.Helper()
	top := topLevel(t, body)
	var raws []json.RawMessage
	if err := json.Unmarshal(top["input"], &raws); err != nil {
		t.Fatalf("the input of a Responses request is not an array of items: %v\n%s", err, body)
	}
	items := make([]responsesItem, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &items[i]); err != nil {
			t.Fatalf("input[%d]: %v\n%s", i, err, raw)
		}
		items[i].Raw = raw
	}
	return top, items
}

// issuedItem is a reasoning item a Responses upstream answered with, as
// its answer carried it.
type issuedItem struct {
	id        string
	summary   []string
	encrypted string
}

// issuedReasoning returns, by encrypted_content, every reasoning item u
// answered with: read from the answers it wrote, JSON or the
// output_item.done events of a stream.
func issuedReasoning(t *testing.T, u *llmtest.ResponsesUpstream) map[string]issuedItem {
	t.Helper()
	type reasoning struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		Encrypted string `json:"encrypted_content"`
		Summary   []struct {
			Text string `json:"text"`
		} `json:"summary"`
	}
	out := make(map[string]issuedItem)
	add := func(r reasoning) {
		if r.Type != "reasoning" || r.Encrypted == "" {
			return
		}
		it := issuedItem{id: r.ID, encrypted: r.Encrypted}
		for _, p := range r.Summary {
			it.summary = append(it.summary, p.Text)
		}
		out[r.Encrypted] = it
	}
	for _, rec := range u.Requests() {
		if rec.Status != http.StatusOK {
			continue
		}
		if bytes.HasPrefix(rec.Response, []byte("{")) {
			var answer struct {
				Output []reasoning `json:"output"`
			}
			if err := json.Unmarshal(rec.Response, &answer); err != nil {
				t.Fatalf("the Responses upstream answered no JSON: %v\n%s", err, rec.Response)
			}
			for _, r := range answer.Output {
				add(r)
			}
			continue
		}
		for _, ev := range claudecode.Events(rec.Response) {
			var done struct {
				Item reasoning `json:"item"`
			}
			if ev.Name == "response.output_item.done" && json.Unmarshal(ev.Data, &done) == nil {
				add(done.Item)
			}
		}
	}
	return out
}

// sentBack is the reasoning item transport responses sends back for it:
// the item as the upstream answered it, byte for byte, without its id (as
// OpenAI's Codex sends reasoning with store false).
func (it issuedItem) sentBack() string {
	var b strings.Builder
	b.WriteString(`{"type":"reasoning","summary":[`)
	for i, s := range it.summary {
		if i > 0 {
			b.WriteString(",")
		}
		text, _ := json.Marshal(s)
		b.WriteString(`{"type":"summary_text","text":` + string(text) + `}`)
	}
	enc, _ := json.Marshal(it.encrypted)
	b.WriteString(`],"encrypted_content":` + string(enc) + `}`)
	return b.String()
}

// inputShape describes the input items of a Responses request, in order:
// "user: <text>", "assistant: <text>", "call <call_id> <name>
// <arguments>", "output <call_id>: <output>", and "reasoning <id>" for a
// reasoning item that went back exactly as the upstream issued it (see
// issuedItem.sentBack); any other reasoning item is "reasoning ?" and its
// bytes.
func inputShape(t *testing.T, items []responsesItem, issued map[string]issuedItem) []string {
	t.Helper()
	var shape []string
	for _, it := range items {
		switch it.Type {
		case "reasoning":
			own, ok := issued[it.Encrypted]
			if ok && string(it.Raw) == own.sentBack() {
				shape = append(shape, "reasoning "+own.id)
			} else {
				shape = append(shape, "reasoning ? "+string(it.Raw))
			}
		case "function_call":
			shape = append(shape, fmt.Sprintf("call %s %s %s", it.CallID, it.Name, it.Arguments))
		case "function_call_output":
			var out string
			if json.Unmarshal(it.Output, &out) != nil {
				out = string(it.Output)
			}
			shape = append(shape, fmt.Sprintf("output %s: %s", it.CallID, out))
		case "message", "":
			shape = append(shape, it.Role+": "+messageText(it.Content))
		default:
			shape = append(shape, "? "+string(it.Raw))
		}
	}
	return shape
}

// messageText is the text of a message item's content: the string, or its
// text parts joined; a part of another type shows as its type in
// brackets.
func messageText(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return string(content)
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "input_text" || p.Type == "output_text" {
			b.WriteString(p.Text)
		} else {
			b.WriteString("[" + p.Type + "]")
		}
	}
	return b.String()
}

// responsesWant is what a request to a Responses upstream should be.
type responsesWant struct {
	// stream is whether the client asked for a stream.
	stream bool
	// thinks is whether the request asks for reasoning, its summary and
	// its encrypted content; it does even where llm_thinking took the
	// thinking config out for the Messages API's rule on tool loops, which
	// the Responses API does not have.
	thinks bool
	// back are the ids of the reasoning items that go back, in order.
	back []string
	// shape is the input, as inputShape describes it.
	shape []string
}

// assertResponsesRequest checks request i (from 0) that u got: it was
// answered 200, asked for gpt-5, statelessly, streamed or not and
// thinking or not as w says; its input items are exactly w.shape; and the
// reasoning items in it are exactly w.back, u's own, in that order, with
// nothing else.
func assertResponsesRequest(t *testing.T, u *llmtest.ResponsesUpstream, i int, w responsesWant) {
	t.Helper()
	reqs := u.Requests()
	if i >= len(reqs) {
		t.Fatalf("the Responses upstream got %d requests, want request %d", len(reqs), i)
	}
	rec := reqs[i]
	if rec.Status != http.StatusOK {
		t.Fatalf("the Responses upstream refused request %d: %d %s\n%s", i, rec.Status, rec.ErrorMessage, rec.Body)
	}
	top, items := responsesInput(t, rec.Body)
	stream, reasoning, include := `true`, `{"effort":"high","summary":"auto"}`, `["reasoning.encrypted_content"]`
	if !w.stream {
		stream = "" // the API's default
	}
	if !w.thinks {
		reasoning, include = "", ""
	}
	if rec.Path != "/v1/responses" || string(top["model"]) != `"gpt-5"` || string(top["store"]) != "false" ||
		string(top["stream"]) != stream || string(top["reasoning"]) != reasoning || string(top["include"]) != include {
		t.Errorf("request %d went to %s with model %s, store %s, stream %s, reasoning %s, include %s; want stream %s, reasoning %s, include %s",
			i, rec.Path, top["model"], top["store"], top["stream"], top["reasoning"], top["include"], stream, reasoning, include)
	}
	if got := inputShape(t, items, issuedReasoning(t, u)); !slices.Equal(got, w.shape) {
		t.Errorf("request %d's input:\n got %q\nwant %q", i, got, w.shape)
	}
	got := u.ReasoningBack(i)
	all := 0
	for _, it := range items {
		if it.Type == "reasoning" {
			all++
		}
	}
	if !slices.Equal(got, w.back) || all != len(w.back) {
		t.Errorf("request %d brought back the reasoning items %q, and %d reasoning items in all; want %q and nothing else",
			i, got, all, w.back)
	}
}

// envelopeMAC is the length of the MAC of an envelope, 128 bits in
// base64url.
const envelopeMAC = 22

// assertResponsesAnswer checks an answer the client got from u, called
// name, through transport responses: first the thinking block of u's n-th
// answer, its summary as the text and, in its envelope, the reasoning
// item's id and the encrypted content u issued (no block at all when the
// request did not think: the item has nothing to carry), then the text
// "{name} answer {n}." or the calls of Bash, one per command, under the
// ids u gave them.
func assertResponsesAnswer(t *testing.T, turn *llmtest.Turn, u *llmtest.ResponsesUpstream, name string, n int, thinks bool, commands ...string) {
	t.Helper()
	blocks := blocksOf(t, turn.Message)
	id := fmt.Sprintf("rs_%s_%d", name, n)
	if !thinks {
		if len(blocks) == 0 || blocks[0].Type == "thinking" {
			t.Fatalf("answer %d of a request without thinking: %s", n, turn.Message)
		}
		blocks = append([]contentBlock{{}}, blocks...) // in place of the thinking block
	} else {
		summary := u.Summary(n)
		var encrypted string
		for _, it := range issuedReasoning(t, u) {
			if it.id == id {
				encrypted = it.encrypted
			}
		}
		if encrypted == "" {
			t.Fatalf("the Responses upstream issued no encrypted content for %s", id)
		}
		payload := fmt.Sprintf("%d.%s.s%d.%s", len(id), id, len(summary), encrypted)
		if len(blocks) == 0 || blocks[0].Type != "thinking" || blocks[0].Thinking != summary ||
			!strings.HasPrefix(blocks[0].Signature, responsesEnvelope) || !strings.HasSuffix(blocks[0].Signature, "."+payload) ||
			len(blocks[0].Signature) != len(responsesEnvelope)+envelopeMAC+1+len(payload) {
			t.Fatalf("answer %d does not begin with its reasoning %q, payload %s: %s", n, summary, payload, turn.Message)
		}
	}
	stop := "end_turn"
	if len(commands) == 0 {
		if len(blocks) != 2 || blocks[1].Type != "text" || blocks[1].Text != fmt.Sprintf("%s answer %d.", name, n) {
			t.Fatalf("answer %d: %s", n, turn.Message)
		}
	} else {
		stop = "tool_use"
		if len(blocks) != 1+len(commands) {
			t.Fatalf("answer %d: %s", n, turn.Message)
		}
		for k, command := range commands {
			b := blocks[1+k]
			if b.Type != "tool_use" || b.ID != fmt.Sprintf("call_%s_%d_%d", name, n, k) || b.Name != "Bash" ||
				string(b.Input) != fmt.Sprintf(`{"command":%q}`, command) {
				t.Fatalf("answer %d, call %d: %s", n, k, turn.Message)
			}
		}
	}
	if turn.Model != "claude-sonnet-4-5" || turn.StopReason != stop {
		t.Errorf("answer %d names model %q, stop %q; want claude-sonnet-4-5, %s", n, turn.Model, turn.StopReason, stop)
	}
}

// callsOf describes the calls of the n-th answer of the upstream called
// name, of the commands, as inputShape shows them, followed by their
// outputs when output is set.
func callsOf(name string, n int, output string, commands ...string) []string {
	var calls, outputs []string
	for k, command := range commands {
		id := fmt.Sprintf("call_%s_%d_%d", name, n, k)
		calls = append(calls, fmt.Sprintf(`call %s Bash {"command":%q}`, id, command))
		outputs = append(outputs, fmt.Sprintf("output %s: %s", id, output))
	}
	if output == "" {
		return calls
	}
	return append(calls, outputs...)
}

// TestResponsesToolLoop runs Claude-Code-shaped tool loops on OpenAI's
// Responses API through llm_thinking and transport responses, streamed and
// not, one call at a time and parallel: the client gets each reasoning
// item's summary as a thinking block in its envelope, before the calls or
// text it led to, under the model it asked for; on every request the
// strict mock gets every reasoning item it issued in the conversation
// back, byte for byte without its id, right before the call or message it
// led to, and no other reasoning item.
func TestResponsesToolLoop(t *testing.T) {
	for _, stream := range []bool{true, false} {
		for _, parallel := range []bool{false, true} {
			t.Run(fmt.Sprintf("stream %v parallel %v", stream, parallel), func(t *testing.T) {
				oa := startResponses(t, "oa", responsesKey)
				g := newGateway(t, nil, "oa", withResponses("oa", oa, responsesKey))
				c, ok := g.session("responses-loop")
				c.Stream = stream
				prompt, commands := "[tool] list the files", []string{"ls"}
				if parallel {
					prompt, commands = "[tool][parallel] list the files", []string{"ls", "pwd"}
				}

				assertResponsesAnswer(t, ok(c.Say(prompt)), oa, "oa", 1, true, commands...)
				assertResponsesRequest(t, oa, 0, responsesWant{stream, true, nil, []string{"user: " + prompt}})
				got := oa.Requests()[0]
				if got.Header.Get("Authorization") != "Bearer "+responsesKey || got.Header.Get("X-Api-Key") != "" ||
					got.Header.Get("Anthropic-Beta") != "" || got.RawQuery != "" {
					t.Errorf("the Responses upstream got ?%s with %v", got.RawQuery, got.Header)
				}

				assertResponsesAnswer(t, ok(c.ToolResult("file1 file2")), oa, "oa", 2, true)
				loop1 := append([]string{"user: " + prompt, "reasoning rs_oa_1"}, callsOf("oa", 1, "file1 file2", commands...)...)
				assertResponsesRequest(t, oa, 1, responsesWant{stream, true, []string{"rs_oa_1"}, loop1})

				// A new turn: the whole history goes back, each reasoning
				// item before the item it led to, the calls' and the text's.
				prompt2 := strings.Replace(prompt, "list the files", "and now?", 1)
				assertResponsesAnswer(t, ok(c.Say(prompt2)), oa, "oa", 3, true, commands...)
				turn2 := append(slices.Clone(loop1), "reasoning rs_oa_2", "assistant: oa answer 2.", "user: "+prompt2)
				assertResponsesRequest(t, oa, 2, responsesWant{stream, true, []string{"rs_oa_1", "rs_oa_2"}, turn2})

				assertResponsesAnswer(t, ok(c.ToolResult("done")), oa, "oa", 4, true)
				loop2 := append(append(slices.Clone(turn2), "reasoning rs_oa_3"), callsOf("oa", 3, "done", commands...)...)
				assertResponsesRequest(t, oa, 3, responsesWant{stream, true, []string{"rs_oa_1", "rs_oa_2", "rs_oa_3"}, loop2})

				assertResponsesAnswer(t, ok(c.Say("thanks")), oa, "oa", 5, true)
				assertResponsesRequest(t, oa, 4, responsesWant{stream, true, []string{"rs_oa_1", "rs_oa_2", "rs_oa_3", "rs_oa_4"},
					append(slices.Clone(loop2), "reasoning rs_oa_4", "assistant: oa answer 4.", "user: thanks")})

				assertAccepted(t, "the Responses upstream", oa)
				if n := len(oa.Requests()); n != 5 {
					t.Errorf("the Responses upstream got %d requests for 5 turns", n)
				}
				if st := g.stats(); st.Retries != 0 || st.Blocks == 0 {
					t.Errorf("registry: %d blocks, %d retries; want the Responses blocks known and no retry", st.Blocks, st.Retries)
				}
			})
		}
	}
}

// anthropicBlocks returns the thinking blocks of the history that no
// Responses upstream gave: the Anthropic upstream's, as the client replays
// them.
func anthropicBlocks(c *llmtest.Conversation) []json.RawMessage {
	var out []json.RawMessage
	for _, b := range historyBlocks(c) {
		if !bytes.Contains(b, []byte(responsesEnvelope)) {
			out = append(out, b)
		}
	}
	return out
}

// assertNothingOfAnthropic fails if a request body holds anything of the
// Anthropic upstream's thinking: its text, or any of the signatures of
// blocks.
func assertNothingOfAnthropic(t *testing.T, body []byte, blocks []json.RawMessage) {
	t.Helper()
	if bytes.Contains(body, []byte("anthropic thinks")) {
		t.Fatalf("the Responses upstream saw Anthropic's thinking: %s", body)
	}
	for _, b := range blocks {
		var tb contentBlock
		if err := json.Unmarshal(b, &tb); err != nil {
			t.Fatal(err)
		}
		if tb.Signature != "" && bytes.Contains(body, []byte(tb.Signature)) {
			t.Fatalf("the Responses upstream got Anthropic's signature %q: %s", tb.Signature, body)
		}
	}
}

// assertNothingOfResponses fails if a request body holds anything of a
// Responses upstream's thinking: an envelope or a summary.
func assertNothingOfResponses(t *testing.T, body []byte) {
	t.Helper()
	if bytes.Contains(body, []byte("llmthinking.v1.reasoning.responses")) || bytes.Contains(body, []byte("oa thinks")) {
		t.Fatalf("Anthropic got the Responses upstream's thinking: %s", body)
	}
}

// toolUse returns the only tool_use of an assistant message.
func toolUse(t *testing.T, msg []byte) contentBlock {
	t.Helper()
	var uses []contentBlock
	for _, b := range blocksOf(t, msg) {
		if b.Type == "tool_use" {
			uses = append(uses, b)
		}
	}
	if len(uses) != 1 {
		t.Fatalf("want one tool_use in %s", msg)
	}
	return uses[0]
}

// assertAnthropicAccepted fails unless every request u got was answered
// 200.
func assertAnthropicAccepted(t *testing.T, u *llmtest.Upstream) {
	t.Helper()
	for i, r := range u.Requests() {
		if r.Status != http.StatusOK {
			t.Errorf("Anthropic refused request %d: %d %s", i, r.Status, r.ErrorMessage)
		}
	}
}

// TestAnthropicAndResponsesBothWays switches one conversation between
// Anthropic and the Responses API, inside tool loops and between turns:
// the Responses upstream never sees Anthropic's thinking, in any form,
// and gets each of its reasoning items that carries encrypted content
// back before the item it led to; Anthropic gets its own blocks back byte
// for byte and never an envelope of transport responses. No client error,
// no refusal.
//
// A switch inside the other backend's tool loop leaves the latest
// assistant message without its thinking, and llm_thinking turns thinking
// off for that request, on the Responses API too: its answer's reasoning
// item comes without summary or encrypted content, and never goes back.
func TestAnthropicAndResponsesBothWays(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream ", stream), func(t *testing.T) {
			oa := startResponses(t, "oa", responsesKey)
			g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic", withResponses("oa", oa, responsesKey))
			anthropic := g.upstreams["anthropic"]
			c, ok := g.session("responses-both-ways")
			c.Stream = stream

			ok(c.Say("[tool] list the files"))
			anthropicTurn := c.Messages[1]
			call := toolUse(t, anthropicTurn)

			g.use("oa") // inside Anthropic's tool loop
			// The tool loop's first message lost its thinking: the Messages
			// API would refuse the loop with thinking on, the Responses API
			// does not, and the request still thinks (see
			// handoff.Pass).
			assertResponsesAnswer(t, ok(c.ToolResult("file1 file2")), oa, "oa", 1, true)
			shape := []string{"user: [tool] list the files", fmt.Sprintf("call %s Bash %s", call.ID, call.Input), "output " + call.ID + ": file1 file2"}
			assertResponsesRequest(t, oa, 0, responsesWant{stream, true, nil, shape})
			assertNothingOfAnthropic(t, oa.Requests()[0].Body, anthropicBlocks(c))

			assertResponsesAnswer(t, ok(c.Say("[tool] and on Responses?")), oa, "oa", 2, true, "ls")
			shape = append(shape, "reasoning rs_oa_1", "assistant: oa answer 1.", "user: [tool] and on Responses?")
			assertResponsesRequest(t, oa, 1, responsesWant{stream, true, []string{"rs_oa_1"}, shape})

			g.use("anthropic") // inside the Responses API's tool loop
			own := anthropicBlocks(c)
			ok(c.ToolResult("file3"))
			body := lastRequest(t, anthropic).Body
			assertMessages(t, body, map[int]string{1: string(anthropicTurn)})
			assertBlocks(t, thinkingBlocks(t, body), own)
			assertNothingOfResponses(t, body)
			answerAt := len(c.Messages) - 1
			anthropicAnswer := c.Messages[answerAt]
			if blocks := blocksOf(t, anthropicAnswer); blocks[len(blocks)-1].Type != "text" || blocks[len(blocks)-1].Text != "anthropic answer 2." {
				t.Fatalf("Anthropic's answer: %s", anthropicAnswer)
			}

			g.use("oa")
			assertResponsesAnswer(t, ok(c.Say("[tool] back on Responses")), oa, "oa", 3, true, "ls")
			shape = append(shape, "reasoning rs_oa_2")
			shape = append(shape, callsOf("oa", 2, "file3", "ls")...)
			shape = append(shape, "assistant: anthropic answer 2.", "user: [tool] back on Responses")
			assertResponsesRequest(t, oa, 2, responsesWant{stream, true, []string{"rs_oa_1", "rs_oa_2"}, shape})
			assertNothingOfAnthropic(t, oa.Requests()[2].Body, anthropicBlocks(c))

			assertResponsesAnswer(t, ok(c.ToolResult("file4")), oa, "oa", 4, true)
			shape = append(append(shape, "reasoning rs_oa_3"), callsOf("oa", 3, "file4", "ls")...)
			assertResponsesRequest(t, oa, 3, responsesWant{stream, true, []string{"rs_oa_1", "rs_oa_2", "rs_oa_3"}, shape})
			assertNothingOfAnthropic(t, oa.Requests()[3].Body, anthropicBlocks(c))

			g.use("anthropic")
			own = anthropicBlocks(c)
			ok(c.Say("and back on Anthropic"))
			body = lastRequest(t, anthropic).Body
			assertMessages(t, body, map[int]string{1: string(anthropicTurn), answerAt: string(anthropicAnswer)})
			assertBlocks(t, thinkingBlocks(t, body), own)
			assertNothingOfResponses(t, body)

			assertAccepted(t, "the Responses upstream", oa)
			assertAnthropicAccepted(t, anthropic)
			if n, m := len(oa.Requests()), len(anthropic.Requests()); n != 4 || m != 3 {
				t.Errorf("the Responses upstream got %d requests and Anthropic %d, want 4 and 3", n, m)
			}
			if st := g.stats(); st.Retries != 0 {
				t.Errorf("%d refusals replayed, want none", st.Retries)
			}
		})
	}
}

// TestResponsesReasoningSurvivesARestart: Caddy restarts, with persist on
// and the same storage, in the middle of a tool loop on the Responses API
// of a conversation that began on Anthropic. The key that seals the
// envelopes is kept in the storage, so the Responses upstream still gets
// its reasoning item back before its call, and Anthropic, after a switch
// back, its own block byte for byte and nothing of the Responses API.
func TestResponsesReasoningSurvivesARestart(t *testing.T) {
	oa := startResponses(t, "oa", responsesKey)
	ups := startUpstreams(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict})
	in := newInstance(t, ups, t.TempDir(), "")
	in.site.Upstreams["oa"] = oa.HostPort()
	in.site.Blocks = map[string]string{"oa": responsesBlock(responsesKey)}
	in.start("anthropic")
	c, ok := talk(t, "responses-restart")
	c.BaseURL = in.url()
	ok(c.Say("hello"))
	in.use("oa")
	assertResponsesAnswer(t, ok(c.Say("[tool] list the files")), oa, "oa", 1, true, "ls")
	in.stop()

	in.start("oa")
	c.BaseURL = in.url()
	assertResponsesAnswer(t, ok(c.ToolResult("file1")), oa, "oa", 2, true)
	shape := append([]string{"user: hello", "assistant: anthropic answer 1.", "user: [tool] list the files", "reasoning rs_oa_1"},
		callsOf("oa", 1, "file1", "ls")...)
	assertResponsesRequest(t, oa, 1, responsesWant{true, true, []string{"rs_oa_1"}, shape})
	assertNothingOfAnthropic(t, oa.Requests()[1].Body, anthropicBlocks(c))

	in.use("anthropic")
	own := anthropicBlocks(c)
	ok(c.Say("back on anthropic"))
	body := lastRequest(t, ups["anthropic"]).Body
	assertBlocks(t, thinkingBlocks(t, body), own)
	assertNothingOfResponses(t, body)
	assertAccepted(t, "the Responses upstream", oa)
	assertAnthropicAccepted(t, ups["anthropic"])
	in.stop()
}

// TestResponsesKeySwitchAbsorbedOnce: the same Responses backend, reached
// with the key of another organization from the middle of a tool loop
// (the client's key changes, or api_key with a reload). The first request
// after the switch brings back reasoning items of the first
// organization, which the API refuses (invalid_encrypted_content);
// llm_thinking replays it once, without any reasoning item (thinking still
// on for the Responses API, though the Messages API's rule would turn it
// off), and the client gets its answer. The next requests go without the refused items,
// with the new organization's own, and nothing is refused again.
func TestResponsesKeySwitchAbsorbedOnce(t *testing.T) {
	for _, via := range []string{"x-api-key", "api_key"} {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s stream %v", via, stream), func(t *testing.T) {
				oa := startResponses(t, "oa", "")
				oa.SetOrganization("sk-a", "org-a")
				oa.SetOrganization("sk-b", "org-b")
				key := ""
				if via == "api_key" {
					key = "sk-a"
				}
				g := newGateway(t, nil, "oa", withResponses("oa", oa, key))
				c, ok := g.session("responses-key-switch")
				c.Stream = stream
				c.Header.Set("X-Api-Key", "sk-a")

				assertResponsesAnswer(t, ok(c.Say("[tool] list the files")), oa, "oa", 1, true, "ls")
				assertResponsesAnswer(t, ok(c.ToolResult("file1")), oa, "oa", 2, true)
				assertResponsesAnswer(t, ok(c.Say("[tool] and now?")), oa, "oa", 3, true, "ls")
				loop := append([]string{"user: [tool] list the files", "reasoning rs_oa_1"}, callsOf("oa", 1, "file1", "ls")...)
				turn2 := append(slices.Clone(loop), "reasoning rs_oa_2", "assistant: oa answer 2.", "user: [tool] and now?")
				assertResponsesRequest(t, oa, 2, responsesWant{stream, true, []string{"rs_oa_1", "rs_oa_2"}, turn2})

				// The switch, inside the tool loop.
				if via == "api_key" {
					g.Blocks["oa"] = responsesBlock("sk-b")
					g.load()
				} else {
					c.Header.Set("X-Api-Key", "sk-b")
				}
				turn := ok(c.ToolResult("file2"))
				assertResponsesAnswer(t, turn, oa, "oa", 4, true)
				if got := turn.Header.Values(llmthinking.WarningHeader); !slices.Contains(got, "thinking_retried") {
					t.Errorf("warning header = %q, want thinking_retried among them", got)
				}
				reqs := oa.Requests()
				if len(reqs) != 5 {
					t.Fatalf("the Responses upstream got %d requests, want 3, the refused one and its one replay", len(reqs))
				}
				refused := reqs[3]
				if refused.Status != http.StatusBadRequest ||
					!strings.Contains(refused.ErrorMessage, "organization_id did not match the target organization") ||
					!strings.Contains(string(refused.Response), `"code":"invalid_encrypted_content"`) {
					t.Fatalf("the first request after the switch got %d %s", refused.Status, refused.Response)
				}
				if back := oa.ReasoningBack(3); !slices.Equal(back, []string{"rs_oa_1", "rs_oa_2", "rs_oa_3"}) {
					t.Errorf("the refused request brought back %q", back)
				}
				_, items := responsesInput(t, refused.Body)
				loop2 := append(append(slices.Clone(turn2), "reasoning rs_oa_3"), callsOf("oa", 3, "file2", "ls")...)
				if got := inputShape(t, items, issuedReasoning(t, oa)); !slices.Equal(got, loop2) {
					t.Errorf("the refused request's input:\n got %q\nwant %q", got, loop2)
				}
				// The replay: the same history without a reasoning item.
				replay := slices.DeleteFunc(slices.Clone(loop2), func(s string) bool { return strings.HasPrefix(s, "reasoning ") })
				assertResponsesRequest(t, oa, 4, responsesWant{stream, true, nil, replay})
				for i, r := range reqs {
					want := "Bearer sk-a"
					if i >= 3 {
						want = "Bearer sk-b"
					}
					if got := r.Header.Get("Authorization"); got != want {
						t.Errorf("request %d went with %q, want %q", i, got, want)
					}
				}

				// From now on: the refused items never go again, the new
				// organization's do, and nothing is refused.
				assertResponsesAnswer(t, ok(c.Say("[tool] once more")), oa, "oa", 5, true, "ls")
				turn3 := append(slices.Clone(replay), "reasoning rs_oa_4", "assistant: oa answer 4.", "user: [tool] once more")
				assertResponsesRequest(t, oa, 5, responsesWant{stream, true, []string{"rs_oa_4"}, turn3})
				assertResponsesAnswer(t, ok(c.ToolResult("file3")), oa, "oa", 6, true)
				loop3 := append(append(slices.Clone(turn3), "reasoning rs_oa_5"), callsOf("oa", 5, "file3", "ls")...)
				assertResponsesRequest(t, oa, 6, responsesWant{stream, true, []string{"rs_oa_4", "rs_oa_5"}, loop3})
				assertResponsesAnswer(t, ok(c.Say("thanks")), oa, "oa", 7, true)
				assertResponsesRequest(t, oa, 7, responsesWant{stream, true, []string{"rs_oa_4", "rs_oa_5", "rs_oa_6"},
					append(slices.Clone(loop3), "reasoning rs_oa_6", "assistant: oa answer 6.", "user: thanks")})

				var got []int
				for _, r := range oa.Requests() {
					got = append(got, r.Status)
				}
				if want := []int{200, 200, 200, 400, 200, 200, 200, 200}; !slices.Equal(got, want) {
					t.Errorf("the Responses upstream answered %v, want %v: exactly one refusal", got, want)
				}
				issued := oa.Issued()
				for id, org := range map[string]string{"rs_oa_1": "org-a", "rs_oa_3": "org-a", "rs_oa_4": "org-b", "rs_oa_6": "org-b"} {
					if issued[id] != org {
						t.Errorf("%s was issued to %q, want %s", id, issued[id], org)
					}
				}
				if st := g.stats(); st.Retries != 1 {
					t.Errorf("%d refusals replayed, want 1", st.Retries)
				}
				if n := len(g.logEvents("thinking.retry")); n != 1 {
					t.Errorf("%d thinking.retry events, want 1", n)
				}
			})
		}
	}
}

// TestResponsesErrorsMapped: the Responses API's errors, in OpenAI's
// envelope, reach the client as the Messages API's, with the same status,
// the type of that status and OpenAI's message, byte for byte; nothing is
// replayed. A stream that fails midway ends with an error event (see
// testResponsesStreamFailsMidway).
func TestResponsesErrorsMapped(t *testing.T) {
	t.Run("stream fails midway", testResponsesStreamFailsMidway)
	tests := []struct {
		status         int
		typ, code, msg string
		anthropicType  string
	}{
		{400, "", "unsupported_parameter", "Unsupported parameter: 'temperature' is not supported with this model.", "invalid_request_error"},
		{401, "", "invalid_api_key", "Incorrect API key provided: sk-oa-te**test. You can find your API key at https://platform.openai.com/account/api-keys.", "authentication_error"},
		{404, "", "model_not_found", "The model `gpt-5` does not exist or you do not have access to it.", "not_found_error"},
		{429, "tokens", "rate_limit_exceeded", "Rate limit reached for gpt-5 in organization org-oa on tokens per min (TPM): Limit 30000, Used 30000, Requested 120. Please try again in 240ms.", "rate_limit_error"},
		{500, "", "", "The server had an error while processing your request. Sorry about that!", "api_error"},
		{503, "", "", "The engine is currently overloaded, please try again later", "overloaded_error"},
	}
	for _, tt := range tests {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprint(tt.status, " stream ", stream), func(t *testing.T) {
				oa := startResponses(t, "oa", responsesKey)
				g := newGateway(t, nil, "oa", withResponses("oa", oa, responsesKey))
				oa.FailNext(tt.status, string(llmtest.ResponsesError(tt.status, tt.typ, tt.code, "", tt.msg)))
				c := g.conversation("responses-errors")
				c.Stream = stream
				turn, err := c.Say("hello")
				if err != nil {
					t.Fatal(err)
				}
				msg, _ := json.Marshal(tt.msg)
				want := `{"type":"error","error":{"type":"` + tt.anthropicType + `","message":` + string(msg) + `}}`
				if turn.Status != tt.status || string(turn.Body) != want {
					t.Errorf("the client got %d %s\nwant %d %s", turn.Status, turn.Body, tt.status, want)
				}
				if n := len(oa.Requests()); n != 1 {
					t.Errorf("the Responses upstream got %d requests, want 1", n)
				}
				if len(c.Messages) != 1 {
					t.Errorf("the history grew to %d messages on an error", len(c.Messages))
				}
			})
		}
	}
}

// testResponsesStreamFailsMidway: a Responses stream that fails after its
// reasoning and the first piece of its text, with a response.failed or an
// error event (documented or nested), ends the client's stream with an
// error event of the type its code maps to and OpenAI's message, after
// what came before it, and without a message_stop.
func testResponsesStreamFailsMidway(t *testing.T) {
	tests := []struct {
		name, typ, msg string
		event          []byte
	}{
		{"response.failed", "api_error", "The server had an error processing your request.",
			llmtest.ResponsesFailedEvent("server_error", "The server had an error processing your request.")},
		{"error", "rate_limit_error", "Rate limit reached for gpt-5 in organization org-oa on tokens per min (TPM).",
			llmtest.ResponsesErrorEvent("rate_limit_exceeded", "Rate limit reached for gpt-5 in organization org-oa on tokens per min (TPM).")},
		{"nested error", "overloaded_error", "The server is overloaded.",
			llmtest.ResponsesNestedErrorEvent("server_error", "server_is_overloaded", "The server is overloaded.")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oa := startResponses(t, "oa", responsesKey)
			g := newGateway(t, nil, "oa", withResponses("oa", oa, responsesKey))
			// Event 13 comes after the reasoning item and the first delta
			// of the text ("oa an").
			oa.FailStreamAfter(13, tt.event)
			c := g.conversation("responses-stream-fails")
			turn, err := c.Say("hello")
			if err != nil {
				t.Fatal(err)
			}
			if turn.Status != http.StatusOK || turn.ErrorType != tt.typ || turn.ErrorMessage != tt.msg {
				t.Errorf("the client got %d %s %q, want 200 %s %q", turn.Status, turn.ErrorType, turn.ErrorMessage, tt.typ, tt.msg)
			}
			events := claudecode.Events(turn.Body)
			var names []string
			var thinking, text strings.Builder
			for _, ev := range events {
				names = append(names, ev.Name)
				var d struct {
					Delta struct{ Type, Thinking, Text string }
				}
				if ev.Name == "content_block_delta" && json.Unmarshal(ev.Data, &d) == nil {
					thinking.WriteString(d.Delta.Thinking)
					text.WriteString(d.Delta.Text)
				}
			}
			if len(events) == 0 || names[0] != "message_start" || names[len(names)-1] != "error" ||
				slices.Contains(names, "message_stop") || slices.Contains(names, "message_delta") {
				t.Fatalf("the client's stream went %q", names)
			}
			if thinking.String() != oa.Summary(1) || text.String() != "oa an" {
				t.Errorf("before the error the client got the thinking %q and the text %q", thinking.String(), text.String())
			}
			last := events[len(events)-1].Data
			msg, _ := json.Marshal(tt.msg)
			if want := `{"type":"error","error":{"type":"` + tt.typ + `","message":` + string(msg) + `}}`; string(last) != want {
				t.Errorf("the error event is %s\nwant %s", last, want)
			}
			if len(c.Messages) != 1 {
				t.Errorf("the history grew to %d messages on a failed stream", len(c.Messages))
			}
			if n := len(oa.Requests()); n != 1 {
				t.Errorf("the Responses upstream got %d requests, want 1", n)
			}
		})
	}
}
