package jsonstr

import (
	"encoding/json"
	"reflect"
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
		got := ValidUTF8(b)
		if !utf8.Valid(got) || json.Unmarshal(got, &strict) != nil || !reflect.DeepEqual(lenient, strict) {
			t.Fatalf("%q: %q reads as %v, encoding/json reads %v", b, got, strict, lenient)
		}
	})
}
