package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

func TestSkipValue(t *testing.T) {
	tests := []struct {
		in   string
		end  int
		fine bool
	}{
		{`"abc" rest`, 5, true},
		{`"a\"b" rest`, 6, true},
		{`"a\\" rest`, 5, true},
		{`"` + strings.Repeat(`x\\`, 30) + `\"y" z`, 95, true},
		{`{"a":[1,{"b":"}"}]} x`, 19, true},
		{`[]`, 2, true},
		{`-12.5e3,`, 7, true},
		{`true}`, 4, true},
		{`"unclosed`, 0, false},
		{`{"a":1`, 0, false},
		{`,`, 0, false},
		{``, 0, false},
		// White space starts no value (FuzzQuick found ` }` read as one).
		{` }`, 0, false},
		{"\t1", 0, false},
		{"\n1", 0, false},
		{"\r1", 0, false},
	}
	for _, tt := range tests {
		end, ok := SkipValue([]byte(tt.in), 0)
		if ok != tt.fine || ok && end != tt.end {
			t.Errorf("SkipValue(%q) = %d, %v; want %d, %v", tt.in, end, ok, tt.end, tt.fine)
		}
	}
}

func TestIter(t *testing.T) {
	b := []byte(` { "type" : "thinking", "n":[1, 2] ,"o":{} } `)
	it := Members(b, 1)
	var got []string
	for key, value, ok := it.Item(); ok; key, value, ok = it.Item() {
		got = append(got, string(key)+"="+string(value))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if want := `"type"="thinking" "n"=[1, 2] "o"={}`; strings.Join(got, " ") != want {
		t.Fatalf("members %q, want %q", strings.Join(got, " "), want)
	}
	if it.End() != len(b)-1 {
		t.Fatalf("End = %d, want %d", it.End(), len(b)-1)
	}

	// Walking into a value and reporting its end.
	it = Members(b, 1)
	it.Next()
	it.Next()
	_, start, _ := it.Next() // "o"
	it.SetEnd(start + 2)
	if _, _, ok := it.Next(); ok || it.Err() != nil {
		t.Fatalf("after SetEnd: ok %v, err %v", ok, it.Err())
	}
}

func TestIterErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a" 1}`, "a colon"},
		{`{"a":1 "b":2}`, "a comma or the end of the container"},
		{`{1:2}`, "a key"},
		{`{"a":}`, "a value"},
		{`{"a":`, "a value"},
		{`[1,2`, "a comma or the end of the container"},
		{`x`, "an object"},
	}
	for _, tt := range tests {
		it := Members([]byte(tt.in), 0)
		if strings.HasPrefix(tt.in, "[") {
			it = Elements([]byte(tt.in), 0)
		}
		for _, _, ok := it.Item(); ok; _, _, ok = it.Item() {
		}
		var se *SyntaxError
		if err := it.Err(); !errors.As(err, &se) || se.Want != tt.want || !errors.Is(err, ErrSyntax) {
			t.Errorf("%q: err = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestName(t *testing.T) {
	var buf [32]byte
	for lit, want := range map[string]string{`"type"`: "type", `"\u0074ype"`: "type", `12`: "", `"`: ""} {
		if got := string(Name([]byte(lit), &buf)); got != want {
			t.Errorf("Name(%s) = %q, want %q", lit, got, want)
		}
	}
}

// FuzzScan checks the scanner against encoding/json on valid input: values
// end where the decoder says, and an object's members come out in order
// with their exact bytes. On any input it must not panic.
func FuzzScan(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":"x\"y","b":[1,{"c":null}]}`, `[1,"2",{}]`, `{"type":"thinking","thinking":"\u00e9\n","signature":"s"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		i := SkipSpace(b, 0)
		end, ok := SkipValue(b, i)
		if !json.Valid(b) {
			it := Members(b, i)
			for _, _, ok := it.Item(); ok; _, _, ok = it.Item() {
			}
			return
		}
		if !ok || SkipSpace(b, end) != len(b) {
			t.Fatalf("SkipValue(%q) = %d, %v; the value ends at %d", b, end, ok, len(bytes.TrimRight(b, " \t\r\n")))
		}
		if b[i] != '{' {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.Token() // {
		it := Members(b, i)
		for dec.More() {
			tok, _ := dec.Token()
			var raw json.RawMessage
			dec.Decode(&raw)
			key, value, ok := it.Item()
			name, _ := jsonstr.Append(nil, key)
			if !ok || string(name) != tok.(string) || !bytes.Equal(bytes.TrimSpace(value), raw) {
				t.Fatalf("member %q=%s, encoding/json %q=%s (%v)", key, value, tok, raw, it.Err())
			}
		}
		if _, _, ok := it.Item(); ok || it.Err() != nil {
			t.Fatalf("iterator went past the end: %v", it.Err())
		}
	})
}
