package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestAppend(t *testing.T) {
	tests := []struct {
		lit  string
		want string
		ok   bool
	}{
		{`""`, "", true},
		{`"plain"`, "plain", true},
		{`"a\"b\\c\/d"`, `a"b\c/d`, true},
		{`"\b\f\n\r\t"`, "\b\f\n\r\t", true},
		{`"\u003cthink\u003e"`, "<think>", true},
		{`"\u00e9t\u00C9"`, "étÉ", true},
		{`"\ud83d\ude00"`, "😀", true},
		{`"\ud83d"`, "\uFFFD", true},
		{`"\ude00\ud83d"`, "\uFFFD\uFFFD", true},
		{`"\ud83dx"`, "\uFFFDx", true},
		{"\"bad \xff byte\"", "bad \uFFFD byte", true},
		{"\"ok \xef\xbf\xbd\"", "ok \uFFFD", true},
		{`"déjà vu"`, "déjà vu", true},
		{`"\x"`, "", false},
		{`"\u12"`, "", false},
		{`"\u12g4"`, "", false},
		{"\"tab\there\"", "", false},
		{`"unterminated`, "", false},
		{`"a"b"`, "", false},
		{`noquotes`, "", false},
		{`"\"`, "", false},
	}
	for _, tt := range tests {
		got, ok := Append([]byte("prefix:"), []byte(tt.lit))
		if ok != tt.ok {
			t.Errorf("Append(%q) ok = %v, want %v", tt.lit, ok, tt.ok)
			continue
		}
		want := "prefix:" + tt.want
		if string(got) != want {
			t.Errorf("Append(%q) = %q, want %q", tt.lit, got, want)
		}
	}
}

func TestAppendDoesNotAllocate(t *testing.T) {
	lit := []byte(`"thinking about \"escapes\"\n and \u00e9 accents, at length"`)
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(100, func() {
		buf, _ = Append(buf[:0], lit)
	})
	if allocs != 0 {
		t.Fatalf("Append allocated %v times per run", allocs)
	}
}

// FuzzAppend checks that Append agrees with encoding/json on every input:
// same verdict on validity and the same decoded bytes.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{`""`, `"a\nb"`, `"\ud83d\ude00"`, `"\ud800"`, "\"\xff\"", `"\u0041"`, `"\\\""`, "\"eight ok\x01 then a control\"", "\"ascii then \xc3\xa9 then more ascii\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		got, ok := Append(nil, lit)
		var want string
		err := json.Unmarshal(lit, &want)
		// encoding/json also accepts surrounding whitespace; a literal does not.
		wantOK := err == nil && len(lit) >= 2 && lit[0] == '"' && lit[len(lit)-1] == '"'
		if ok != wantOK {
			t.Fatalf("Append(%q) ok = %v, encoding/json err = %v", lit, ok, err)
		}
		if ok && string(got) != want {
			t.Fatalf("Append(%q) = %q, encoding/json = %q", lit, got, want)
		}
		// Value agrees with Append on every literal a scanner delimits
		// (no unescaped quote inside) that holds no raw control character.
		if len(lit) < 2 {
			if _, _, vok := Value(nil, lit); vok {
				t.Fatalf("Value(%q) accepted what is no literal", lit)
			}
			return
		}
		inner := lit[1 : len(lit)-1]
		if bytes.ContainsFunc(inner, func(r rune) bool { return r < 0x20 }) || unescapedQuote(inner) {
			return
		}
		v, _, vok := Value(nil, lit)
		if vok != ok || string(v) != string(got) {
			t.Fatalf("Value(%q) = %q, %v; Append = %q, %v", lit, v, vok, got, ok)
		}
	})
}

// unescapedQuote reports whether s holds a quote no backslash escapes.
func unescapedQuote(s []byte) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return true
		}
	}
	return false
}

func TestValueCopiesOnlyWhatDecodingChanges(t *testing.T) {
	tests := []struct {
		lit, want string
		copied    bool
		ok        bool
	}{
		{`""`, "", false, true},
		{`"plain ascii, long enough for a word or two"`, "plain ascii, long enough for a word or two", false, true},
		{`"café 😀 naïve"`, "café 😀 naïve", false, true},
		{`"a\nb"`, "a\nb", true, true},
		{"\"bad \xff utf-8 spanning more than eight bytes\"", "bad \uFFFD utf-8 spanning more than eight bytes", true, true},
		{`"\q"`, "", true, false},
		{`x`, "", false, false},
	}
	for _, tt := range tests {
		lit := []byte(tt.lit)
		v, buf, ok := Value([]byte("p:"), lit)
		if ok != tt.ok || ok && string(v) != tt.want {
			t.Errorf("Value(%q) = %q, %v; want %q, %v", tt.lit, v, ok, tt.want, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		inLit := len(v) > 0 && &v[0] == &lit[1]
		if inLit == tt.copied && len(v) > 0 {
			t.Errorf("Value(%q): copied %v, want %v", tt.lit, !inLit, tt.copied)
		}
		if string(buf[:2]) != "p:" {
			t.Errorf("Value(%q) lost what dst held: %q", tt.lit, buf)
		}
	}
}
