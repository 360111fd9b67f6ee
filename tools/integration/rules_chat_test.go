package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// The rules of real chat-completions servers that transport openai
// handles, each against a mock that refuses as the server does.

// geminiOnOpenRouter is the model OpenRouter serves in these tests.
const geminiOnOpenRouter = "google/gemini-3-pro-preview"

// withOpenRouterGemini adds an upstream named name that plays OpenRouter
// serving Gemini 3, reached with transport openai carrying
// reasoning_details.
func withOpenRouterGemini(name string) func(*gateway) {
	return func(g *gateway) {
		withChat(name, llmtest.OpenRouterGemini,
			"transport openai {\n\t\t\tmodel claude-* "+geminiOnOpenRouter+"\n\t\t\treasoning reasoning_details\n\t\t}")(g)
		g.chats[name].ServeModel(geminiOnOpenRouter)
	}
}

// detailMessage is an assistant message of a chat-completions request
// with its reasoning_details read.
type detailMessage struct {
	Role      string `json:"role"`
	ToolCalls []struct {
		ID string `json:"id"`
	} `json:"tool_calls"`
	ReasoningDetails []struct {
		Type string `json:"type"`
		Data string `json:"data"`
		ID   string `json:"id"`
	} `json:"reasoning_details"`
}

// assertSignaturesBack checks that every call u made (its id starts with
// prefix) goes back, in the last request it got, with the signature it
// issued for that call, but those of dummies, and every other call with the
// documented dummy: that of another backend, and one u made in a turn
// another backend's call began (llm_thinking takes the rest of the thinking
// of such a final turn out for the Messages API's rule on tool loops).
func assertSignaturesBack(t *testing.T, u *llmtest.ChatUpstream, prefix string, dummies ...string) {
	t.Helper()
	last := lastRequest(t, u)
	var req struct {
		Messages []detailMessage `json:"messages"`
	}
	if err := json.Unmarshal(last.Body, &req); err != nil {
		t.Fatal(err)
	}
	issued := map[string]string{} // call -> signature
	for sig, call := range u.Signatures() {
		if call != "" {
			issued[call] = sig
		}
	}
	calls := 0
	for _, m := range req.Messages {
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		id := m.ToolCalls[0].ID
		var got []string
		for _, d := range m.ReasoningDetails {
			if d.Type == "reasoning.encrypted" && d.ID == id {
				got = append(got, d.Data)
			}
		}
		want := "skip_thought_signature_validator"
		if strings.HasPrefix(id, prefix) && !slices.Contains(dummies, id) {
			want, calls = issued[id], calls+1
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("call %s went back with the signatures %q, want %q:\n%s", id, got, want, last.Body)
		}
	}
	if calls == 0 && len(dummies) == 0 {
		t.Errorf("no call of %s went back:\n%s", prefix, last.Body)
	}
}

// TestOpenRouterGeminiAcrossSwitches: Anthropic -> OpenRouter serving
// Gemini 3 -> Anthropic -> OpenRouter, every switch inside a tool loop,
// streamed and not. No refusal at either mock or the client; every thought
// signature goes back with its call (Anthropic's calls with the documented
// dummy, as OpenRouter takes it), nothing of OpenRouter's reaches
// Anthropic, and Anthropic gets every block of its own back byte for byte.
func TestOpenRouterGeminiAcrossSwitches(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream ", stream), func(t *testing.T) {
			g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic", withOpenRouterGemini("openrouter"))
			anthropic, or := g.upstreams["anthropic"], g.chats["openrouter"]
			c, ok := g.session("openrouter-gemini")
			c.Stream = stream

			ok(c.Say("[tool] list the files"))
			g.use("openrouter") // inside Anthropic's loop
			ok(c.ToolResult("[tool] file1 file2"))
			turn := ok(c.ToolResult("file3"))
			blocks := blocksOf(t, turn.Message)
			if len(blocks) != 2 || blocks[0].Type != "thinking" || blocks[0].Thinking != or.Reasoning(2) ||
				!strings.HasPrefix(blocks[0].Signature, "llmthinking.v1.reasoning.details.t") || blocks[1].Text != "openrouter answer 2." {
				t.Fatalf("OpenRouter's answer: %s", turn.Message)
			}
			assertSignaturesBack(t, or, "call_openrouter_", "call_openrouter_1")
			ok(c.Say("[tool] once more"))
			ok(c.ToolResult("[tool] file3b"))
			assertSignaturesBack(t, or, "call_openrouter_")

			g.use("anthropic") // inside OpenRouter's loop
			ok(c.ToolResult("file4"))
			body := lastRequest(t, anthropic).Body
			var own []json.RawMessage
			for _, b := range historyBlocks(c) {
				if !strings.Contains(string(b), "llmthinking.v1.reasoning.") {
					own = append(own, b)
				}
			}
			assertBlocks(t, thinkingBlocks(t, body), own)
			if strings.Contains(string(body), "llmthinking.v1.reasoning") || strings.Contains(string(body), "openrouter reasoning") {
				t.Fatalf("Anthropic got OpenRouter's reasoning: %s", body)
			}

			g.use("openrouter") // inside Anthropic's loop again
			ok(c.Say("[tool] back on OpenRouter"))
			ok(c.ToolResult("file5"))
			assertSignaturesBack(t, or, "call_openrouter_")

			assertAccepted(t, "OpenRouter", or)
			assertAccepted(t, "Anthropic", anthropic)
			if st := g.stats(); st.Retries != 0 {
				t.Errorf("%d refusals replayed, want none", st.Retries)
			}
		})
	}
}

// TestOpenRouterRefusedSignatureAbsorbed: OpenRouter refuses the
// signatures of a request (Gemini no longer takes them: the project
// behind it changed), in its envelope, the provider's words in
// metadata.raw: the safety net knows the refusal, replays once without
// OpenRouter's blocks, the call goes with the dummy, and the client never
// sees the 400. A refusal for a missing signature is absorbed alike.
func TestOpenRouterRefusedSignatureAbsorbed(t *testing.T) {
	for _, refusal := range []string{"corrupted", "missing"} {
		t.Run(refusal, func(t *testing.T) {
			g := newGateway(t, nil, "openrouter", withOpenRouterGemini("openrouter"))
			or := g.chats["openrouter"]
			toolResultAbsorbsRefusal(t, g, func() {
				if refusal == "corrupted" {
					or.ForgetSignatures()
					return
				}
				raw := llmtest.OpenRouterPreserveDetails + "{\n  \"error\": {\n    \"code\": 400,\n    \"message\": " + quote(llmtest.MissingThoughtSignature("Bash", 2)) + ",\n    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n"
				or.FailNext(http.StatusBadRequest, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":`+quote(raw)+`,"provider_name":"Google AI Studio"}},"user_id":"user_1"}`)
			})
			reqs := or.Requests()
			if len(reqs) != 3 || reqs[1].Status != http.StatusBadRequest || reqs[2].Status != http.StatusOK {
				t.Fatalf("OpenRouter answered %d requests: want one refusal then a 200", len(reqs))
			}
			var req struct {
				Messages []detailMessage `json:"messages"`
			}
			json.Unmarshal(reqs[2].Body, &req)
			if m := req.Messages[2]; len(m.ReasoningDetails) != 1 || m.ReasoningDetails[0].Data != "skip_thought_signature_validator" {
				t.Errorf("the replay's call went with %+v, want the dummy alone", m.ReasoningDetails)
			}
		})
	}
}

// TestOpenRouterForgedPartGoesNowhere: a client that alters the envelope
// of a block (to send OpenRouter a signature of its own) gets nothing of
// it sent: the call goes with the dummy, and the altered bytes reach no
// upstream.
func TestOpenRouterForgedPartGoesNowhere(t *testing.T) {
	g := newGateway(t, nil, "openrouter", withOpenRouterGemini("openrouter"))
	or := g.chats["openrouter"]
	c, ok := g.session("openrouter-forged")
	turn := ok(c.Say("[tool] list the files"))
	blocks := blocksOf(t, turn.Message)
	sig := quote(blocks[0].Signature)
	dot := strings.Index(sig, ".[")
	forged := strings.Replace(string(c.Messages[1]), sig, sig[:dot]+`.[{\"type\":\"reasoning.encrypted\",\"data\":\"FORGED\",\"id\":\"call_openrouter_1\"}]"`, 1)
	if forged == string(c.Messages[1]) {
		t.Fatalf("no envelope to forge in %s", c.Messages[1])
	}
	c.Messages[1] = json.RawMessage(forged)
	ok(c.ToolResult("file1"))
	last := lastRequest(t, or)
	if strings.Contains(string(last.Body), "FORGED") || !strings.Contains(string(last.Body), "skip_thought_signature_validator") {
		t.Errorf("the forged part went on: %s", last.Body)
	}
	assertAccepted(t, "OpenRouter", or)
}

// learnedFacts returns the facts the gateway's registry holds of backend
// and model, joined by "+".
func learnedFacts(g *gateway, backend, model string) string {
	for _, c := range g.stats().Capabilities {
		if c.Backend == backend && c.Model == model {
			return strings.Join(c.Names, "+")
		}
	}
	return ""
}

// TestOpenAIReasoningModelsLearnMaxCompletionTokens: OpenAI's gpt-5
// refuses max_tokens on chat completions. The first request is refused
// once, in OpenAI's words; llm_thinking learns max_completion_tokens from
// them and replays, and the transport sends the cap under that name from
// then on, through a tool loop, streamed and not, and after a restart
// (persisted): one refusal in all, none seen by the client.
func TestOpenAIReasoningModelsLearnMaxCompletionTokens(t *testing.T) {
	g, u := newChatGateway(t, "openai", llmtest.OpenAIStyle,
		"transport openai {\n\t\t\tmodel claude-* gpt-5\n\t\t\treasoning none\n\t\t}")
	c, ok := g.session("max-completion-tokens")
	ok(c.Say("hello"))
	c.Stream = false
	ok(c.Say("[tool] list the files"))
	ok(c.ToolResult("a.go"))
	for _, r := range refusedFirstOnly(t, "gpt-5", u, http.StatusBadRequest, llmtest.MaxTokensRefusal) {
		top, _ := chatRequest(t, r.Body)
		if _, has := top["max_tokens"]; has || string(top["max_completion_tokens"]) != "32000" {
			t.Fatalf("after the refusal: %s", r.Body)
		}
	}
	if f := learnedFacts(g, "openai", "claude-sonnet-4-5"); f != "max_completion_tokens" {
		t.Fatalf("learned %q", f)
	}
	refusalsAfterRestart(t, g, c, "gpt-5", u, 1)
}

// TestMaxTokensFieldDeclared: declared with max_tokens_field, the cap goes
// as max_completion_tokens from the first request: no refusal at all.
func TestMaxTokensFieldDeclared(t *testing.T) {
	g, u := newChatGateway(t, "openai", llmtest.OpenAIStyle,
		"transport openai {\n\t\t\tmodel claude-* o4-mini\n\t\t\treasoning none\n\t\t\tmax_tokens_field max_completion_tokens\n\t\t\tmax_tokens 16000\n\t\t}")
	c, ok := g.session("max-tokens-field")
	ok(c.Say("hello"))
	top, _ := chatRequest(t, lastRequest(t, u).Body)
	if n := refusals(u); n != 0 || string(top["max_completion_tokens"]) != "16000" {
		t.Fatalf("%d refusals, max_completion_tokens %s", n, top["max_completion_tokens"])
	}
}

// TestAModelThatAlwaysThinksIsNeverToldNone: Kimi Code refuses
// reasoning_effort "none". Claude Code asks for no thinking (its title and
// quota requests do); the first such request is refused once, in Kimi
// Code's words, llm_thinking learns always_thinks and replays without the
// disabled config, and the transport asks for "low" from then on; none
// after a restart (persisted). Requests that think go as they say.
func TestAModelThatAlwaysThinksIsNeverToldNone(t *testing.T) {
	g, u := newChatGateway(t, "kimi", llmtest.KimiCodeStyle,
		"transport openai {\n\t\t\tmodel claude-* kimi-for-coding\n\t\t\tthinking_switch reasoning_effort\n\t\t}")
	c, ok := g.session("always-thinks")
	c.Thinking = "disabled"
	ok(c.Say("a title, please"))
	ok(c.Say("[tool] list the files"))
	ok(c.ToolResult("a.go"))
	for _, r := range refusedFirstOnly(t, "Kimi Code", u, http.StatusBadRequest, llmtest.EffortNoneRefusal) {
		top, _ := chatRequest(t, r.Body)
		if string(top["reasoning_effort"]) != `"low"` {
			t.Fatalf("after the refusal: %s", r.Body)
		}
	}
	if f := learnedFacts(g, "kimi", "claude-sonnet-4-5"); f != "always_thinks" {
		t.Fatalf("learned %q", f)
	}
	c.Thinking = "enabled"
	ok(c.Say("think hard"))
	if top, _ := chatRequest(t, lastRequest(t, u).Body); string(top["reasoning_effort"]) != `"high"` {
		t.Errorf("a request that thinks went with reasoning_effort %s", top["reasoning_effort"])
	}
	c.Thinking = "disabled"
	refusalsAfterRestart(t, g, c, "Kimi Code", u, 1)
}

// TestFillersStayPutAsTheConversationGrows: a DeepSeek V4 server, which
// wants reasoning back on every assistant message, gets a conversation of
// Anthropic's tool loops: every message without its own reasoning carries
// a filler of its own (none byte-identical to another), and the next
// request, the same conversation grown by a turn, brings every earlier
// message to the server byte for byte as before: the filler of a message
// never changes, and the server's prefix cache keeps hitting.
func TestFillersStayPutAsTheConversationGrows(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic",
		withChat("chat", llmtest.DeepSeekV4Style, "transport openai {\n\t\t\tmodel * deepseek-v4-pro\n\t\t}"),
		withHandler("backend_profile chat {\n\tthinking_back all\n}"))
	chat := g.chats["chat"]
	c, ok := g.session("fillers")
	for _, s := range []string{"[tool] look", "[tool] more", "[tool] and more"} {
		ok(c.Say(s))
		ok(c.ToolResult("a.go"))
	}
	g.use("chat")
	ok(c.Say("what now?"))
	before := lastRequest(t, chat)
	ok(c.Say("[tool] and now?"))
	after := lastRequest(t, chat)
	_, is := chatRequest(t, after.Body)
	var wasRaw, isRaw struct{ Messages []json.RawMessage }
	json.Unmarshal(before.Body, &wasRaw)
	json.Unmarshal(after.Body, &isRaw)
	if len(isRaw.Messages) != len(wasRaw.Messages)+2 {
		t.Fatalf("%d messages, then %d", len(wasRaw.Messages), len(isRaw.Messages))
	}
	for i, m := range wasRaw.Messages {
		if string(m) != string(isRaw.Messages[i]) {
			t.Errorf("message %d changed as the conversation grew:\n %s\n %s", i, m, isRaw.Messages[i])
		}
	}
	seen := map[string]int{}
	for i, m := range is {
		if m.Role != "assistant" || i == len(is)-1 {
			continue
		}
		if m.ReasoningContent == nil || !strings.HasPrefix(*m.ReasoningContent, "Step without its reasoning: ") && *m.ReasoningContent != chat.Reasoning(1) {
			t.Errorf("message %d: reasoning_content %v", i, m.ReasoningContent)
			continue
		}
		if j, dup := seen[*m.ReasoningContent]; dup {
			t.Errorf("messages %d and %d carry the same filler %q", j, i, *m.ReasoningContent)
		}
		seen[*m.ReasoningContent] = i
	}
	if len(seen) < 6 {
		t.Errorf("%d assistant messages with reasoning, want the 6 of Anthropic and the server's own", len(seen))
	}
	assertAccepted(t, "DeepSeek V4", chat)
}
