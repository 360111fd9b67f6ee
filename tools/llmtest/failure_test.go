package llmtest

import (
	"net/http"
	"strings"
	"testing"
)

// TestFailNext: a scripted failure answers the next request, streamed or
// not, with the API's envelope byte for byte and its headers, and counts
// no answer of the script; the request after it is answered.
func TestFailNext(t *testing.T) {
	for _, tc := range []struct {
		f      Failure
		stream bool
		body   string
		header string
		value  string
	}{
		{RateLimited(30), false, errorBody("rate_limit_error", "This request would exceed your account's rate limit. Please try again later.", "req_a_1"),
			"Retry-After", "30"},
		{Overloaded, true, errorBody("overloaded_error", "Overloaded. https://docs.claude.com/en/api/errors", "req_a_1"),
			"X-Should-Retry", "true"},
	} {
		t.Run(tc.f.Type, func(t *testing.T) {
			u := newUpstream(t, "a", Strict)
			u.FailNext(tc.f)
			c := NewConversation(u.URL(), "s")
			c.Stream = tc.stream
			turn, err := c.Say("hello")
			if err != nil || turn.Status != tc.f.Status || string(turn.Body) != tc.body || turn.Header.Get(tc.header) != tc.value ||
				turn.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("%v: %d %s %s", err, turn.Status, turn.Header, turn.Body)
			}
			if tc.header != "Retry-After" && turn.Header.Get("Retry-After") != "" {
				t.Errorf("retry-after on a %d", turn.Status)
			}
			turn = must(t)(c.Send())
			if turn.Header.Get(tc.header) != "" || string(turn.Message) == "" {
				t.Errorf("the next answer: %s %s", turn.Header, turn.Message)
			}
			if got := u.Requests(); len(got) != 2 || got[0].Status != tc.f.Status || got[0].ErrorMessage != tc.f.Message || got[1].Status != http.StatusOK {
				t.Errorf("received %d requests: %+v", len(got), got)
			}
			if want := `"text":"a answer 1."`; !strings.Contains(string(turn.Message), want) {
				t.Errorf("the first answer of the script is not answer 1: %s", turn.Message)
			}
		})
	}
}
