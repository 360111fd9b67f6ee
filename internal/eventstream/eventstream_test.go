package eventstream

import (
	"fmt"
	"testing"
)

func TestLineEnd(t *testing.T) {
	tests := []struct {
		in        string
		end, next int
	}{
		{"abc\ndef", 3, 4},
		{"abc\r\ndef", 3, 5},
		{"abc\rdef", 3, 4},
		{"abc\r", 3, 4},
		{"\n", 0, 1},
		{"abc", -1, -1},
		{"a\nb\r\n", 1, 2},
		{"a\rb\n", 1, 2},
		{"", -1, -1},
		{"\n\r", 0, 1},
		{"\r\r\n", 0, 1},
		{"ab\n\r\n", 2, 3},
	}
	for _, tt := range tests {
		if end, next := LineEnd([]byte(tt.in)); end != tt.end || next != tt.next {
			t.Errorf("LineEnd(%q) = %d, %d; want %d, %d", tt.in, end, next, tt.end, tt.next)
		}
	}
}

func TestIndex(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true},
		{"7", 7, true},
		{"1024", 1024, true},
		{"1025", 1025, false},
		{"01", 0, false},
		{"-1", 0, false},
		{"1.0", 0, false},
		{"", 0, false},
		{"9999999999", 0, false},
		{"1e2", 0, false},
		{`"1"`, 0, false},
	}
	for _, tt := range tests {
		got, ok := Index([]byte(tt.in), 1024)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("Index(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestField(t *testing.T) {
	tests := []struct {
		line, field, value string
		comment            bool
	}{
		{"data: {}", "data", "{}", false},
		{"data:{}", "data", "{}", false},
		{"data:  two", "data", " two", false},
		{"event", "event", "", false},
		{": keep-alive", "", "", true},
		{"id:", "id", "", false},
	}
	for _, tt := range tests {
		field, value, comment := Field([]byte(tt.line))
		if string(field) != tt.field || string(value) != tt.value || comment != tt.comment {
			t.Errorf("Field(%q) = %q, %q, %v", tt.line, field, value, comment)
		}
	}
}

func TestAppendData(t *testing.T) {
	data := AppendData(nil, false, []byte("a"))
	data = AppendData(data, true, []byte(""))
	data = AppendData(data, true, []byte("b"))
	if string(data) != "a\n\nb" {
		t.Fatalf("data = %q", data)
	}
}

// TestLinesAreTheSameHoweverTheStreamIsCut reads one stream with every
// kind of line end, cut at every byte, and gets the same lines.
func TestLinesAreTheSameHoweverTheStreamIsCut(t *testing.T) {
	stream := "\xef\xbb\xbfevent: a\r\ndata: 1\r\rdata: 2\n\ndata: 3\r\n\r\n: c\rdata: 4\n"
	want := []string{"event: a", "data: 1", "", "data: 2", "", "data: 3", "", ": c", "data: 4"}
	for cut := 0; cut <= len(stream); cut++ {
		var l Lines
		var got []string
		var carry []byte
		for _, chunk := range []string{stream[:cut], stream[cut:]} {
			p := []byte(chunk)
			i := l.Chunk(p)
			for {
				end, next := l.Next(p, i)
				if end < 0 {
					break
				}
				got = append(got, string(l.Line(append(carry, p[i:end]...))))
				carry, i = carry[:0], next
			}
			carry = append(carry, p[i:]...)
		}
		if len(carry) > 0 {
			t.Fatalf("cut at %d: %q left", cut, carry)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("cut at %d: lines %q, want %q", cut, got, want)
		}
	}
}

func TestEvent(t *testing.T) {
	var e Event
	for _, line := range []string{"event: x", ": comment", "data: a", "data", "data:b", "retry: 3"} {
		if e.Line([]byte(line)) {
			t.Fatalf("%q ended the event", line)
		}
	}
	if string(e.Name) != "x" || !e.HasName || string(e.Data) != "a\n\nb" || !e.HasData || e.Size() != 5 {
		t.Fatalf("event %+v", e)
	}
	if !e.Line(nil) {
		t.Fatal("a blank line did not end the event")
	}
	e.Reset()
	if e.HasData || e.HasName || len(e.Data) != 0 {
		t.Fatalf("reset %+v", e)
	}
}
