package block

import (
	"strings"
	"testing"
)

func TestReadFields(t *testing.T) {
	tests := []struct {
		obj                       string
		kind                      Kind
		typ                       string
		thinking, signature, data string
		members                   int
	}{
		{`{"type":"thinking","thinking":"a","signature":"s"}`, Thinking, "thinking", `"a"`, `"s"`, "", 3},
		{` {"data":"d","type":"redacted_thinking"}`, Redacted, "redacted_thinking", "", "", `"d"`, 2},
		{`{"type":"text","text":"x"}`, 0, "text", "", "", "", 2},
		{`{"t\u0079pe":"thinking","thinking":1,"thinking":"last"}`, Thinking, "thinking", `"last"`, "", "", 3},
		{`{"type":7}`, 0, "", "", "", "", 1},
		{`{}`, 0, "", "", "", "", 0},
	}
	for _, tt := range tests {
		b := []byte(tt.obj)
		var buf [32]byte
		f, err := ReadFields(b, strings.IndexByte(tt.obj, '{'), &buf)
		if err != nil {
			t.Fatalf("%s: %v", tt.obj, err)
		}
		if f.Kind != tt.kind || string(f.Type) != tt.typ || string(f.Thinking.Of(b)) != tt.thinking ||
			string(f.Signature.Of(b)) != tt.signature || string(f.Data.Of(b)) != tt.data || f.Members != tt.members || f.End != len(b) {
			t.Errorf("%s: %+v", tt.obj, f)
		}
		if tt.signature != "" && string(f.SignatureMember.Of(b)) != `"signature":`+tt.signature {
			t.Errorf("%s: signature member %q", tt.obj, f.SignatureMember.Of(b))
		}
	}
	for _, bad := range []string{`{"type":"thinking"`, `{"type" "thinking"}`, `[1]`} {
		var buf [32]byte
		if _, err := ReadFields([]byte(bad), 0, &buf); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestKeyOfAnObjectIsTheKeyOfItsDecodedFields(t *testing.T) {
	var h Hasher
	for obj, want := range map[string]Key{
		`{"type":"thinking","thinking":"a\u003cb","signature":"s\/1"}`: thinkingKey("a<b", "s/1"),
		`{"type":"thinking","thinking":"unsigned"}`:                    thinkingKey("unsigned", ""),
		`{"type":"thinking","thinking":null,"signature":null}`:         thinkingKey("", ""),
		`{"type":"redacted_thinking","data":"r\u0031"}`:                redactedKey("r1"),
	} {
		b := []byte(obj)
		var buf [32]byte
		f, err := ReadFields(b, 0, &buf)
		if err != nil {
			t.Fatal(err)
		}
		if got, _, ok := h.Key(b, f, nil); !ok || got != want {
			t.Errorf("%s: key %v, %v; want %v", obj, got, ok, want)
		}
	}
	for _, obj := range []string{`{"type":"thinking","thinking":1}`, `{"type":"thinking","signature":"\q"}`, `{"type":"redacted_thinking","data":{}}`} {
		var buf [32]byte
		f, _ := ReadFields([]byte(obj), 0, &buf)
		if _, _, ok := h.Key([]byte(obj), f, nil); ok {
			t.Errorf("%s: keyed a block whose strings are malformed", obj)
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
		got, ok := AppendString([]byte("p:"), tt.v)
		if ok != tt.ok || string(got) != "p:"+tt.want {
			t.Errorf("AppendString(%q) = %q, %v, want %q, %v", tt.v, got, ok, "p:"+tt.want, tt.ok)
		}
	}
}
