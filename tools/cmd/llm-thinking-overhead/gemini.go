package main

import (
	"bytes"
	"crypto/sha256"
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

// geminiSigningKey is the transport's signing_key: a fixed one, so that
// no Caddy reads or makes one in its storage.
const geminiSigningKey = "bench"

// geminiAPI is the Gemini API, through transport gemini, which asks for
// …/v1beta/models/{model}:streamGenerateContent?alt=sse where the client
// asked for …/v1/messages with a stream.
var geminiAPI = &api{
	name:      "Gemini",
	slug:      "gemini-sse",
	transport: fmt.Sprintf("transport gemini {\n\t\t\tmodel * %s\n\t\t\tsigning_key %s\n\t\t}", geminiModel, geminiSigningKey),
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
// The transport seals Gemini's thought signatures with a Signer of its
// key and the upstream's host:port. Neither reaches these bytes: the
// request has no thinking block whose envelope the Signer would open, and
// in the answer only a thought part (its thinking block is sealed as it
// closes) or a part with a thoughtSignature makes gemini's blocks seal an
// envelope (blocks.part, closeOpen and signatureBlock); the stream's parts
// are text alone, without signatures. So the Signer here
// has the transport's key but not the upstream's address, which is not
// known yet, and signerFree checks that another Signer gives the same
// bytes.
func translateGemini() (request []byte, native, translated *reply, err error) {
	signer := gemini.NewSigner(geminiKey(geminiSigningKey), "")
	tr, err := gemini.TranslateRequest(streamRequest, gemini.RequestOptions{Model: geminiModel, Signer: signer})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("translate the request: %w", err)
	}
	native = geminiReply(translatedChunks)
	translate := func(s envelope.Signer) *reply {
		return translatedReply(native, gemini.NewStream(gemini.AnswerOptions{Model: tr.Model, Signer: s, InputTokens: tr.InputTokens}))
	}
	translated = translate(signer)
	if err := signerFree(translated, translate(gemini.NewSigner(geminiKey("other"), "127.0.0.1:1"))); err != nil {
		return nil, nil, nil, err
	}
	return tr.Body, native, translated, nil
}

// geminiKey returns the key transport gemini seals envelopes with for the
// signing_key secret (see signingKey in package transport).
func geminiKey(secret string) *envelope.Key {
	k := envelope.Key(sha256.Sum256([]byte("llm_thinking signing_key\x00" + secret)))
	return &k
}

// signerFree returns an error when two translations of the answer, by
// Signers of different keys and upstreams, differ: the answer would then
// carry envelopes, and the client's bytes would depend on the upstream's
// address, which translateGemini does not give its Signer.
func signerFree(a, b *reply) error {
	if !bytes.Equal(a.body, b.body) {
		return fmt.Errorf("the translated Gemini stream depends on the signing key or the upstream: it carries envelopes, which the text-only stream should not")
	}
	return nil
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
