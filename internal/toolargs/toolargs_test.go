package toolargs

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestInput: whole arguments become an object, whatever the model wrote.
func TestInput(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{``, `{}`},
		{`  `, `{}`},
		{`{"command":"ls"}`, `{"command":"ls"}`},
		{`{"command":"l`, `{"command":"l"}`},
		{`ls -la`, `{"raw_arguments":"ls -la"}`},
		{`[1,2]`, `{"raw_arguments":"[1,2]"}`},
	} {
		if got := string(Input([]byte(tt.in))); got != tt.want {
			t.Errorf("%q: got %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestStream: fragments leave at once as they came; arguments that are no
// object are held and sent whole at the end; cut ones are completed.
func TestStream(t *testing.T) {
	join := func(frags ...string) (out string, deltas []string) {
		var s Stream
		var dst []byte
		for _, f := range frags {
			lit, _ := json.Marshal(f)
			dst = s.Fragment(dst, 3, lit)
		}
		dst = s.Finish(dst, 3)
		for _, ev := range strings.Split(strings.TrimSpace(string(dst)), "\n\n") {
			if ev == "" {
				continue
			}
			data := strings.TrimPrefix(ev[strings.Index(ev, "data: "):], "data: ")
			var d struct {
				Index int
				Delta struct {
					PartialJSON string `json:"partial_json"`
				}
			}
			if err := json.Unmarshal([]byte(data), &d); err != nil || d.Index != 3 {
				t.Fatalf("event %q: %v", ev, err)
			}
			deltas = append(deltas, d.Delta.PartialJSON)
		}
		return strings.Join(deltas, ""), deltas
	}
	if got, deltas := join(`{"comm`, `and":"ls"}`); got != `{"command":"ls"}` || len(deltas) != 2 {
		t.Errorf("an object: %q in %d deltas", got, len(deltas))
	}
	if got, _ := join(`  {"a":[1,`); got != `{"a":[1,null]}` {
		t.Errorf("cut short: %q", got)
	}
	if got, deltas := join(`ls `, `-la`); got != `{"raw_arguments":"ls -la"}` || len(deltas) != 1 {
		t.Errorf("not an object: %q in %d deltas", got, len(deltas))
	}
	if got, _ := join(); got != "" {
		t.Errorf("no arguments: %q", got)
	}
}

// TestFragmentNotUTF8: a fragment that passes as its literal came (any but
// the first) gets U+FFFD for each byte that is not UTF-8, as the first,
// which is written again, does: the SDKs decode the stream strictly.
func TestFragmentNotUTF8(t *testing.T) {
	var s Stream
	dst := s.Fragment(nil, 0, []byte(`"{\"a\":\"`+"\xff"+`\""`))
	dst = s.Fragment(dst, 0, []byte(`",\"b\":\"`+"\xe2\x82"+`\"}"`))
	dst = s.Finish(dst, 0)
	if !utf8.Valid(dst) {
		t.Fatalf("not UTF-8: %q", dst)
	}
	var input strings.Builder
	for _, ev := range strings.Split(strings.TrimSpace(string(dst)), "\n\n") {
		var d struct {
			Delta struct {
				PartialJSON string `json:"partial_json"`
			}
		}
		if err := json.Unmarshal([]byte(ev[strings.Index(ev, "data: ")+len("data: "):]), &d); err != nil {
			t.Fatalf("event %q: %v", ev, err)
		}
		input.WriteString(d.Delta.PartialJSON)
	}
	if want := "{\"a\":\"\uFFFD\",\"b\":\"\uFFFD\uFFFD\"}"; input.String() != want {
		t.Fatalf("input %q, want %q", input.String(), want)
	}
}
