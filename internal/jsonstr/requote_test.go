package jsonstr

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// requoteAll writes s with Requote in pieces of at most room bytes.
func requoteAll(s []byte, room int) []byte {
	var out []byte
	for len(s) > 0 {
		before := len(out)
		var n int
		out, n = Requote(out, s, room)
		if len(out)-before > max(room, MinRequoteRoom) {
			panic("Requote wrote past its room")
		}
		if n == 0 {
			panic("Requote made no progress")
		}
		s = s[n:]
	}
	return out
}

func TestRequote(t *testing.T) {
	for _, s := range []string{``, `plain`, `a\"b\\c\/d`, `\n\r\t\b\f\u0000\u001f`, `\u00e9\ud83d\ude00\ud800x\udc00`,
		"é😀\xff\xe4\xbd<think>", `\u0041\u2028`} {
		want, ok := AppendContent(nil, []byte(s))
		if !ok {
			t.Fatalf("%q is not a literal's contents", s)
		}
		want = Escape(nil, want)
		for _, room := range []int{1, 6, 7, 13, 1 << 20} {
			if got := requoteAll([]byte(s), room); !bytes.Equal(got, want) {
				t.Errorf("Requote(%q) in pieces of %d = %q, want %q", s, room, got, want)
			}
		}
	}
}

// FuzzRequote: for every literal's contents, Requote in pieces of any
// size writes what Quote writes of the decoded value; for any other
// bytes it still makes progress within its room.
func FuzzRequote(f *testing.F) {
	for _, s := range []string{"", `a\"\\\n\u0001`, "é😀\xff\xe4\xbd", `\ud83d\ude00\ud800`, `\`, `\u12`} {
		f.Add([]byte(s), uint8(7))
	}
	f.Fuzz(func(t *testing.T, s []byte, room uint8) {
		got := requoteAll(s, int(room))
		want, ok := AppendContent(nil, s)
		if !ok {
			return
		}
		if want = Escape(nil, want); !bytes.Equal(got, want) {
			t.Fatalf("Requote(%q) in pieces of %d = %q, want %q", s, room, got, want)
		}
	})
}

// FuzzEscapePiece: escaping piece by piece writes what Escape writes of
// the whole.
func FuzzEscapePiece(f *testing.F) {
	for _, s := range []string{"", `{"a":"\"x\\"}`, "é😀\xff\xe4\xbd\x80\x80\x80\x80", "\xf0\x90\x80\x80\x80"} {
		f.Add([]byte(s), uint8(7))
	}
	f.Fuzz(func(t *testing.T, s []byte, room uint8) {
		var got []byte
		for rest := s; len(rest) > 0; {
			before := len(got)
			var n int
			got, n = EscapePiece(got, rest, int(room))
			if n == 0 || (n > utf8.UTFMax && len(got)-before > max(int(room), MinRequoteRoom)) {
				t.Fatalf("piece of %d bytes, %d written, room %d", n, len(got)-before, room)
			}
			rest = rest[n:]
		}
		if want := Escape(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("EscapePiece(%q) in pieces of %d = %q, want %q", s, room, got, want)
		}
	})
}
