package claudecode

import "testing"

func TestAppendString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{`<b>&'`, `"<b>&'"`},
		{"\"\\/", `"\"\\/"`},
		{"\b\f\n\r\t\x00\x1f\x7f", `"\b\f\n\r\t\u0000\u001f` + "\x7f" + `"`},
		{"é😀\u2028\u2029", "\"é😀\u2028\u2029\""},
		{"bad \xff utf-8", `"bad \ufffd utf-8"`},
	}
	for _, tt := range tests {
		if got := string(AppendString([]byte("x"), tt.in)); got != "x"+tt.want {
			t.Errorf("AppendString(%q) = %s, want x%s", tt.in, got, tt.want)
		}
	}
}

func TestStringify(t *testing.T) {
	tests := []struct{ in, want string }{
		{` { "b" : [ 1 , -2.5e3 , {} , [] ] , "a" : "\u003c\u00e9\ud83d\ude00" , "c":null,"d":false } `, `{"b":[1,-2.5e3,{},[]],"a":"<é😀","c":null,"d":false}`},
		{`"x"`, `"x"`},
		{`3`, `3`},
		{`[[["deep"]],{"k":{"k":{}}}]`, `[[["deep"]],{"k":{"k":{}}}]`},
	}
	for _, tt := range tests {
		got, err := Stringify([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("Stringify(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1} {}`, `[1,]`, `nul`} {
		if got, err := Stringify([]byte(bad)); err == nil {
			t.Errorf("Stringify(%q) = %s, want an error", bad, got)
		}
	}
}
