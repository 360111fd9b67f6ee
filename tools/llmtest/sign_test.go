package llmtest

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestThinkingSignature(t *testing.T) {
	a, b := newSigner(), newSigner()
	for _, text := range []string{"", "a thinks #1: \"plan\" <b>é😀\nstep 2"} {
		prefix := []byte("the conversation before")
		sig := a.thinkingSignature(text, prefix)
		if raw, err := base64.StdEncoding.DecodeString(sig); err != nil || len(raw) != 80 {
			t.Errorf("signature %q is not base64 of 80 bytes", sig)
		}
		if sig == a.thinkingSignature(text, prefix) {
			t.Error("two signatures of one text are equal")
		}
		if !a.validThinkingSignature(text, sig) || !a.boundTo(sig, prefix) {
			t.Errorf("own signature of %q rejected", text)
		}
		if a.boundTo(sig, []byte("another conversation")) || b.boundTo(sig, prefix) {
			t.Error("a signature bound to another prefix, or of another key, taken for bound")
		}
		for _, tt := range []struct {
			name string
			s    signer
			text string
			sig  string
		}{
			{"another key", b, text, sig},
			{"altered text", a, text + " ", sig},
			{"empty signature", a, text, ""},
			{"truncated", a, text, sig[:len(sig)-4]},
			{"not base64", a, text, "!" + sig[1:]},
			{"GLM format", a, text, a.glmSignature(text)},
			{"redacted data", a, text, a.redactedData()},
		} {
			if tt.s.validThinkingSignature(tt.text, tt.sig) {
				t.Errorf("%s: accepted", tt.name)
			}
		}
	}
}

func TestRedactedData(t *testing.T) {
	a, b := newSigner(), newSigner()
	data := a.redactedData()
	if !a.validRedactedData(data) {
		t.Error("own data rejected")
	}
	raw, _ := base64.StdEncoding.DecodeString(data)
	if !strings.HasPrefix(string(raw), "redacted") || len(raw) != 8+16+32 {
		t.Errorf("data %x", raw)
	}
	for name, d := range map[string]string{
		"another key": b.redactedData(),
		"signature":   a.thinkingSignature("", nil),
		"GLM":         a.glmRedactedData(),
		"empty":       "",
	} {
		if a.validRedactedData(d) {
			t.Errorf("%s: accepted", name)
		}
	}
	if g := a.glmRedactedData(); !strings.HasPrefix(g, "glm.redacted.") || len(g) != len("glm.redacted.")+96 {
		t.Errorf("GLM data %q", g)
	}
}
