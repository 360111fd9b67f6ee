package llmtest

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
)

// OpenRouter answers with reasoning_details: an array of parts, each with
// a type (reasoning.text with its text and, for Anthropic's models, a
// signature; reasoning.summary; reasoning.encrypted with data), a format
// ("google-gemini-v1", "anthropic-claude-v1", "openai-responses-v1",
// "unknown"), an index, and an id on some. Its docs ask for the array back
// unmodified on the assistant message it came on
// (https://openrouter.ai/docs/guides/best-practices/reasoning-tokens#preserving-reasoning-blocks:
// "you cannot rearrange or modify the sequence of these blocks"). Serving
// Gemini 3, the thought signature Gemini puts on a function call is a
// reasoning.encrypted part whose id is the call's and whose data is the
// signature, after the reasoning.text parts (as recorded from OpenRouter in
// charmbracelet/fantasy's providertests, gemini-3-pro-preview: index 1 in a
// whole answer, index 0 in the stream's chunk of its own); an answer
// without calls gets one without an id, which a stream sends after the
// content. A tool loop whose call comes back without it is refused with
// Gemini's words inside OpenRouter's (claude-code-router #1081, LibreChat
// agents #37, pi #260; the envelope as microsoft/agent-framework #2947 and
// MassGen #624 quote it), and a signature Gemini did not issue for that
// call with "Corrupted thought signature." (OpenRouterTeam/ai-sdk-provider
// #418, MassGen #665).

// Formats of OpenRouter's reasoning_details parts the mock writes.
const (
	geminiDetailsFormat  = "google-gemini-v1"
	unknownDetailsFormat = "unknown"
)

// openRouterSkipSignature is the dummy Google documents for a function
// call Gemini did not make; sent through OpenRouter as the data of a
// reasoning.encrypted part, as Roo-Code does (#10640: one part per
// assistant message, the first call's id, index 0).
const openRouterSkipSignature = "skip_thought_signature_validator"

// MissingThoughtSignature is Gemini's message for a function call of the
// current turn sent back without its thought signature, naming the call
// and its position.
func MissingThoughtSignature(name string, position int) string {
	return fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, "+
		"and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. "+
		"Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", name, position)
}

// OpenRouterPreserveDetails starts OpenRouter's message when Gemini
// refuses a function call without its signature.
const OpenRouterPreserveDetails = "Gemini models require OpenRouter reasoning details to be preserved in each request. " +
	"Please refer to our docs: https://openrouter.ai/docs/guides/best-practices/reasoning-tokens#preserving-reasoning-blocks. Upstream error: "

// googleErrorText is Google's error body as OpenRouter quotes it in
// metadata.raw: indented by two spaces, with a final line end.
func googleErrorText(msg string) string {
	b, _ := json.MarshalIndent(map[string]any{"error": map[string]any{"code": 400, "message": msg, "status": "INVALID_ARGUMENT"}}, "", "  ")
	return string(b) + "\n"
}

// openRouterProviderError is OpenRouter's 400 for an error of the provider
// behind it: "Provider returned error", the provider's own words in
// metadata.raw.
func openRouterProviderError(raw string) *chatRefusal {
	b, _ := json.Marshal(map[string]any{
		"error": map[string]any{"message": "Provider returned error", "code": 400,
			"metadata": map[string]any{"raw": raw, "provider_name": "Google AI Studio", "is_byok": false}},
		"user_id": "user_mock"})
	return &chatRefusal{status: http.StatusBadRequest, body: b, message: raw}
}

// detailPart is the part of a reasoning_details item the mock reads.
type detailPart struct {
	Type   string `json:"type"`
	Data   string `json:"data"`
	ID     string `json:"id"`
	Format string `json:"format"`
}

// newSignature returns a thought signature of its own making.
func newSignature() string {
	var b [48]byte
	_, _ = rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}

// details returns the reasoning_details parts of an OpenRouter answer, as a
// whole answer has them, or as a stream's fragments add up to (stream).
func (r chatReply) details(stream bool) []map[string]any {
	format := unknownDetailsFormat
	if r.flavor == OpenRouterGemini {
		format = geminiDetailsFormat
	}
	parts := []map[string]any{{"type": "reasoning.text", "text": r.reasoning, "format": format, "index": 0}}
	if r.flavor != OpenRouterGemini {
		return parts
	}
	return append(parts, r.encryptedPart(stream))
}

// encryptedPart returns the reasoning.encrypted part that carries Gemini's
// signature: the call's id on a call's; index 1 after the text in a whole
// answer, 0 in the chunk of its own a stream sends it in.
func (r chatReply) encryptedPart(stream bool) map[string]any {
	p := map[string]any{"type": "reasoning.encrypted", "data": r.sig, "format": geminiDetailsFormat, "index": 1}
	if stream {
		p["index"] = 0
	}
	if r.text == "" {
		p["id"] = r.call.ID
	}
	return p
}

// issue records the reasoning_details an answer gives, and the signature
// it carries with the call it was issued for. Called with u.mu held.
func (u *ChatUpstream) issue(r chatReply, stream bool) {
	if r.flavor != OpenRouterGemini && r.flavor != OpenRouterStyle {
		return
	}
	var parts []string
	for _, p := range r.details(stream) {
		parts = append(parts, canonicalJSON(p))
	}
	u.issuedDetails = append(u.issuedDetails, parts)
	if r.sig != "" {
		u.signatures[r.sig] = r.call.ID
	}
}

// canonicalJSON returns v as JSON with its object members sorted: two
// parts that are equal as JSON values give the same text.
func canonicalJSON(v any) string {
	b, _ := json.Marshal(v)
	var back any
	if json.Unmarshal(b, &back) != nil {
		return string(b)
	}
	b, _ = json.Marshal(back)
	return string(b)
}

// detailsRefusal applies OpenRouter's rules to the reasoning_details of a
// request's assistant messages: each message's parts as an answer gave
// them, in its order, unaltered (parts may be left out, as a client that
// keeps only some does); for Gemini, every thought signature one it issued
// for that call, and the first call of each assistant message of the
// current turn (after the last user message) with its signature, or the
// dummy.
func (u *ChatUpstream) detailsRefusal(req *chatRequest) *chatRefusal {
	if u.flavor != OpenRouterGemini && u.flavor != OpenRouterStyle {
		return nil
	}
	lastUser, position := -1, 0
	for i, m := range req.Messages {
		if m.Role == "user" {
			lastUser = i
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for i, m := range req.Messages {
		if m.Role != "system" {
			position++
		}
		if m.Role != "assistant" {
			continue
		}
		var raws []json.RawMessage
		if d, ok := m.raw["reasoning_details"]; ok && json.Unmarshal(d, &raws) != nil {
			return openAIRefusal(http.StatusBadRequest, fmt.Sprintf("messages[%d].reasoning_details: expected an array of objects", i), "invalid_request_error", "", "")
		}
		signed := false
		var kept []string
		for _, raw := range raws {
			var p detailPart
			if json.Unmarshal(raw, &p) != nil || p.Type == "" {
				return openAIRefusal(http.StatusBadRequest, fmt.Sprintf("messages[%d].reasoning_details: expected an array of objects", i), "invalid_request_error", "", "")
			}
			first := len(m.ToolCalls) > 0 && p.ID == m.ToolCalls[0].ID
			if u.flavor == OpenRouterGemini && p.Type == "reasoning.encrypted" && p.Format == geminiDetailsFormat {
				if p.Data == openRouterSkipSignature || p.Data == GeminiDummySignature {
					signed = signed || first
					continue
				}
				if call, ok := u.signatures[p.Data]; !ok || call != p.ID {
					return openRouterProviderError(googleErrorText("Corrupted thought signature."))
				}
				signed = signed || first
			}
			var v any
			_ = json.Unmarshal(raw, &v)
			kept = append(kept, canonicalJSON(v))
		}
		if len(kept) > 0 && !u.issuedInOrder(kept) {
			return openAIRefusal(http.StatusBadRequest, fmt.Sprintf("messages[%d].reasoning_details: not as this server sent them", i), "invalid_request_error", "", "")
		}
		if u.flavor == OpenRouterGemini && i > lastUser && len(m.ToolCalls) > 0 && !signed {
			return openRouterProviderError(OpenRouterPreserveDetails + googleErrorText(MissingThoughtSignature(m.ToolCalls[0].Function.Name, position)))
		}
	}
	return nil
}

// issuedInOrder reports whether parts, canonical, are some of the parts of
// one answer, in its order. Called with u.mu held.
func (u *ChatUpstream) issuedInOrder(parts []string) bool {
	for _, issued := range u.issuedDetails {
		k := 0
		for _, p := range issued {
			if k < len(parts) && p == parts[k] {
				k++
			}
		}
		if k == len(parts) {
			return true
		}
	}
	return false
}

// Signatures returns the thought signatures an OpenRouterGemini issued,
// each with the id of the call it was issued for ("" for an answer without
// calls).
func (u *ChatUpstream) Signatures() map[string]string { return copyLocked(&u.mu, &u.signatures) }

// ForgetSignatures makes every thought signature issued so far one Gemini
// no longer takes ("Corrupted thought signature."), as after a change of
// the project or endpoint behind OpenRouter (mastra-ai/mastra #23433).
func (u *ChatUpstream) ForgetSignatures() {
	u.mu.Lock()
	defer u.mu.Unlock()
	clear(u.signatures)
}
