package jsonstr

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":                   `""`,
		"plain <b> & é😀":     `"plain <b> & é😀"`,
		"q\"b\\s/":           `"q\"b\\s/"`,
		"\n\r\t\b\f\x00\x1f": `"\n\r\t\u0008\u000c\u0000\u001f"`,
		"\u2028\x7f":         "\"\u2028\x7f\"",
		"a\xffb\xe4\xbd":     `"a\ufffdb\ufffd\ufffd"`,
	} {
		if got := string(Quote([]byte("p:"), []byte(in))); got != "p:"+want {
			t.Errorf("Quote(%q) = %s, want %s", in, got[2:], want)
		}
	}
}

// FuzzQuote checks that a JSON parser reads back what Quote
// wrote, every invalid byte as U+FFFD.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "a\"\\\n\x01", "é😀\xff\xe4\xbd", "\u2028<think>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lit := Quote(nil, []byte(s))
		var back string
		if err := json.Unmarshal(lit, &back); err != nil {
			t.Fatalf("%q gave %s: %v", s, lit, err)
		}
		if want := string([]rune(s)); back != want {
			t.Fatalf("%q gave %s, which reads %q", s, lit, back)
		}
		if !utf8.Valid(lit) {
			t.Fatalf("%q gave invalid UTF-8 %q", s, lit)
		}
	})
}
