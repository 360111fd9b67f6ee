package jsonstr

import (
	"encoding/json"
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
