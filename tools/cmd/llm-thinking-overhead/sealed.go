package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
)

// The translated loads whose transports seal envelopes (gemini,
// responses): the transport seals what goes back to the upstream with a
// Signer of its key and the upstream's host:port, which the bench cannot
// know before the upstream listens. Their answers carry no envelope, so
// the client's bytes do not depend on the Signer, and translateSealed
// checks that they do not.

// signingKey is the transports' signing_key: a fixed one, so that no Caddy
// reads or makes one in its storage.
const signingKey = "bench"

// envelopeKey returns the key a transport seals envelopes with for the
// signing_key secret (see signingKey in package transport).
func envelopeKey(secret string) *envelope.Key {
	k := envelope.Key(sha256.Sum256([]byte("llm_thinking signing_key\x00" + secret)))
	return &k
}

// A sealingTranslation translates streamRequest with the Signer s, and
// returns the body the transport sends the upstream and, for any Signer,
// the chunker that translates the answer.
type sealingTranslation func(s envelope.Signer) (request []byte, answer func(envelope.Signer) chunker, err error)

// translateSealed returns what a transport that seals with the Signers of
// newSigner sends the upstream for streamRequest, the upstream's stream
// native, and what the transport gives the client. The Signer has the
// transport's key but not the upstream's address; an error says that a
// Signer of another key and upstream gives the client other bytes: the
// answer would then carry envelopes, which the bench's answer should not.
func translateSealed(newSigner func(*envelope.Key, string) envelope.Signer, native *reply, translate sealingTranslation) ([]byte, *reply, *reply, error) {
	signer := newSigner(envelopeKey(signingKey), "")
	request, answer, err := translate(signer)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("translate the request: %w", err)
	}
	translated := translatedReply(native, answer(signer))
	other := translatedReply(native, answer(newSigner(envelopeKey("other"), "127.0.0.1:1")))
	if !bytes.Equal(translated.body, other.body) {
		return nil, nil, nil, fmt.Errorf("the translated stream depends on the signing key or the upstream: it carries envelopes, which the text-only stream should not")
	}
	return request, native, translated, nil
}
