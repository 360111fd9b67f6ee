package jsonscan

import (
	"strings"
	"testing"
)

// items lists what an iterator yields as "key=value" (or "value" for array
// elements), with "!" appended when it stopped at malformed input.
func items(it Iter) string {
	var out []string
	for k, v, ok := it.Item(); ok; k, v, ok = it.Item() {
		if k != nil {
			out = append(out, string(k)+"="+string(v))
		} else {
			out = append(out, string(v))
		}
	}
	s := strings.Join(out, " ")
	if it.Err() != nil {
		s += "!"
	}
	return s
}

func TestMembersTable(t *testing.T) {
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
		if got := items(Members([]byte(tt.in), SkipSpace([]byte(tt.in), 0))); got != tt.want {
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
		if got := items(Elements([]byte(tt.in), SkipSpace([]byte(tt.in), 0))); got != tt.want {
			t.Errorf("elements(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestNameTable(t *testing.T) {
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
		if got := string(Name([]byte(tt.lit), &buf)) == tt.s; got != tt.want {
			t.Errorf("Name(%q) == %q is %v, want %v", tt.lit, tt.s, got, tt.want)
		}
	}
	for _, lit := range []string{``, `"`, `type`, `7`, `{"type":1}`} {
		var buf [32]byte
		if got := Name([]byte(lit), &buf); got != nil {
			t.Errorf("Name(%q) = %q, want nil", lit, got)
		}
	}
}

func TestResumeContinuesWhereTheWalkStopped(t *testing.T) {
	b := []byte(`{"a":1,"b":[10, 20 ,30],"c":true}`)
	// Walk the array's first element, then resume after it.
	arr := Elements(b, 11)
	_, first, _ := arr.Item()
	if string(first) != "10" {
		t.Fatalf("first element %q", first)
	}
	it := ResumeElements(b, 14, 1)
	var got []string
	for _, v, ok := it.Item(); ok; _, v, ok = it.Item() {
		got = append(got, string(v))
	}
	if it.Err() != nil || strings.Join(got, " ") != "20 30" || it.End() != 23 {
		t.Fatalf("resumed elements %q, end %d, err %v", got, it.End(), it.Err())
	}
	if bad := ResumeElements(b, 12, 1); func() bool { bad.Next(); return bad.Err() == nil }() {
		t.Fatal("resuming at a value, not after one, was accepted")
	}
}
