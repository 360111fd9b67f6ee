package envelope

import (
	"crypto/sha256"
	"strings"
	"testing"
)

func TestSealOpens(t *testing.T) {
	key := &Key{1, 2, 3}
	text := sha256.Sum256([]byte("a thought"))
	e := Envelope{Provider: "gemini", Upstream: "generativelanguage.googleapis.com:443", Place: OnFollowing, TextSum: text, Payload: "EpEgCo4g+/=="}
	sig := Seal(key, e)
	if !strings.HasPrefix(sig, "llmthinking.v1.reasoning.gemini.n") || !strings.HasSuffix(sig, ".EpEgCo4g+/==") {
		t.Fatalf("sig %q", sig)
	}
	if Seal(key, e) != sig {
		t.Fatal("sealing is not deterministic")
	}
	place, payload, ok := Open(key, "gemini", e.Upstream, text, []byte(sig))
	if !ok || place != OnFollowing || string(payload) != e.Payload {
		t.Fatalf("Open = %c %q %v", place, payload, ok)
	}
	// Nothing else opens: another key, upstream, text, provider, place,
	// payload, or a damaged signature.
	other := sha256.Sum256([]byte("another thought"))
	for name, c := range map[string]struct {
		key      *Key
		provider string
		upstream string
		text     [32]byte
		sig      string
	}{
		"key":      {&Key{9}, "gemini", e.Upstream, text, sig},
		"upstream": {key, "gemini", "aiplatform.googleapis.com:443", text, sig},
		"text":     {key, "gemini", e.Upstream, other, sig},
		"provider": {key, "openai", e.Upstream, text, sig},
		"place":    {key, "gemini", e.Upstream, text, strings.Replace(sig, ".gemini.n", ".gemini.t", 1)},
		"payload":  {key, "gemini", e.Upstream, text, sig + "x"},
		"short":    {key, "gemini", e.Upstream, text, sig[:40]},
		"foreign":  {key, "gemini", e.Upstream, text, "EqQBCkgIARABGAIiQL"},
	} {
		if _, _, ok := Open(c.key, c.provider, c.upstream, c.text, []byte(c.sig)); ok {
			t.Errorf("%s: opened", name)
		}
	}
	if !Is("gemini", []byte(sig)) || Is("gemini", []byte("llmthinking.v1.reasoning.abc")) {
		t.Fatal("Is")
	}
}

// FuzzOpen: Open never panics and opens only what Seal sealed.
func FuzzOpen(f *testing.F) {
	key := &Key{7}
	text := sha256.Sum256(nil)
	f.Add([]byte(Seal(key, Envelope{Provider: "gemini", Upstream: "u", Place: OnBlock, TextSum: text, Payload: "x"})))
	f.Add([]byte("llmthinking.v1.reasoning.gemini.n"))
	f.Fuzz(func(t *testing.T, sig []byte) {
		place, payload, ok := Open(key, "gemini", "u", text, sig)
		if ok && Seal(key, Envelope{Provider: "gemini", Upstream: "u", Place: place, TextSum: text, Payload: string(payload)}) != string(sig) {
			t.Fatalf("opened %q, which Seal does not give", sig)
		}
	})
}
