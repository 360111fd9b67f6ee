package jsonscan

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
)

var validCases = []string{
	`{}`, `[]`, ` {"a" : [1, -2.5e+3, true, false, null, "x\u00e9\n"]} `, `"s"`, `0`, `-0.0E-0`,
	`{"a":{}}`, `[[],[{}]]`, "\"\xff raw bytes are fine\"", `"` + strings.Repeat("long ascii ", 40) + `"`,
	`{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:1}`, `[1 2]`, `01`, `1.`, `.5`, `1e`, `-`, `+1`,
	`tru`, `nulls`, `"\x"`, `"\u12"`, "\"ctl\x01\"", `"unterminated`, `[}`, `{]`, `{"a":1}}`, ``, ` `,
	`"` + strings.Repeat("a", 13) + `\"` + strings.Repeat("b", 9) + `"`,
	strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
	strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range validCases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%.60q) = %v, json.Valid = %v", c, got, want)
		}
	}
	paths, err := filepath.Glob("../../testdata/claude-code-2.1.328/capture-*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no captured requests: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !Valid(b) {
			t.Errorf("%s is not Valid", p)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", b, got, want)
		}
	})
}

func BenchmarkValid256KiB(b *testing.B) {
	raw, err := os.ReadFile("../../testdata/claude-code-2.1.328/capture-3-continue-replays-thinking.json")
	if err != nil {
		b.Fatal(err)
	}
	body, err := claudecode.GrowHistory(raw, 256<<10)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if !Valid(body) {
			b.Fatal("fixture not valid")
		}
	}
}

func TestValidBetweenChecksAMiddle(t *testing.T) {
	tests := []struct {
		part string
		at   int
		want bool
	}{
		{`{"a":[1,2,3]`, 9, true},
		{`{"a":[1,2 , {"x":[]} ]`, 9, true},
		{`{"a":[1,2,3] `, 9, false}, // the end must follow the value at once
		{`{"a":[1,2,3`, 9, false},
		{`{"a":[1,2,3]}`, 9, false},
		{`{"a":[1,2,,3]`, 9, false},
	}
	for _, tt := range tests {
		if got := ValidBetween([]byte(tt.part), tt.at, []byte("{["), 1); got != tt.want {
			t.Errorf("ValidBetween(%s, %d) = %v, want %v", tt.part, tt.at, got, tt.want)
		}
	}
}

func TestValidAfterChecksTheRest(t *testing.T) {
	tests := []struct {
		doc  string
		at   int // just after a value
		open string
		want bool
	}{
		{`{"a":[1,2,3],"b":true}`, 9, "{[", true},
		{`{"a":[1,2 ,3 ] , "b":{"c":null}}`, 9, "{[", true},
		{`{"a":[1,2]}`, 9, "{[", true},
		{`{"a":[1,2,]}`, 9, "{[", false},
		{`{"a":[1,2]`, 9, "{[", false},
		{`{"a":[1,2]}}`, 9, "{[", false},
		{`{"a":[1,2],"b"}`, 9, "{[", false},
		{`{"a":[1,2,"\q"]}`, 9, "{[", false},
		{`[1,2] `, 2, "[", true},
	}
	for _, tt := range tests {
		if got := ValidAfter([]byte(tt.doc), tt.at, []byte(tt.open)); got != tt.want {
			t.Errorf("ValidAfter(%s, %d, %s) = %v, want %v", tt.doc, tt.at, tt.open, got, tt.want)
		}
	}
}

// TestPlain holds Plain to a byte-by-byte reading, for every byte value at
// every place of contents up to five words long, so the two words a step,
// the word after them and the overlapping last word all see it.
func TestPlain(t *testing.T) {
	plain := func(s []byte) bool {
		for _, c := range s {
			if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	for n := range 41 {
		s := bytes.Repeat([]byte{'a'}, n)
		if !Plain(s) {
			t.Fatalf("Plain(%q) = false", s)
		}
		for i := range n {
			for c := range 256 {
				s[i] = byte(c)
				if got, want := Plain(s), plain(s); got != want {
					t.Fatalf("Plain(%q) = %v, want %v", s, got, want)
				}
			}
			s[i] = 'a'
		}
	}
}
