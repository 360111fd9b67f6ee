package integration

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// The Responses API's rules that Claude Code meets on the first day,
// through llm_thinking and transport responses against the strict mock,
// which refuses as the API does (see llmtest/responses_limits.go
// and responses_files.go).

// responsesStatuses returns the status of every request u got, in order.
func responsesStatuses(u *llmtest.ResponsesUpstream) []int {
	var out []int
	for _, r := range u.Requests() {
		out = append(out, r.Status)
	}
	return out
}

// assertNoSummaryRequest checks request i that u got: answered 200, it
// thinks without asking for a summary, asks for the encrypted reasoning,
// and brings back exactly the reasoning items back, u's own, in order.
func assertNoSummaryRequest(t *testing.T, u *llmtest.ResponsesUpstream, i int, back []string) {
	t.Helper()
	rec := u.Requests()[i]
	if rec.Status != http.StatusOK {
		t.Fatalf("request %d was refused: %d %s", i, rec.Status, rec.ErrorMessage)
	}
	top, items := responsesInput(t, rec.Body)
	if string(top["reasoning"]) != `{"effort":"high"}` || string(top["include"]) != `["reasoning.encrypted_content"]` {
		t.Errorf("request %d asked for reasoning %s, include %s; want no summary and the encrypted reasoning", i, top["reasoning"], top["include"])
	}
	all := 0
	for _, it := range items {
		if it.Type == "reasoning" {
			all++
		}
	}
	if got := u.ReasoningBack(i); !slices.Equal(got, back) || all != len(back) {
		t.Errorf("request %d brought back %q (%d reasoning items in all), want %q", i, got, all, back)
	}
}

// assertUnsummarizedAnswer checks that an answer begins with the thinking
// block of u's n-th reasoning item: no text (there is no summary), and in
// its envelope the item's id and the encrypted content u issued.
func assertUnsummarizedAnswer(t *testing.T, turn *llmtest.Turn, u *llmtest.ResponsesUpstream, n int) {
	t.Helper()
	id := fmt.Sprintf("rs_oa_%d", n)
	var encrypted string
	for _, it := range issuedReasoning(t, u) {
		if it.id == id {
			encrypted = it.encrypted
		}
	}
	blocks := blocksOf(t, turn.Message)
	payload := fmt.Sprintf("%d.%s.s.%s", len(id), id, encrypted)
	if encrypted == "" || len(blocks) < 2 || blocks[0].Type != "thinking" || blocks[0].Thinking != "" ||
		!strings.HasPrefix(blocks[0].Signature, responsesEnvelope) || !strings.HasSuffix(blocks[0].Signature, "."+payload) {
		t.Fatalf("answer %d does not begin with its unsummarized reasoning (payload %s): %s", n, payload, turn.Message)
	}
}

// TestResponsesUnverifiedOrganization: an OpenAI organization that is not
// verified is refused every reasoning summary. The first request, which
// asks for one, is refused once; llm_thinking learns no_reasoning_summary
// from the refusal and replays it, and the client sees only the answer.
// Every later request, and every request after a restart (persist on),
// asks for no summary, is answered, and carries every reasoning item of
// the conversation back with its encrypted content, in tool loops,
// streamed and not.
func TestResponsesUnverifiedOrganization(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream ", stream), func(t *testing.T) {
			oa := startResponses(t, "oa", responsesKey)
			oa.UnverifyOrganization("org-oa")
			g := newGateway(t, nil, "oa", withResponses("oa", oa, responsesKey))
			c, ok := g.session("responses-unverified")
			c.Stream = stream

			turn := ok(c.Say("[tool] list the files"))
			assertUnsummarizedAnswer(t, turn, oa, 1)
			refused := oa.Requests()[0]
			if top := topLevel(t, refused.Body); refused.Status != http.StatusBadRequest || refused.ErrorMessage != llmtest.UnverifiedOrganizationMessage ||
				string(top["reasoning"]) != `{"effort":"high","summary":"auto"}` {
				t.Fatalf("the first request: %d %s, reasoning %s", refused.Status, refused.ErrorMessage, top["reasoning"])
			}
			assertNoSummaryRequest(t, oa, 1, nil)

			assertUnsummarizedAnswer(t, ok(c.ToolResult("file1")), oa, 2)
			assertNoSummaryRequest(t, oa, 2, []string{"rs_oa_1"})
			assertUnsummarizedAnswer(t, ok(c.Say("[tool] and now?")), oa, 3)
			assertNoSummaryRequest(t, oa, 3, []string{"rs_oa_1", "rs_oa_2"})
			assertUnsummarizedAnswer(t, ok(c.ToolResult("file2")), oa, 4)
			assertNoSummaryRequest(t, oa, 4, []string{"rs_oa_1", "rs_oa_2", "rs_oa_3"})
			if got, want := responsesStatuses(oa), []int{400, 200, 200, 200, 200}; !slices.Equal(got, want) {
				t.Fatalf("the Responses upstream answered %v, want %v: one refusal", got, want)
			}

			events := g.logEvents("thinking.capability_learned")
			if len(events) != 1 || events[0]["backend"] != "oa" || events[0]["why"] != llmtest.UnverifiedOrganizationMessage {
				t.Errorf("capability_learned events: %v", events)
			}
			learned := false
			for _, c := range g.stats().Capabilities {
				learned = learned || c.Backend == "oa" && slices.Contains(c.Names, "no_reasoning_summary")
			}
			if !learned {
				t.Errorf("stats: %+v", g.stats().Capabilities)
			}
			m := scrape(t).series("caddy_llm_thinking_learned_models", "registry", registryName(t))
			if m == nil || m.GetGauge().GetValue() != 1 || !hasLabel(m.GetLabel(), "fact", "no_reasoning_summary") {
				t.Errorf("learned_models series: %v", m)
			}

			restartCaddy(t, g)
			assertUnsummarizedAnswer(t, ok(c.Say("after a restart")), oa, 5)
			assertNoSummaryRequest(t, oa, 5, []string{"rs_oa_1", "rs_oa_2", "rs_oa_3", "rs_oa_4"})
			if got, want := responsesStatuses(oa), []int{400, 200, 200, 200, 200, 200}; !slices.Equal(got, want) {
				t.Errorf("after a restart, the Responses upstream answered %v, want %v", got, want)
			}
		})
	}
}

// TestResponsesNoSummaryDeclared: declared up front, with backend_profile
// facts no_reasoning_summary or transport responses' reasoning_summary
// none, an unverified organization is never refused, and its reasoning
// goes back all the same.
func TestResponsesNoSummaryDeclared(t *testing.T) {
	for name, option := range map[string]func(*gateway){
		"backend_profile": withHandler("backend_profile oa {\n\t\t\tfacts no_reasoning_summary\n\t\t}"),
		"reasoning_summary none": withBlock("oa", "transport responses {\n\t\t\tmodel claude-* gpt-5\n\t\t\tapi_key "+responsesKey+
			"\n\t\t\treasoning_summary none\n\t\t}"),
	} {
		t.Run(name, func(t *testing.T) {
			oa := startResponses(t, "oa", responsesKey)
			oa.UnverifyOrganization("org-oa")
			g := newGateway(t, nil, "oa", withResponses("oa", oa, responsesKey), option)
			c, ok := g.session("responses-no-summary")
			assertUnsummarizedAnswer(t, ok(c.Say("[tool] list the files")), oa, 1)
			assertUnsummarizedAnswer(t, ok(c.ToolResult("file1")), oa, 2)
			assertUnsummarizedAnswer(t, ok(c.Say("thanks")), oa, 3)
			assertNoSummaryRequest(t, oa, 2, []string{"rs_oa_1", "rs_oa_2"})
			if got, want := responsesStatuses(oa), []int{200, 200, 200}; !slices.Equal(got, want) {
				t.Errorf("the Responses upstream answered %v, want %v", got, want)
			}
		})
	}
}

// Files a Read returns, in the shapes Claude Code sends them: a 1x1 PNG and
// a one-page PDF, in base64.
var (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwADAgH/iGhrhQAAAABJRU5ErkJggg=="
	pdfBase64 = base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n" +
		"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"))
)

// TestResponsesToolResultMediaReachTheModel: a tool loop whose result
// holds text, an image and a PDF (Claude Code's Read of an image or a
// PDF): the function_call_output carries them as input_text, input_image
// and input_file parts, the file inline as a data URL with its filename,
// which the strict mock takes; the next turn sends it again the same way.
// Streamed and not.
func TestResponsesToolResultMediaReachTheModel(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream ", stream), func(t *testing.T) {
			oa := startResponses(t, "oa", responsesKey)
			g := newGateway(t, nil, "oa", withResponses("oa", oa, responsesKey))
			c, ok := g.session("responses-media")
			c.Stream = stream
			call := toolUse(t, ok(c.Say("[tool] read the files")).Message)
			c.Messages = append(c.Messages, []byte(`{"role":"user","content":[{"tool_use_id":"`+call.ID+`","type":"tool_result","content":[`+
				`{"type":"text","text":"PDF file read: /p/a.pdf"},`+
				`{"type":"image","source":{"type":"base64","data":"`+pngBase64+`","media_type":"image/png"}},`+
				`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"`+pdfBase64+`"}}]}]}`))
			assertResponsesAnswer(t, ok(c.Send()), oa, "oa", 2, true)
			ok(c.Say("thanks"))

			want := `[{"type":"input_text","text":"PDF file read: /p/a.pdf"},` +
				`{"type":"input_image","image_url":"data:image/png;base64,` + pngBase64 + `"},` +
				`{"type":"input_file","filename":"document.pdf","file_data":"data:application/pdf;base64,` + pdfBase64 + `"}]`
			for i := 1; i <= 2; i++ {
				_, items := responsesInput(t, oa.Requests()[i].Body)
				var outputs []string
				for _, it := range items {
					if it.Type == "function_call_output" {
						outputs = append(outputs, string(it.Output))
					}
					if it.Type == "message" && strings.Contains(string(it.Content), "input_image") {
						t.Errorf("request %d repeats the image in a user message: %s", i, it.Raw)
					}
				}
				if len(outputs) != 1 || outputs[0] != want {
					t.Errorf("request %d's outputs:\n got %s\nwant %s", i, outputs, want)
				}
			}
			assertAccepted(t, "the Responses upstream", oa)
		})
	}
}

// postMessages posts a Messages request body as Claude Code does, to path
// through the gateway, and returns the status, the content type and the
// body of the answer.
func postMessages(t *testing.T, g *gateway, path, body string) (int, string, []byte) {
	t.Helper()
	status, h, b := g.send(t, path, claudeCodeHeaders(t), []byte(body))
	return status, h.Get("Content-Type"), b
}

// TestResponsesClaudeCodeOtherShapes: the requests of Claude Code's other
// than the main loop, through transport responses and the strict mock,
// each answered 200 with a valid Messages answer: max_tokens 1 with a
// string content (its quota check, warm-up and key test; the API takes no
// fewer than 16 output tokens, so 16 goes), the session title request of
// capture 6 (no tools, thinking disabled, a JSON Schema format, a
// stream), tool_choice none (no call), and count_tokens (answered by the
// transport, the upstream not asked).
func TestResponsesClaudeCodeOtherShapes(t *testing.T) {
	oa := startResponses(t, "oa", responsesKey)
	g := newGateway(t, nil, "oa", withResponses("oa", oa, responsesKey))
	n := 0
	sent := func() map[string]json.RawMessage {
		t.Helper()
		reqs := oa.Requests()
		if len(reqs) != n {
			t.Fatalf("the Responses upstream got %d requests, want %d", len(reqs), n)
		}
		rec := reqs[n-1]
		if rec.Status != http.StatusOK {
			t.Fatalf("the Responses upstream refused: %d %s\n%s", rec.Status, rec.ErrorMessage, rec.Body)
		}
		return topLevel(t, rec.Body)
	}

	for _, text := range []string{"quota", ".", "test"} {
		body := `{"model":"claude-haiku-4-5","max_tokens":1,"messages":[{"role":"user","content":"` + text + `"}],"metadata":{"user_id":"u"}}`
		status, ctype, answer := postMessages(t, g, "/v1/messages?beta=true", body)
		n++
		if status != http.StatusOK {
			t.Fatalf("max_tokens 1 (%q): %d %s", text, status, answer)
		}
		blocks, stop := messagesAnswer(t, "", strings.HasPrefix(ctype, "text/event-stream"), answer)
		if len(blocks) != 1 || blocks[0].Text != fmt.Sprintf("oa answer %d.", n) || stop != "end_turn" {
			t.Errorf("max_tokens 1 (%q): %s", text, answer)
		}
		if top := sent(); string(top["max_output_tokens"]) != "16" || top["reasoning"] != nil || top["tools"] != nil {
			t.Errorf("max_tokens 1 (%q) went with max_output_tokens %s, reasoning %s", text, top["max_output_tokens"], top["reasoning"])
		}
	}

	capture, err := os.ReadFile("../../testdata/claude-code-2.1.328/capture-6-interactive-title-side-request.json")
	if err != nil {
		t.Fatal(err)
	}
	status, ctype, answer := postMessages(t, g, "/v1/messages?beta=true", string(capture))
	n++
	if status != http.StatusOK || !strings.HasPrefix(ctype, "text/event-stream") {
		t.Fatalf("the title request: %d %s %s", status, ctype, answer)
	}
	if blocks, stop := messagesAnswer(t, "", strings.HasPrefix(ctype, "text/event-stream"), answer); len(blocks) != 1 || blocks[0].Type != "text" || stop != "end_turn" {
		t.Errorf("the title request: %s", answer)
	}
	if top := sent(); top["tools"] != nil || top["reasoning"] != nil || !strings.Contains(string(top["text"]), `"type":"json_schema"`) {
		t.Errorf("the title request went with tools %s, reasoning %s, text %s", top["tools"], top["reasoning"], top["text"])
	}

	c := g.conversation("responses-tool-choice-none")
	c.Stream = false
	c.Messages = append(c.Messages, []byte(`{"role":"user","content":[{"type":"text","text":"[tool] list the files"}]}`))
	body := strings.Replace(string(c.Body()), `"thinking":`, `"tool_choice":{"type":"none"},"thinking":`, 1)
	status, ctype, answer = postMessages(t, g, "/v1/messages?beta=true", body)
	n++
	if status != http.StatusOK {
		t.Fatalf("tool_choice none: %d %s", status, answer)
	}
	if blocks, stop := messagesAnswer(t, "", strings.HasPrefix(ctype, "text/event-stream"), answer); len(blocks) != 2 || blocks[0].Type != "thinking" || blocks[1].Type != "text" || stop != "end_turn" {
		t.Errorf("tool_choice none: %s", answer)
	}
	if top := sent(); string(top["tool_choice"]) != `"none"` || top["tools"] == nil {
		t.Errorf("tool_choice none went as %s, tools %s", top["tool_choice"], top["tools"])
	}

	wantEstimate(t, c)
	if got := len(oa.Requests()); got != n {
		t.Errorf("count_tokens reached the Responses upstream: %d requests, want %d", got, n)
	}
}
