package streaming

import "testing"

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
