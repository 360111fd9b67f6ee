package block

import (
	"strings"
	"testing"
)

// thinkingKey is the key of a thinking block seen whole.
func thinkingKey(text, signature string) Key {
	var h Hasher
	h.Write([]byte(text))
	return h.Thinking([]byte(signature))
}

func redactedKey(data string) Key {
	var h Hasher
	return h.Redacted([]byte(data))
}

func TestTextInPiecesGivesTheKeyOfTheWhole(t *testing.T) {
	text := "step one\nstep \"two\" <b>é😀"
	sig := "c2lnbmF0dXJl"
	want := thinkingKey(text, sig)

	var h Hasher
	for _, piece := range []string{text[:4], text[4:11], text[11:]} {
		h.Write([]byte(piece))
	}
	if got := h.Thinking([]byte(sig)); got != want {
		t.Fatalf("key of the text in pieces %v, want %v", got, want)
	}

	h.Reset()
	h.Write([]byte("other"))
	if got := h.Thinking([]byte(sig)); got == want {
		t.Fatal("Reset did not forget earlier text")
	}
	h.Reset()
	if got := h.Redacted([]byte(sig)); got != redactedKey(sig) {
		t.Fatal("a redacted key depends on what the hasher saw before")
	}
}

// TestTextInPiecesOfEverySize: pieces that fill the pending text, pass
// its end or are larger than it give the key of the whole text, whatever
// their sizes.
func TestTextInPiecesOfEverySize(t *testing.T) {
	text := strings.Repeat("a thought, é, and another; ", 100)
	sig := "c2ln"
	want := thinkingKey(text, sig)
	for _, size := range []int{1, 7, 40, 511, 512, 513, 700, len(text)} {
		var h Hasher
		for i := 0; i < len(text); i += size {
			h.Write([]byte(text[i:min(i+size, len(text))]))
		}
		if got := h.Thinking([]byte(sig)); got != want {
			t.Fatalf("pieces of %d bytes: key %v, want %v", size, got, want)
		}
	}
}

func TestKeysTellBlocksApart(t *testing.T) {
	keys := map[string]Key{
		"omitted text, signature A": thinkingKey("", "sigA"),
		"omitted text, signature B": thinkingKey("", "sigB"),
		"text moved into signature": thinkingKey("s", "igA"),
		"unsigned":                  thinkingKey("sigA", ""),
		"redacted with equal bytes": redactedKey("sigA"),
		"empty thinking":            thinkingKey("", ""),
		"empty redacted":            redactedKey(""),
	}
	seen := make(map[Key]string)
	for name, k := range keys {
		if other, dup := seen[k]; dup {
			t.Errorf("%q and %q share key %v", name, other, k)
		}
		seen[k] = name
	}
}

func TestKeyIsStable(t *testing.T) {
	// Keys must not change between releases: anything that stores them
	// (logs, a persisted registry) depends on it.
	if got, want := thinkingKey("a", "b").String(), "32de6aaff98d70ef6c1581f9926ee28c"; got != want {
		t.Errorf("thinking key changed: %s, want %s", got, want)
	}
	if got, want := redactedKey("d").String(), "5b76f4abf5f2f2af648aae515e394241"; got != want {
		t.Errorf("redacted key changed: %s, want %s", got, want)
	}
}

func TestHasherDoesNotAllocatePerBlock(t *testing.T) {
	var h Hasher
	text, sig := []byte("some thinking"), make([]byte, 600)
	h.Write(nil)
	allocs := testing.AllocsPerRun(100, func() {
		h.Reset()
		h.Write(text)
		h.Thinking(sig)
		h.Redacted(sig)
	})
	if allocs != 0 {
		t.Fatalf("hashing a block allocated %v times", allocs)
	}
}
