// Package envelope carries a provider's own signed reasoning (Gemini's
// thought signatures, OpenAI's encrypted reasoning items) in the signature
// of an Anthropic thinking block, so that the client's history brings it
// back to the transport that got it, byte for byte: no server state, restarts and replicas change nothing,
// and llm_thinking's registry knows the block's producer like any other.
//
// An envelope is the module's: it starts with block.ReasoningPrefix and the
// provider's name, and holds a MAC, keyed with a secret of the gateway's,
// over the provider, the upstream that issued the payload, where the
// payload goes back, the block's text and the payload itself. So no client
// and no other gateway can have the transport pass on a payload of their
// own making, nor one of another upstream's, nor one moved to another
// block. Envelopes are deterministic: the same answer, streamed or not,
// gives the same signature, and so the same block key.
package envelope

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// Place says which part of the provider's answer the payload rode on,
// relative to the block that carries it.
type Place byte

const (
	// OnBlock: the part the block itself came from (a thought).
	OnBlock Place = 't'
	// OnFollowing: the part the next block came from (a function call, a
	// text), or, with none, an empty part of its own.
	OnFollowing Place = 'n'
)

// Key is the gateway's secret that envelopes are sealed with.
type Key [32]byte

// Envelope is what a thinking block's signature carries.
type Envelope struct {
	// Provider names the API ("gemini").
	Provider string
	// Upstream names who issued the payload (the upstream's address).
	Upstream string
	// Place says where the payload goes back.
	Place Place
	// TextSum is the SHA-256 of the thinking block's text.
	TextSum [sha256.Size]byte
	// Payload is the provider's token as it gave it; "" for none.
	Payload string
}

// macBytes is how much of the HMAC-SHA256 an envelope keeps: 128 bits.
const macBytes = 16

// macEncoding reads the MAC strictly: 22 characters carry 132 bits, and a
// lenient reader would take the 4 beyond the MAC as anything, so that
// several signatures would open as one (found by FuzzOpen).
var macEncoding = base64.RawURLEncoding.Strict()

// domain keeps these MACs apart from any other use of the key.
const domain = "llm_thinking/envelope/v1\x00"

// Prefix returns what every envelope of provider starts with.
func Prefix(provider string) string { return block.ReasoningPrefix + provider + "." }

// Seal returns the signature that carries e.
func Seal(key *Key, e Envelope) string {
	mac := e.mac(key)
	b := make([]byte, 0, len(Prefix(e.Provider))+2+base64.RawURLEncoding.EncodedLen(macBytes)+len(e.Payload))
	b = append(b, Prefix(e.Provider)...)
	b = append(b, byte(e.Place))
	b = base64.RawURLEncoding.AppendEncode(b, mac[:macBytes])
	b = append(b, '.')
	b = append(b, e.Payload...)
	return string(b)
}

// Open reads the signature sig of a thinking block whose text has the
// SHA-256 textSum: it returns the place and payload of the envelope when sig
// is one of provider's, sealed with key for upstream over that text, and
// false for anything else (another provider's block, a forged or moved
// one, another upstream's).
func Open(key *Key, provider, upstream string, textSum [sha256.Size]byte, sig []byte) (Place, []byte, bool) {
	rest, ok := bytes.CutPrefix(sig, []byte(Prefix(provider)))
	macLen := base64.RawURLEncoding.EncodedLen(macBytes)
	if !ok || len(rest) < 2+macLen || rest[1+macLen] != '.' {
		return 0, nil, false
	}
	place := Place(rest[0])
	switch place {
	case OnBlock, OnFollowing:
	default:
		return 0, nil, false
	}
	var got [macBytes]byte
	if n, err := macEncoding.Decode(got[:], rest[1:1+macLen]); err != nil || n != macBytes {
		return 0, nil, false
	}
	payload := rest[2+macLen:]
	e := Envelope{Provider: provider, Upstream: upstream, Place: place, TextSum: textSum, Payload: string(payload)}
	want := e.mac(key)
	if !hmac.Equal(got[:], want[:macBytes]) {
		return 0, nil, false
	}
	return place, payload, true
}

// Is reports whether sig is an envelope of provider, sealed or not.
func Is(provider string, sig []byte) bool { return bytes.HasPrefix(sig, []byte(Prefix(provider))) }

// mac is the HMAC of everything the envelope binds.
func (e Envelope) mac(key *Key) [sha256.Size]byte {
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte(domain))
	m.Write([]byte(e.Provider))
	m.Write([]byte{0})
	m.Write([]byte(e.Upstream))
	m.Write([]byte{0, byte(e.Place)})
	m.Write(e.TextSum[:])
	m.Write([]byte(e.Payload))
	var sum [sha256.Size]byte
	m.Sum(sum[:0])
	return sum
}

// Signer seals and opens the envelopes of one provider's upstream: every
// transport that carries signed reasoning through the client seals with
// one, so no payload of one upstream goes back to another.
type Signer struct {
	// Key is the gateway's secret.
	Key *Key
	// Provider names the API ("gemini").
	Provider string
	// Upstream names the upstream (its host:port).
	Upstream string
}

// Seal returns the signature of a block whose text has the SHA-256
// textSum, carrying payload back to place.
func (s Signer) Seal(place Place, textSum [sha256.Size]byte, payload []byte) string {
	return Seal(s.Key, Envelope{Provider: s.Provider, Upstream: s.Upstream, Place: place, TextSum: textSum, Payload: string(payload)})
}

// Open returns the place and payload of sig when it is an envelope this
// Signer sealed over a block whose text has the SHA-256 textSum.
func (s Signer) Open(textSum [sha256.Size]byte, sig []byte) (Place, []byte, bool) {
	return Open(s.Key, s.Provider, s.Upstream, textSum, sig)
}

// Mine reports whether sig is an envelope of the Signer's provider, sealed
// or not.
func (s Signer) Mine(sig []byte) bool { return Is(s.Provider, sig) }
