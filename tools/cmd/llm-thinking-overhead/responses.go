package main

import (
	"fmt"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/responses"
)

// The Responses load (see translation.go): the upstream answers a stream
// of OpenAI's Responses API, which transport responses translates.

// responsesModel is the model transport responses maps every model to.
const responsesModel = "gpt-5"

// responsesAPI is the Responses API, through transport responses, which
// asks for …/v1/responses where the client asked for …/v1/messages.
var responsesAPI = &api{
	name:      "Responses",
	slug:      "responses-sse",
	transport: fmt.Sprintf("transport responses {\n\t\t\tmodel * %s\n\t\t\tsigning_key %s\n\t\t}", responsesModel, signingKey),
	upstreamPath: func(path string) string {
		return strings.TrimSuffix(path, "/v1/messages") + "/v1/responses"
	},
	translate: translateResponses,
}

// translateResponses returns what transport responses sends the upstream
// for streamRequest, the upstream's stream, and what the transport gives
// the client. As with Gemini's (see translateGemini), the answer has no
// reasoning item, so no envelope.
func translateResponses() (request []byte, native, translated *reply, err error) {
	return translateSealed(responses.NewSigner, responsesReply(translatedChunks), func(s envelope.Signer) ([]byte, func(envelope.Signer) chunker, error) {
		tr, err := responses.TranslateRequest(streamRequest, responses.RequestOptions{Model: responsesModel, Signer: s})
		return tr.Body, func(s envelope.Signer) chunker {
			return responses.NewStream(responses.AnswerOptions{Model: tr.Model, Signer: s, InputTokens: tr.InputTokens})
		}, err
	})
}

// responsesReply returns a Responses stream as the API writes one for a
// message of chunks text deltas: its events in order, each with its event
// line, up to response.completed with the usage.
func responsesReply(chunks int) *reply {
	seq := 0
	event := func(typ, rest string) []byte {
		seq++
		return fmt.Appendf(nil, "event: %s\ndata: {\"type\":%q,%s,\"sequence_number\":%d}\n\n", typ, typ, rest, seq)
	}
	resp := `{"id":"resp_bench","object":"response","created_at":1,"status":"in_progress","model":"gpt-5","output":[]}`
	events := [][]byte{
		event("response.created", `"response":`+resp),
		event("response.in_progress", `"response":`+resp),
		event("response.output_item.added", `"output_index":0,"item":{"id":"msg_bench","type":"message","status":"in_progress","content":[],"role":"assistant"}`),
		event("response.content_part.added", `"item_id":"msg_bench","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}`),
	}
	for range chunks {
		events = append(events, event("response.output_text.delta", `"item_id":"msg_bench","output_index":0,"content_index":0,"delta":"Here is some more of the answer, ","logprobs":[],"obfuscation":"x1Yz"`))
	}
	events = append(events,
		event("response.output_text.done", `"item_id":"msg_bench","output_index":0,"content_index":0,"text":"…","logprobs":[]`),
		event("response.content_part.done", `"item_id":"msg_bench","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":"…"}`),
		event("response.output_item.done", `"output_index":0,"item":{"id":"msg_bench","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":"…"}],"role":"assistant"}`),
		event("response.completed", fmt.Sprintf(`"response":{"id":"resp_bench","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":%d}}`, chunks, 10+chunks)))
	return eventStream(events)
}
