package persist

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/registry"
)

func TestChangesSurviveEncoding(t *testing.T) {
	at := time.Unix(0, 1795433589123456789)
	in := []registry.Change{
		{Op: registry.Produced, Key: key("a"), Backend: "anthropic", At: at},
		{Op: registry.Refused, Key: key("b"), Backend: "glm", At: at},
		{Op: registry.Served, Conversation: "6ce030ee/agent/7", Backend: "10.0.0.1:443", At: at},
		{Op: registry.Served, Conversation: "s", Backend: "older"},
	}
	data, err := json.Marshal(segment{Version: version, Writer: "w", Changes: encodeChanges(in)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := readAll(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Fatalf("decoded %+v\nwant %+v", out, in)
	}
}

// FuzzSegment feeds arbitrary bytes to the segment and snapshot readers:
// they must never panic, and what they accept must encode back to the same
// changes.
func FuzzSegment(f *testing.F) {
	f.Add([]byte(`{"version":1,"writer":"w","changes":[{"op":"produced","key":"0123456789abcdef0123456789abcdef","backend":"a","at":5}]}`))
	f.Add([]byte(`{"version":1,"generation":3,"folded":["x"],"changes":[{"op":"served","conversation":"c","backend":"b"}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"changes":[{"op":"refused","key":"zz"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if changes, err := readAll(data); err == nil {
			again, err := json.Marshal(segment{Version: version, Changes: encodeChanges(changes)})
			if err != nil {
				t.Fatal(err)
			}
			back, err := readAll(again)
			if err != nil || !reflect.DeepEqual(back, changes) {
				t.Fatalf("re-encoded changes differ: %v\n%+v\n%+v", err, back, changes)
			}
		}
	})
}

// readAll reads a file's changes into one slice.
func readAll(data []byte) ([]registry.Change, error) {
	var all []registry.Change
	_, err := readFile(data, func(batch []registry.Change) { all = append(all, batch...) })
	return all, err
}

func TestLargeFilesAreAppliedInBatches(t *testing.T) {
	in := make([]registry.Change, 3*batchSize+7)
	for i := range in {
		in[i] = registry.Change{Op: registry.Produced, Key: key(fmt.Sprint(i)), Backend: "a"}
	}
	data, _ := json.Marshal(snapshot{Version: version, Generation: 2, Folded: []string{"x"}, Changes: encodeChanges(in)})
	var sizes []int
	h, err := readFile(data, func(b []registry.Change) { sizes = append(sizes, len(b)) })
	if err != nil || h.Generation != 2 || len(h.Folded) != 1 {
		t.Fatalf("header %+v, %v", h, err)
	}
	if fmt.Sprint(sizes) != fmt.Sprintf("[%d %d %d 7]", batchSize, batchSize, batchSize) {
		t.Fatalf("batches %v", sizes)
	}
}
