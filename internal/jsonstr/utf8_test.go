package jsonstr

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendUTF8(t *testing.T) {
	for lit, want := range map[string]string{
		`"plain \u0000 \"q\""`:        `"plain \u0000 \"q\""`,
		"\"bad \xff\xfe bytes\"":      "\"bad \uFFFD\uFFFD bytes\"",
		"\"cut \xe2\x82 rune \\n\"":   "\"cut \uFFFD\uFFFD rune \\n\"", // each byte, as encoding/json
		"\"ok \xe2\x82\xac \\u00e9\"": "\"ok \xe2\x82\xac \\u00e9\"",
	} {
		got := AppendUTF8([]byte("x"), []byte(lit))
		if string(got) != "x"+want || !utf8.Valid(got) || !json.Valid(got[1:]) {
			t.Errorf("%q: got %q, want x%q", lit, got, want)
		}
	}
}

func TestValidUTF8(t *testing.T) {
	for text, want := range map[string]string{
		`{"a":["b",1]}`:                     `{"a":["b",1]}`,
		"{\"\":\"\xb6\"}":                   "{\"\":\"\uFFFD\"}",
		"{\"k\xff\":\"cut \xe2\x82 rune\"}": "{\"k\uFFFD\":\"cut \uFFFD\uFFFD rune\"}", // each byte, as encoding/json
		"{\"ok\":\"\xe2\x82\xac\"}":         "{\"ok\":\"\xe2\x82\xac\"}",
	} {
		got := ValidUTF8([]byte(text))
		if string(got) != want || !json.Valid(got) {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
		// What a strict decoder reads is what encoding/json reads of the
		// text as it came.
		var lenient, strict any
		if json.Unmarshal([]byte(text), &lenient) != nil || json.Unmarshal(got, &strict) != nil || !reflect.DeepEqual(lenient, strict) {
			t.Errorf("%q reads as %v, encoding/json as %v", got, strict, lenient)
		}
	}
	valid := []byte(`{"a":"é"}`)
	if got := ValidUTF8(valid); &got[0] != &valid[0] {
		t.Error("a valid text was copied")
	}
}

// FuzzValidUTF8: any valid JSON text comes out UTF-8, valid, and read by a
// strict decoder as encoding/json reads the text as it came.
func FuzzValidUTF8(f *testing.F) {
	f.Add([]byte("{\"\":\"\xb6\"}"))
	f.Add([]byte("[\"\xe2\x82\", \"\xf0\x9f\x98\x80\", 1, {\"k\xff\": null}]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var lenient, strict any
		// A valid text that encoding/json cannot read into an any (a
		// number beyond float64, say 2e400) has nothing to compare with.
		if !json.Valid(b) || json.Unmarshal(b, &lenient) != nil {
			return
		}
		if validUTF8(b) != utf8.Valid(b) {
			t.Fatalf("%q: validUTF8 says %v, utf8.Valid %v", b, validUTF8(b), utf8.Valid(b))
		}
		got := ValidUTF8(b)
		if !utf8.Valid(got) || json.Unmarshal(got, &strict) != nil || !reflect.DeepEqual(lenient, strict) {
			t.Fatalf("%q: %q reads as %v, encoding/json reads %v", b, got, strict, lenient)
		}
	})
}

// TestValidUTF8AgreesWithTheStandardLibrary: the ASCII steps hand over to
// utf8.Valid at the first byte that is not ASCII, wherever it falls.
func TestValidUTF8AgreesWithTheStandardLibrary(t *testing.T) {
	for n := range 40 {
		for at := range n {
			for _, bad := range []string{"\xff", "\xe2\x82", "é", "\xf0\x9f\x98\x80"} {
				b := []byte(strings.Repeat("a", n))
				b = append(b[:at:at], append([]byte(bad), b[at:]...)...)
				if validUTF8(b) != utf8.Valid(b) {
					t.Fatalf("%q: validUTF8 says %v", b, validUTF8(b))
				}
			}
		}
	}
}

func BenchmarkAppendUTF8ASCII(b *testing.B) {
	lit := []byte(`"Here is some more of the answer, with a few words in it to make it as long as a chunk of text is."`)
	dst := make([]byte, 0, 256)
	b.SetBytes(int64(len(lit)))
	for b.Loop() {
		dst = AppendUTF8(dst[:0], lit)
	}
}
