package geminijudge

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"google.golang.org/genai"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/transporttest"
)

// pdf is a small PDF's bytes, as Claude Code's Read tool sends them.
var pdf = []byte("%PDF-1.4\n1 0 obj\n<</Type/Catalog>>\nendobj\ntrailer\n<</Root 1 0 R>>\n%%EOF\n")

// TestSDKsJudgeADocumentInAToolResult: a tool result holding text and a
// PDF, as the Anthropic SDK writes it, reaches Gemini 3 as the Gemini SDK
// reads a multimodal function response: the PDF inside the response's
// parts, its bytes whole; the mock's answer, which names what it saw,
// comes back through the transport to the Anthropic SDK.
func TestSDKsJudgeADocumentInAToolResult(t *testing.T) {
	u := llmtest.NewGeminiUpstream("gem")
	defer u.Close()
	loop := transporttest.NewLoop(t, client(t, u))
	m := loop.Turn(false, anthropic.NewTextBlock("[tool] read spec.pdf"))
	call := m.Content[len(m.Content)-1]
	result := anthropic.ToolResultBlockParam{ToolUseID: call.ID, Content: []anthropic.ToolResultBlockParamContentUnion{
		{OfText: &anthropic.TextBlockParam{Text: "PDF file read"}},
		{OfDocument: &anthropic.DocumentBlockParam{Source: anthropic.DocumentBlockParamSourceUnion{
			OfBase64: &anthropic.Base64PDFSourceParam{Data: base64.StdEncoding.EncodeToString(pdf)}}}},
	}}
	m = loop.Turn(true, anthropic.ContentBlockParamUnion{OfToolResult: &result})
	if last := m.Content[len(m.Content)-1]; !strings.Contains(last.Text, "Seen: application/pdf.") {
		t.Errorf("answer %s", m.RawJSON())
	}
	reqs := judge(t, u)
	parts := reqs[1].Contents[2].Parts
	if len(parts) != 1 || parts[0].FunctionResponse == nil || parts[0].FunctionResponse.Response["output"] != "PDF file read" {
		t.Fatalf("the result went as %+v", parts)
	}
	media := parts[0].FunctionResponse.Parts
	if len(media) != 1 || media[0].InlineData == nil || media[0].InlineData.MIMEType != "application/pdf" || string(media[0].InlineData.Data) != string(pdf) {
		t.Fatalf("the PDF went as %+v", media)
	}
}

// TestTheSDKReadsAnAnswerWithoutContent: the Gemini SDK reads the mock's
// answer of a model that failed to produce one as Gemini's: a candidate
// with no content and its finish reason; and the mock's refusal of a
// thinkingLevel to Gemini 2.5 as Google's APIError.
func TestTheSDKReadsAnAnswerWithoutContent(t *testing.T) {
	u := llmtest.NewGeminiUpstream("gem")
	defer u.Close()
	u.AnswerEmpty(string(genai.FinishReasonMalformedFunctionCall), -1)
	ctx := context.Background()
	c, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: u.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Models.GenerateContent(ctx, "gemini-3-pro-preview", genai.Text("[tool] go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The SDK's reader of the Gemini API (candidateFromMldev) leaves
	// finishMessage out; the transport reads it from the wire.
	cand := resp.Candidates[0]
	if cand.Content != nil || cand.FinishReason != genai.FinishReasonMalformedFunctionCall {
		t.Fatalf("candidate %+v\n%s", cand, u.Requests()[0].Response)
	}
	for chunk, err := range c.Models.GenerateContentStream(ctx, "gemini-3-pro-preview", genai.Text("hi"), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if chunk.Candidates[0].FinishReason != genai.FinishReasonMalformedFunctionCall {
			t.Fatalf("chunk %+v", chunk.Candidates[0])
		}
	}
	// A refusal, in Google's envelope, is the SDK's APIError.
	_, err = c.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("hi"),
		&genai.GenerateContentConfig{ThinkingConfig: &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelHigh}})
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 400 || apiErr.Message != "Thinking level is not supported for this model." || apiErr.Status != "INVALID_ARGUMENT" {
		t.Fatalf("refusal %v", err)
	}
}
