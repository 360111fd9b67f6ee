package eventstream

import "testing"

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
