package toolargs

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStreamedAsDeepAsWhole: arguments nested as deep as a JSON reader
// follows (past 64 levels, objects and arrays mixed) pass whole when
// streamed, as they do whole (Input); cut short at any depth, the repair
// closes every container in order.
func TestStreamedAsDeepAsWhole(t *testing.T) {
	var open, closing strings.Builder
	for i := range 300 {
		if i%3 == 0 {
			open.WriteString(`[`)
			closing.WriteString(`]`)
		} else {
			open.WriteString(`{"k":`)
			closing.WriteString(`}`)
		}
	}
	args := `{"a":` + open.String() + `1` + reverse(closing.String()) + `}`
	if !json.Valid([]byte(args)) || string(Input([]byte(args))) != args {
		t.Fatal("the arguments are not whole JSON, or Input changed them")
	}
	var s Stream
	var dst []byte
	for i := 0; i < len(args); i += 7 {
		lit, _ := json.Marshal(args[i:min(i+7, len(args))])
		dst = s.Fragment(dst, 0, lit)
	}
	dst = s.Finish(dst, 0)
	if got := partialJSON(t, dst); got != args {
		t.Errorf("streamed as %d bytes, want the %d of the arguments", len(got), len(args))
	}
	cut := args[:len(args)/2]
	var tail jsonTail
	if n := tail.feed([]byte(cut)); n != len(cut) {
		t.Fatalf("the tail stopped at %d of %d", n, len(cut))
	}
	if fixed := tail.appendRepair([]byte(cut)); !json.Valid(fixed) {
		t.Errorf("the repair of arguments cut at depth %d is not JSON: ...%s", tail.depth, fixed[len(fixed)-40:])
	}
}

// partialJSON joins the partial_json of input_json_delta events.
func partialJSON(t *testing.T, events []byte) string {
	t.Helper()
	var out strings.Builder
	for _, ev := range strings.Split(strings.TrimSpace(string(events)), "\n\n") {
		data := ev[strings.Index(ev, "data: ")+len("data: "):]
		var d struct {
			Delta struct {
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &d); err != nil {
			t.Fatal(err)
		}
		out.WriteString(d.Delta.PartialJSON)
	}
	return out.String()
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// TestInputNoDeeperThanAMessageHolds: whole arguments nested deeper than
// a Messages answer can hold for a JSON reader are kept as their text.
func TestInputNoDeeperThanAMessageHolds(t *testing.T) {
	at := func(n int) string { return strings.Repeat(`{"a":`, n) + `"x{["` + strings.Repeat("}", n) }
	if got := Input([]byte(at(MaxDepth))); string(got) != at(MaxDepth) {
		t.Error("arguments MaxDepth deep were not kept as they are")
	}
	deep := at(MaxDepth + 1)
	var in map[string]any
	if err := json.Unmarshal(Input([]byte(deep)), &in); err != nil || in[RawKey] != deep {
		t.Errorf("arguments MaxDepth+1 deep: %v", err)
	}
}
