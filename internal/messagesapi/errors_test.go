package messagesapi

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestErrorMessage(t *testing.T) {
	if got := ErrorMessage(503, ""); got != "upstream answered 503 Service Unavailable" {
		t.Errorf("no message: %q", got)
	}
	if got := ErrorMessage(400, "bad"); got != "bad" {
		t.Errorf("a short message is kept: %q", got)
	}
	long := strings.Repeat("é", 3000)
	got := ErrorMessage(500, long)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > maxErrorMessage+len("…") {
		t.Errorf("a long message is cut between characters: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}
