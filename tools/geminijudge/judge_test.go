package geminijudge

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"google.golang.org/genai"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/transporttest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/transport"
)

// client returns an Anthropic SDK client whose requests go through
// transport gemini to u.
func client(t *testing.T, u *llmtest.GeminiUpstream) anthropic.Client {
	tr := &transport.Gemini{Models: transport.Models{{Match: "claude-*", Model: "gemini-3-pro-preview"}}, SigningKey: "judge"}
	return transporttest.Client(t, tr, u.URL(), "gk-test")
}

// wireRequest is a generateContent request in the Gemini SDK's own types:
// the SDK has none for the whole request, only for its members.
type wireRequest struct {
	Contents          []*genai.Content        `json:"contents"`
	SystemInstruction *genai.Content          `json:"systemInstruction,omitempty"`
	Tools             []*genai.Tool           `json:"tools,omitempty"`
	ToolConfig        *genai.ToolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *genai.GenerationConfig `json:"generationConfig,omitempty"`
}

// judge decodes every request u got with the Gemini SDK's types, refusing
// any field they do not have, and returns them.
func judge(t *testing.T, u *llmtest.GeminiUpstream) []wireRequest {
	t.Helper()
	var out []wireRequest
	for i, r := range u.Requests() {
		dec := json.NewDecoder(bytes.NewReader(r.Body))
		dec.DisallowUnknownFields()
		var w wireRequest
		if err := dec.Decode(&w); err != nil {
			t.Fatalf("request %d is not one the Gemini SDK reads: %v\n%s", i+1, err, r.Body)
		}
		if r.Status != http.StatusOK {
			t.Fatalf("the mock refused request %d: %s", i+1, r.ErrorMessage)
		}
		out = append(out, w)
	}
	return out
}

// TestSDKsJudgeAToolLoop: the Anthropic SDK decodes and accumulates
// Gemini's thought, the signature's block and the tool_use, streamed and
// not; sent back as the SDK makes it, the turn reaches Gemini in a shape
// its SDK reads, with the signature (bytes, as the SDK decodes them) on
// the call, the thinking config as a level, the schema as JSON Schema.
func TestSDKsJudgeAToolLoop(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "stream", false: "json"}[stream], func(t *testing.T) {
			u := llmtest.NewGeminiUpstream("gem")
			defer u.Close()
			loop := transporttest.NewLoop(t, client(t, u))
			m := loop.Turn(stream, anthropic.NewTextBlock("[tool][parallel] list the files"))
			if len(m.Content) != 4 || m.Content[0].Thinking != u.Thought(1) || m.Content[1].Type != "thinking" ||
				m.Content[2].Type != "tool_use" || m.Content[3].Type != "tool_use" || m.StopReason != anthropic.StopReasonToolUse {
				t.Fatalf("turn 1: %s", m.RawJSON())
			}
			if m.Model != "claude-sonnet-4-5" || m.Usage.InputTokens == 0 || m.Usage.OutputTokens != 50 {
				t.Errorf("model %s, usage %+v", m.Model, m.Usage)
			}
			m = loop.Turn(stream, anthropic.NewToolResultBlock(m.Content[2].ID, "file1", false), anthropic.NewToolResultBlock(m.Content[3].ID, "file2", false))
			// The answer is its last block; whole (not streamed), Gemini signs
			// the text part, and that signature rides in an empty thinking
			// block before the text.
			last := len(m.Content) - 1
			if m.StopReason != anthropic.StopReasonEndTurn || last < 1 || m.Content[last].Text != "gem answer 2." ||
				m.Content[0].Thinking != u.Thought(2) || (!stream && (last != 2 || m.Content[1].Type != "thinking" || m.Content[1].Thinking != "")) {
				t.Errorf("turn 2: %s", m.RawJSON())
			}

			reqs := judge(t, u)
			second := reqs[1]
			model := second.Contents[1]
			if model.Role != "model" || len(model.Parts) != 2 || model.Parts[0].FunctionCall == nil || model.Parts[0].FunctionCall.ID != "gcall-gem-1-0" ||
				u.Signatures()[base64.StdEncoding.EncodeToString(model.Parts[0].ThoughtSignature)] != "call Bash" || len(model.Parts[1].ThoughtSignature) != 0 {
				t.Fatalf("the calls went back as %+v", model.Parts)
			}
			responses := second.Contents[2]
			if len(responses.Parts) != 2 || responses.Parts[0].FunctionResponse == nil || responses.Parts[0].FunctionResponse.ID != "gcall-gem-1-0" ||
				responses.Parts[0].FunctionResponse.Response["output"] != "file1" {
				t.Fatalf("the responses went as %+v", responses.Parts)
			}
			g := second.GenerationConfig
			if g.ThinkingConfig == nil || g.ThinkingConfig.ThinkingLevel != "low" || !g.ThinkingConfig.IncludeThoughts || g.MaxOutputTokens != 1024 {
				t.Errorf("generation config %+v", g)
			}
			if d := second.Tools[0].FunctionDeclarations[0]; d.Name != "Bash" || d.ParametersJsonSchema == nil {
				t.Errorf("tool %+v", d)
			}
		})
	}
}

// TestTheMockSpeaksGemini: the Gemini SDK reads the strict mock's answers,
// streamed and not: the thought, the call with its id and signature, the
// usage; so what transport gemini is tested against is what Gemini sends.
func TestTheMockSpeaksGemini(t *testing.T) {
	u := llmtest.NewGeminiUpstream("gem")
	defer u.Close()
	ctx := context.Background()
	c, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: u.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &genai.GenerateContentConfig{
		ThinkingConfig: &genai.ThinkingConfig{IncludeThoughts: true},
		Tools:          []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "Bash", ParametersJsonSchema: map[string]any{"type": "object"}}}}},
	}
	resp, err := c.Models.GenerateContent(ctx, "gemini-3-pro-preview", genai.Text("[tool] go"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	parts := resp.Candidates[0].Content.Parts
	if len(parts) != 2 || !parts[0].Thought || parts[0].Text != u.Thought(1) || parts[1].FunctionCall == nil ||
		parts[1].FunctionCall.Name != "Bash" || len(parts[1].ThoughtSignature) == 0 || resp.UsageMetadata.ThoughtsTokenCount != 30 {
		t.Fatalf("answer %+v", parts)
	}
	var text strings.Builder
	var signed bool
	for chunk, err := range c.Models.GenerateContentStream(ctx, "gemini-3-pro-preview", genai.Text("hello"), cfg) {
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range chunk.Candidates[0].Content.Parts {
			if !p.Thought {
				text.WriteString(p.Text)
			}
			signed = signed || len(p.ThoughtSignature) > 0
		}
	}
	if text.String() != "gem answer 2." || !signed {
		t.Fatalf("stream: %q, signed %v", text.String(), signed)
	}
}
