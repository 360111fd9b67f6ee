package thinktags

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
)

func TestDefaultSign(t *testing.T) {
	sum := sha256.Sum256([]byte("plan"))
	sig := DefaultSign("llama")(sum)
	mac, ok := strings.CutPrefix(sig, SignaturePrefix)
	if raw, err := base64.RawURLEncoding.DecodeString(mac); !ok || err != nil || len(raw) != sha256.Size {
		t.Fatalf("signature %q is not the prefix and a base64url MAC", sig)
	}
	if again := DefaultSign("llama")(sum); again != sig {
		t.Fatal("the same text and backend got two signatures")
	}
	if other := DefaultSign("vllm")(sum); other == sig {
		t.Fatal("two backends share a signature")
	}
	if other := DefaultSign("llama")(sha256.Sum256([]byte("plan."))); other == sig {
		t.Fatal("two texts share a signature")
	}
}

func TestDefaultSignIsStable(t *testing.T) {
	// Keys cover the signature and outlive a release in a persisted
	// registry: the format must not change.
	got := DefaultSign("b")(sha256.Sum256([]byte("a")))
	if want := "llmthinking.v1.cYee5mJbDC_-SJFImXU5AqVS9Ag6XJwzjIsw72wvFBo"; got != want {
		t.Fatalf("signature changed: %s, want %s", got, want)
	}
}
