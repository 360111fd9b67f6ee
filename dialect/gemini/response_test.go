package gemini

import (
	"bytes"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// FuzzReadResponse: the one walk of readResponse reads what looking each
// member up by its path reads, on any valid JSON.
func FuzzReadResponse(f *testing.F) {
	addAnswers(f)
	f.Add([]byte(`{"candidates":[7,{"content":{}}],"promptFeedback":{"blockReason":"SAFETY"}}`))
	f.Add([]byte(`{"candidates":[],"promptFeedback":{"blockReason":"SAFETY"}}`))
	f.Add([]byte(`{"candidates":[{"content":{"parts":[1,{"text":"a","text":"b"}],"parts":[{"thought":true}]},"finishReason":"STOP"}],"candidates":{}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if !jsonscan.Valid(body) {
			return
		}
		v := jsonscan.Parse(bytes.TrimSpace(body))
		got, want := readResponse(v, nil), lookedUp(v)
		if !same(got.finish, want.finish) || !same(got.usage, want.usage) || !same(got.responseID, want.responseID) ||
			!same(got.err, want.err) || !same(got.finishMessage, want.finishMessage) || got.blocked != want.blocked || len(got.parts) != len(want.parts) {
			t.Fatalf("%s:\n got %+v\nwant %+v", body, got, want)
		}
		for i := range got.parts {
			if g, w := got.parts[i], want.parts[i]; !same(g.call, w.call) || !same(g.text, w.text) || !same(g.thought, w.thought) || !same(g.signature, w.signature) {
				t.Fatalf("%s: part %d:\n got %+v\nwant %+v", body, i, got.parts[i], want.parts[i])
			}
		}
	})
}

// lookedUp reads a response member by member, with Get.
func lookedUp(v jsonscan.Value) response {
	cand := v.Get("candidates").Index(0)
	r := response{finish: cand.Get("finishReason"), finishMessage: cand.Get("finishMessage"), usage: v.Get("usageMetadata"), responseID: v.Get("responseId"), err: v.Get("error"),
		blocked: !cand.Exists() && v.Get("promptFeedback", "blockReason").Exists()}
	for p := range cand.Get("content", "parts").Elements() {
		r.parts = append(r.parts, partFields{call: p.Get("functionCall"), text: p.Get("text"), thought: p.Get("thought"), signature: p.Get("thoughtSignature")})
	}
	return r
}

func same(a, b jsonscan.Value) bool { return bytes.Equal(a, b) && (a == nil) == (b == nil) }
