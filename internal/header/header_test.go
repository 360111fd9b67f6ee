package header

import (
	"net/http"
	"slices"
	"testing"
)

func TestFirst(t *testing.T) {
	h := http.Header{}
	h.Add("content-type", "application/json")
	h.Add("Content-Type", "text/plain")
	if got := First(h, ContentType); got != "application/json" {
		t.Fatalf("First = %q, want the first value", got)
	}
	if got := First(h, ContentEncoding); got != "" {
		t.Fatalf("First of an absent field = %q", got)
	}
}

// TestSetLength: the field is written only when the header has one that
// says something else; a field that already says n is left as it is.
func TestSetLength(t *testing.T) {
	for _, tc := range []struct {
		name string
		had  []string
		want []string
	}{
		{"absent", nil, nil},
		{"empty", []string{""}, []string{""}},
		{"same", []string{"42"}, []string{"42"}},
		{"other", []string{"7"}, []string{"42"}},
		{"twice", []string{"42", "42"}, []string{"42"}},
	} {
		h := http.Header{}
		if tc.had != nil {
			h[ContentLength] = tc.had
		}
		SetLength(h, 42)
		if got := h[ContentLength]; !slices.Equal(got, tc.want) {
			t.Errorf("%s: Content-Length %q, want %q", tc.name, got, tc.want)
		}
	}
	h := http.Header{ContentLength: {"42"}}
	if allocs := testing.AllocsPerRun(100, func() { SetLength(h, 42) }); allocs != 0 {
		t.Fatalf("SetLength of the same length allocates %v times", allocs)
	}
}
