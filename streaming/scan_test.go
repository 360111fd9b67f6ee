package streaming

import (
	"strings"
	"testing"
)

// items lists what an iterator yields as "key=value" (or "value" for array
// elements), with "!" appended when it stopped at malformed input.
func items(it iter) string {
	var out []string
	for k, v, ok := it.next(); ok; k, v, ok = it.next() {
		if k != nil {
			out = append(out, string(k)+"="+string(v))
		} else {
			out = append(out, string(v))
		}
	}
	s := strings.Join(out, " ")
	if it.bad {
		s += "!"
	}
	return s
}

func TestMembers(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{}`, ``},
		{` { } `, ``},
		{`{"a":1}`, `"a"=1`},
		{`{"a":"x\"}y","b":{"c":[1,{"d":"]"}]},"e":[],"f":null,"g":-1.5e3}`, `"a"="x\"}y" "b"={"c":[1,{"d":"]"}]} "e"=[] "f"=null "g"=-1.5e3`},
		{"{ \"a\" :\t\"b\\\\\" ,\r\n\"c\":true }", `"a"="b\\" "c"=true`},
		{`{"a":1,}`, `"a"=1!`},
		{`{,"a":1}`, `!`},
		{`{"a" 1}`, `!`},
		{`{"a":}`, `!`},
		{`{"a":1 "b":2}`, `"a"=1!`},
		{`{"a":"unterminated}`, `!`},
		{`{"a":{"b":1}`, `"a"={"b":1}!`},
		{`{"a":1`, `"a"=1!`},
		{`{a:1}`, `!`},
		{`[1]`, `!`},
		{`"str"`, `!`},
		{``, `!`},
		{`[DONE]`, `!`},
	}
	for _, tt := range tests {
		if got := items(members([]byte(tt.in))); got != tt.want {
			t.Errorf("members(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestElements(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[]`, ``},
		{`[1, "two", {"three":3}, [4], null]`, `1 "two" {"three":3} [4] null`},
		{`[1,]`, `1!`},
		{`[1 2]`, `1!`},
		{`{}`, `!`},
		{`null`, `!`},
	}
	for _, tt := range tests {
		if got := items(elements([]byte(tt.in))); got != tt.want {
			t.Errorf("elements(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestName(t *testing.T) {
	tests := []struct {
		lit, s string
		want   bool
	}{
		{`"type"`, "type", true},
		{`"typ"`, "type", false},
		{`"types"`, "type", false},
		{`type`, "type", false},
		{`"type`, "type", false},
		{`"t\u0079pe"`, "type", true},
		{`"t\u0079pes"`, "type", false},
		{`"\u0074\u0079\u0070\u0065"`, "type", true},
		{`"t\x"`, "type", false},
		{`"content_block_\u0064elta_with_a_long_suffix_past_32_bytes"`, "content_block_delta_with_a_long_suffix_past_32_bytes", true},
		{`""`, "", true},
	}
	for _, tt := range tests {
		var buf [32]byte
		if got := string(name([]byte(tt.lit), &buf)) == tt.s; got != tt.want {
			t.Errorf("name(%q) == %q is %v, want %v", tt.lit, tt.s, got, tt.want)
		}
	}
	for _, lit := range []string{``, `"`, `type`, `7`, `{"type":1}`} {
		var buf [32]byte
		if got := name([]byte(lit), &buf); got != nil {
			t.Errorf("name(%q) = %q, want nil", lit, got)
		}
	}
}

func TestAppendString(t *testing.T) {
	tests := []struct {
		v    []byte
		want string
		ok   bool
	}{
		{nil, "", true},
		{[]byte(`null`), "", true},
		{[]byte(`""`), "", true},
		{[]byte(`"a\nb"`), "a\nb", true},
		{[]byte(`nul`), "", false},
		{[]byte(`0`), "", false},
		{[]byte(`{}`), "", false},
		{[]byte(`"\q"`), "", false},
	}
	for _, tt := range tests {
		got, ok := appendString([]byte("p:"), tt.v)
		if ok != tt.ok || string(got) != "p:"+tt.want {
			t.Errorf("appendString(%q) = %q, %v, want %q, %v", tt.v, got, ok, "p:"+tt.want, tt.ok)
		}
	}
}

func TestParseIndex(t *testing.T) {
	tests := []struct {
		v    string
		want int
		ok   bool
	}{
		{"0", 0, true},
		{"7", 7, true},
		{"1024", 1024, true},
		{"1025", 0, false},
		{"9999", 0, false},
		{"10000", 0, false},
		{"-1", 0, false},
		{"1.0", 0, false},
		{"1e2", 0, false},
		{`"1"`, 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseIndex([]byte(tt.v))
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseIndex(%q) = %d, %v, want %d, %v", tt.v, got, ok, tt.want, tt.ok)
		}
	}
}
