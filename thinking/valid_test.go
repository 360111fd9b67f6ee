package thinking

import (
	"encoding/json"
	"strings"
	"testing"
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
	for _, f := range fixtureBodies(t) {
		if !Valid(f) {
			t.Errorf("a captured Claude Code request is not Valid")
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
	body := fixtureOfSize(b, 256<<10)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if !Valid(body) {
			b.Fatal("fixture not valid")
		}
	}
}
