package llmtest

import "testing"

func TestEvents(t *testing.T) {
	got := Events([]byte("event: ping\ndata: {\"type\":\"ping\"}\n\n: comment\ndata: a\ndata: b\n\n"))
	if len(got) != 2 || got[0].Name != "ping" || string(got[0].Data) != `{"type":"ping"}` || got[1].Name != "" || string(got[1].Data) != "a\nb" {
		t.Errorf("Events = %q", got)
	}
}
