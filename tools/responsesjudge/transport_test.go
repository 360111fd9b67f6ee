package responsesjudge

import (
	"slices"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3/responses"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/transporttest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/transport"
)

// anthropicClient returns an Anthropic SDK client whose requests go
// through transport responses to u.
func anthropicClient(t *testing.T, u *llmtest.ResponsesUpstream) anthropic.Client {
	tr := &transport.Responses{Models: transport.Models{{Match: "claude-*", Model: "gpt-5"}}, SigningKey: "judge"}
	return transporttest.Client(t, tr, u.URL(), "sk-judge")
}

// TestSDKsJudgeAToolLoopThroughTheTransport: the Anthropic SDK decodes and
// accumulates the reasoning item's thinking block and two parallel
// tool_uses, streamed and not; sent back as the SDK makes it, the turn
// reaches the mock in a shape the OpenAI SDK reads, the reasoning item
// before the calls, with its summary and encrypted content, the calls'
// outputs after them.
func TestSDKsJudgeAToolLoopThroughTheTransport(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "stream", false: "json"}[stream], func(t *testing.T) {
			u := llmtest.NewResponsesUpstream("oa")
			defer u.Close()
			loop := transporttest.NewLoop(t, anthropicClient(t, u))
			m := loop.Turn(stream, anthropic.NewTextBlock("[tool][parallel] list the files"))
			if len(m.Content) != 3 || m.Content[0].Thinking != u.Summary(1) || m.Content[1].Type != "tool_use" ||
				m.Content[2].Type != "tool_use" || m.StopReason != anthropic.StopReasonToolUse || m.Model != "claude-sonnet-4-5" {
				t.Fatalf("turn 1: %s", m.RawJSON())
			}
			m = loop.Turn(stream, anthropic.NewToolResultBlock(m.Content[1].ID, "file1", false), anthropic.NewToolResultBlock(m.Content[2].ID, "file2", true))
			last := len(m.Content) - 1
			if m.StopReason != anthropic.StopReasonEndTurn || m.Content[last].Text != "oa answer 2." || m.Content[0].Thinking != u.Summary(2) {
				t.Fatalf("turn 2: %s", m.RawJSON())
			}
			if back := u.ReasoningBack(1); !slices.Equal(back, []string{"rs_oa_1"}) {
				t.Fatalf("the reasoning back: %v", back)
			}

			reqs := judge(t, u)
			items := reqs[1].Items
			if len(items) != 6 {
				t.Fatalf("the second request's items: %#v", items)
			}
			rs, ok := items[1].(*responses.ResponseReasoningItem)
			if !ok || rs.EncryptedContent == "" || len(rs.Summary) != 1 || rs.Summary[0].Text != u.Summary(1) {
				t.Fatalf("the reasoning item went back as %#v", items[1])
			}
			call, ok := items[2].(*responses.ResponseFunctionToolCall)
			if !ok || call.CallID != "call_oa_1_0" || call.Name != "Bash" || call.Arguments == "" {
				t.Fatalf("the first call went back as %#v", items[2])
			}
			out, ok := items[5].(*responses.ResponseInputItemFunctionCallOutput)
			if !ok || out.Output.OfString != "Error: file2" {
				t.Fatalf("the second output: %#v", items[5])
			}
			if r := reqs[1].Reasoning; r == nil || r.Effort != "low" || r.Summary != "auto" || !slices.Contains(reqs[1].Include, "reasoning.encrypted_content") ||
				reqs[1].Store == nil || *reqs[1].Store || reqs[1].Model != "gpt-5" {
				t.Fatalf("the request's settings: %+v", reqs[1])
			}
		})
	}
}

// TestSDKsJudgeAReadThroughTheTransport: a tool result as the Anthropic SDK
// makes it, with text, an image and a PDF (what Claude Code's Read returns
// for them), reaches the mock as a function_call_output whose output is
// the OpenAI SDK's own parts: input_text, input_image with a data URL,
// input_file with its filename and the PDF as a data URL; nothing the SDK
// does not know, and the mock answers.
func TestSDKsJudgeAReadThroughTheTransport(t *testing.T) {
	u := llmtest.NewResponsesUpstream("oa")
	defer u.Close()
	loop := transporttest.NewLoop(t, anthropicClient(t, u))
	m := loop.Turn(false, anthropic.NewTextBlock("[tool] read the files"))
	if len(m.Content) != 2 || m.Content[1].Type != "tool_use" {
		t.Fatalf("turn 1: %s", m.RawJSON())
	}
	const png, pdf = "iVBORw0KGgo=", "JVBERi0xLjQK"
	result := anthropic.ToolResultBlockParam{ToolUseID: m.Content[1].ID, Content: []anthropic.ToolResultBlockParamContentUnion{
		{OfText: &anthropic.TextBlockParam{Text: "read"}},
		{OfImage: &anthropic.ImageBlockParam{Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{Data: png, MediaType: "image/png"}}}},
		{OfDocument: &anthropic.DocumentBlockParam{Source: anthropic.DocumentBlockParamSourceUnion{OfBase64: &anthropic.Base64PDFSourceParam{Data: pdf}}}},
	}}
	if m = loop.Turn(false, anthropic.ContentBlockParamUnion{OfToolResult: &result}); m.Content[len(m.Content)-1].Text != "oa answer 2." {
		t.Fatalf("turn 2: %s", m.RawJSON())
	}
	items := judge(t, u)[1].Items
	out, ok := items[len(items)-1].(*responses.ResponseInputItemFunctionCallOutput)
	if !ok {
		t.Fatalf("the last item: %#v", items[len(items)-1])
	}
	parts := out.Output.OfResponseFunctionCallOutputItemArray
	if len(parts) != 3 || parts[0].Type != "input_text" || parts[0].Text != "read" ||
		parts[1].Type != "input_image" || parts[1].ImageURL != "data:image/png;base64,"+png ||
		parts[2].Type != "input_file" || parts[2].Filename != "document.pdf" || parts[2].FileData != "data:application/pdf;base64,"+pdf {
		t.Fatalf("the output went as %s", out.Output.RawJSON())
	}
}
