package main

import (
	"fmt"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/gemini"
)

// The Gemini load (see translation.go): the upstream answers a Gemini
// stream (alt=sse), which transport gemini translates.

// geminiModel is the model transport gemini maps every model to, so that
// the upstream's path is known.
const geminiModel = "gemini-3-flash"

// geminiAPI is the Gemini API, through transport gemini, which asks for
// …/v1beta/models/{model}:streamGenerateContent?alt=sse where the client
// asked for …/v1/messages with a stream.
var geminiAPI = &api{
	name:      "Gemini",
	slug:      "gemini-sse",
	transport: fmt.Sprintf("transport gemini {\n\t\t\tmodel * %s\n\t\t\tsigning_key %s\n\t\t}", geminiModel, signingKey),
	upstreamPath: func(path string) string {
		return strings.TrimSuffix(path, "/v1/messages") + "/v1beta/models/" + geminiModel + ":streamGenerateContent"
	},
	query:     "alt=sse",
	translate: translateGemini,
}

// translateGemini returns what transport gemini sends the upstream for
// streamRequest, the upstream's Gemini stream, and what the transport
// gives the client.
//
// Neither the transport's key nor the upstream's address reaches these
// bytes: the request has no thinking block whose envelope the Signer would
// open, and in the answer only a thought part (its thinking block is
// sealed as it closes) or a part with a thoughtSignature makes gemini's
// blocks seal an envelope (blocks.part, closeOpen and signatureBlock); the
// stream's parts are text alone, without signatures.
func translateGemini() (request []byte, native, translated *reply, err error) {
	return translateSealed(gemini.NewSigner, geminiReply(translatedChunks), func(s envelope.Signer) ([]byte, func(envelope.Signer) chunker, error) {
		tr, err := gemini.TranslateRequest(streamRequest, gemini.RequestOptions{Model: geminiModel, Signer: s})
		return tr.Body, func(s envelope.Signer) chunker {
			return gemini.NewStream(gemini.AnswerOptions{Model: tr.Model, Signer: s, InputTokens: tr.InputTokens})
		}, err
	})
}

// geminiReply returns a Gemini stream of chunks text chunks and a last
// one with the finish reason and the usage. Gemini sends no [DONE]: the
// stream ends after the finish reason.
func geminiReply(chunks int) *reply {
	text := []byte(`data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Here is some more of the answer, "}]},"index":0}],"responseId":"bench"}` + "\r\n\r\n")
	var events [][]byte
	for range chunks {
		events = append(events, text)
	}
	events = append(events, fmt.Appendf(nil, `data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":%d,"totalTokenCount":%d},"responseId":"bench"}`+"\r\n\r\n", chunks, 10+chunks))
	return eventStream(events)
}
