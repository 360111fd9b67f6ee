package registry

import "testing"

func TestThinkingHasherMatchesThinkingKey(t *testing.T) {
	text := []byte("step one\nstep \"two\" <b>é😀")
	sig := []byte("c2lnbmF0dXJl")
	want := ThinkingKey(text, sig)

	h := NewThinkingHasher()
	for _, piece := range [][]byte{text[:4], text[4:11], text[11:]} {
		h.Write(piece)
	}
	if got := h.Key(sig); got != want {
		t.Fatalf("incremental key %v, want %v", got, want)
	}

	h.Reset()
	h.Write([]byte("other"))
	if got := h.Key(sig); got == want {
		t.Fatal("Reset did not forget earlier text")
	}
}

func TestKeysTellBlocksApart(t *testing.T) {
	keys := map[string]Key{
		"omitted text, signature A": ThinkingKey(nil, []byte("sigA")),
		"omitted text, signature B": ThinkingKey(nil, []byte("sigB")),
		"text moved into signature": ThinkingKey([]byte("s"), []byte("igA")),
		"unsigned":                  ThinkingKey([]byte("sigA"), nil),
		"redacted with equal bytes": RedactedKey([]byte("sigA")),
		"empty thinking":            ThinkingKey(nil, nil),
		"empty redacted":            RedactedKey(nil),
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
	if got, want := ThinkingKey([]byte("a"), []byte("b")).String(), "3763930b4903d677deb2124cedafc7c7"; got != want {
		t.Errorf("ThinkingKey changed: %s, want %s", got, want)
	}
	if got, want := RedactedKey([]byte("d")).String(), "066e795a31a5c16a10e82820826f3ebe"; got != want {
		t.Errorf("RedactedKey changed: %s, want %s", got, want)
	}
}

func TestThinkingHasherDoesNotAllocatePerBlock(t *testing.T) {
	h := NewThinkingHasher()
	text, sig := []byte("some thinking"), make([]byte, 600)
	allocs := testing.AllocsPerRun(100, func() {
		h.Reset()
		h.Write(text)
		h.Key(sig)
	})
	if allocs != 0 {
		t.Fatalf("hashing a block allocated %v times", allocs)
	}
}
