package llmtest

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
)

// The rules of the Gemini API that depend on the model or on a field's
// value, as a GeminiUpstream applies them, each in Google's words (the
// source beside each), and the answers the API gives with a status of 200
// and no content.

// geminiThinking is how a model of the Gemini API takes a thinkingConfig.
type geminiThinking int

const (
	// thinksByLevel: Gemini 3 and later take thinkingLevel (and, for
	// backward compatibility, thinkingBudget).
	thinksByLevel geminiThinking = iota
	// thinksByBudget: Gemini 2.5, the -latest aliases that serve it, and
	// Gemma take thinkingBudget only.
	thinksByBudget
	// thinksNot: Gemini 2.0 and 1.x take no thinkingConfig at all.
	thinksNot
)

// thinkingOf returns how the model a request names takes a thinkingConfig.
// The aliases gemini-flash-latest, gemini-flash-lite-latest and
// gemini-pro-latest are played as serving Gemini 2.5, as they did when
// Roo-Code #10700 met the refusal through one.
func thinkingOf(model string) geminiThinking {
	switch {
	case strings.HasPrefix(model, "gemini-1"), strings.HasPrefix(model, "gemini-2.0"):
		return thinksNot
	case strings.HasPrefix(model, "gemini-2"), strings.HasPrefix(model, "gemma-"),
		model == "gemini-flash-latest", model == "gemini-flash-lite-latest", model == "gemini-pro-latest":
		return thinksByBudget
	}
	return thinksByLevel
}

// The refusals' words.
const (
	// Roo-Code #10700 (gemini-2.5-flash), gemini-cli #14025,
	// Kilo-Org/kilocode #12149 (gemma-4-31b-it): a thinkingLevel to a model
	// that thinks by budget.
	msgThinkingLevel = "Thinking level is not supported for this model."
	// immersive-translate #2976, Veloera #41: any thinkingConfig to
	// gemini-2.0-flash and older.
	msgThinkingConfig = "thinking_config is not supported."
	// Vertex AI, for a maxOutputTokens at or over the model's bound
	// (LiteLLM #10548, goose #11364, oh-my-pi #10595): the bound is
	// exclusive, 65537 for most models, 65536 for some (gemini-2.5-flash-lite).
	msgMaxOutputTokens = "Unable to submit request because it has a maxOutputTokens value of %d but the supported range is from 1 (inclusive) to %d (exclusive). Update the value and try again."
	// A functionResponse with parts, to a model before Gemini 3: Google
	// documents multimodal function responses for "Gemini 3 series models"
	// only (ai.google.dev/gemini-api/docs/function-calling#multimodal); the
	// words are those a client quotes from the 400 it met, not Google's docs.
	msgMultimodalResponses = "Multimodal function responses are not supported for this model."
	// Google's words for bytes that are not base64 in a bytes field.
	msgBase64 = "Invalid value at '%s' (TYPE_BYTES), Base64 decoding failed for %q"
)

// DefaultGeminiOutputBound is the exclusive bound of maxOutputTokens a
// GeminiUpstream applies unless told otherwise (OutputBound).
const DefaultGeminiOutputBound = 65537

// functionResponseMIME are the media types Google documents inside a
// functionResponse's parts: images and documents.
var functionResponseMIME = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/webp": true,
	"application/pdf": true, "text/plain": true,
}

// OutputBound makes maxOutputTokens at or over bound a refusal, as Vertex
// AI refuses it for models whose bound is 65536 rather than the default
// DefaultGeminiOutputBound.
func (u *GeminiUpstream) OutputBound(bound int) { setLocked(&u.mu, &u.outputBound, bound) }

// AnswerEmpty makes the next times answers (every one when times < 0) a
// 200 whose candidate has no content and finishReason reason, as Gemini
// answers when the model failed to produce one: MALFORMED_FUNCTION_CALL
// (with a finishMessage), UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS
// (google.golang.org/genai's FinishReason). A stream sends it as its one
// and first event. Such answers are not numbered among the others.
func (u *GeminiUpstream) AnswerEmpty(reason string, times int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.emptyReason, u.empties = reason, times
}

// takeEmpty returns the finish reason of an empty answer when the next
// answer is one. Called with u.mu held.
func (u *GeminiUpstream) takeEmpty() string {
	if u.empties == 0 {
		return ""
	}
	if u.empties > 0 {
		u.empties--
	}
	return u.emptyReason
}

// emptyAnswer is the GenerateContentResponse of an answer without content.
func emptyAnswer(reason, model string, n int) []byte {
	cand := fmt.Sprintf(`{"finishReason":%q,"index":0`, reason)
	if reason == "MALFORMED_FUNCTION_CALL" {
		cand += `,"finishMessage":"Malformed function call: print(default_api.Bash(command='ls'"`
	}
	return fmt.Appendf(nil, `{"candidates":[%s}],"usageMetadata":{"promptTokenCount":120,"totalTokenCount":120},"modelVersion":%q,"responseId":"gresp-empty-%d"}`,
		cand, model, n)
}

// modelRule returns the refusal of a request for what the model it names
// does not take, or "". Called with u.mu held.
func (u *GeminiUpstream) modelRule(req *gemRequest, model string) string {
	if g := req.GenerationConfig; g != nil {
		if tc := g.ThinkingConfig; tc != nil {
			switch thinkingOf(model) {
			case thinksNot:
				return msgThinkingConfig
			case thinksByBudget:
				if tc.ThinkingLevel != "" {
					return msgThinkingLevel
				}
			}
		}
		bound := u.outputBound
		if bound == 0 {
			bound = DefaultGeminiOutputBound
		}
		if n := g.MaxOutputTokens; n != nil && (*n < 1 || *n >= bound) {
			return fmt.Sprintf(msgMaxOutputTokens, *n, bound)
		}
	}
	for i, c := range req.Contents {
		for j, p := range c.Parts {
			if p.InlineData != nil {
				if _, err := base64.StdEncoding.DecodeString(p.InlineData.Data); err != nil {
					return fmt.Sprintf(msgBase64, fmt.Sprintf("contents[%d].parts[%d].inline_data.data", i, j), p.InlineData.Data)
				}
			}
			r := p.FunctionResponse
			if r == nil || len(r.Parts) == 0 {
				continue
			}
			if thinkingOf(model) != thinksByLevel {
				return msgMultimodalResponses
			}
			for k, fp := range r.Parts {
				if msg := fp.check(fmt.Sprintf("contents[%d].parts[%d].function_response.parts[%d]", i, j, k)); msg != "" {
					return msg
				}
			}
		}
	}
	return ""
}

// check returns the refusal of a functionResponse part, at path, or "".
func (p gemResponsePart) check(path string) string {
	switch {
	case (p.InlineData == nil) == (p.FileData == nil):
		return fmt.Sprintf("* GenerateContentRequest.%s.data: required oneof field 'data' must have one initialized field", path)
	case p.InlineData != nil:
		if !functionResponseMIME[p.InlineData.MimeType] {
			// The documented types only; the words are the mock's (Google's
			// for this refusal are not known).
			return fmt.Sprintf("Unsupported MIME type %q in %s.inline_data: a function response takes image/png, image/jpeg, image/webp, application/pdf and text/plain.",
				p.InlineData.MimeType, path)
		}
		if _, err := base64.StdEncoding.DecodeString(p.InlineData.Data); err != nil {
			return fmt.Sprintf(msgBase64, path+".inline_data.data", p.InlineData.Data)
		}
	}
	return ""
}

// responseMedia returns the media types of the functionResponse parts of
// the last user content, in order: what the model was given by the tools
// it called last.
func (r *gemRequest) responseMedia() []string {
	c := r.Contents[len(r.Contents)-1]
	if c.Role == "model" {
		return nil
	}
	var types []string
	for _, p := range c.Parts {
		if p.FunctionResponse == nil {
			continue
		}
		for _, fp := range p.FunctionResponse.Parts {
			switch {
			case fp.InlineData != nil:
				types = append(types, fp.InlineData.MimeType)
			case fp.FileData != nil:
				types = append(types, fp.FileData.MimeType)
			}
		}
	}
	return types
}

// readMark asks the mock for a call of the Read tool on a path.
var readMark = regexp.MustCompile(`\[read ([^\]]+)\]`)

// readPaths returns the paths a text asks the mock to Read, in order.
func readPaths(text string) []string {
	var paths []string
	for _, m := range readMark.FindAllStringSubmatch(text, -1) {
		paths = append(paths, m[1])
	}
	return paths
}

// declares reports whether the request offers a function of that name.
func (r *gemRequest) declares(name string) bool {
	for _, t := range r.Tools {
		for _, d := range t.FunctionDeclarations {
			if d.Name == name {
				return true
			}
		}
	}
	return false
}
