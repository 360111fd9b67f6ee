package llmtest

import (
	"encoding/json"
	"regexp"
	"testing"
)

// usageOf returns the usage of a JSON answer, or of a stream's
// message_start.
var usageOf = regexp.MustCompile(`"usage":(\{[^}]*\})`)

// TestCountCache: with CountCache, every answer's usage, streamed or not,
// splits the prompt as the API does: the tokens up to the breakpoint are
// read from the cache as far as the conversation's previous request wrote
// them, written for the rest, and input_tokens count what follows; the
// three add up to the prompt. Another conversation reads nothing.
func TestCountCache(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	up.CountCache(true)
	c := NewConversation(up.URL(), "cached")
	type usage struct {
		Input    int  `json:"input_tokens"`
		Creation *int `json:"cache_creation_input_tokens"`
		Read     *int `json:"cache_read_input_tokens"`
	}
	var last usage
	for i, stream := range []bool{true, false, true} {
		c.Stream = stream
		turn := must(t)(c.Say("more"))
		var u usage
		m := usageOf.FindSubmatch(turn.Body)
		if m == nil || json.Unmarshal(m[1], &u) != nil || u.Creation == nil || u.Read == nil {
			t.Fatalf("answer %d reports no cache: %s", i, turn.Body)
		}
		total := len(up.Requests()[i].Body) / 4
		if u.Input+*u.Creation+*u.Read != total || u.Input <= 0 || *u.Creation <= 0 {
			t.Errorf("answer %d: %d input + %d written + %d read, want %d in all", i, u.Input, *u.Creation, *u.Read, total)
		}
		if i > 0 && *u.Read != *last.Read+*last.Creation {
			t.Errorf("answer %d read %d from the cache; the conversation wrote %d", i, *u.Read, *last.Read+*last.Creation)
		}
		last = u
	}
	if *last.Read == 0 {
		t.Error("nothing was ever read from the cache")
	}
	other := NewConversation(up.URL(), "another")
	if m := usageOf.FindSubmatch(must(t)(other.Say("hi")).Body); m == nil || !regexp.MustCompile(`"cache_read_input_tokens":0,`).Match(m[1]) {
		t.Errorf("another conversation's usage: %s", m)
	}
}
