package persist

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// encode writes a file of changes with header h, in batches as a fold does.
func encode(h fileHeader, batches ...[]registry.Change) []byte {
	enc := newEncoder(nil, h)
	for _, b := range batches {
		enc.add(b)
	}
	return enc.finish()
}

// readAll reads a file's changes into one slice.
func readAll(data []byte) (fileHeader, []registry.Change, error) {
	var all []registry.Change
	h, err := readFile(data, func(batch []registry.Change) { all = append(all, batch...) })
	return h, all, err
}

func TestChangesSurviveEncoding(t *testing.T) {
	at := time.Unix(0, 1795433589123456789)
	in := []registry.Change{
		{Op: registry.Produced, Key: key("a"), Backend: "anthropic", At: at},
		{Op: registry.Refused, Key: key("b"), Backend: "glm", At: at.Add(1)},
		{Op: registry.Served, Conversation: "6ce030ee/agent/7", Backend: "10.0.0.1:443", At: at},
		{Op: registry.Served, Conversation: "s", Backend: "older"},
		{Op: registry.Produced, Key: key("c"), Backend: "anthropic", At: time.Unix(0, -5)},
		{Op: registry.Served, Conversation: "<\"é\\\u2028\x01>", Backend: ""},
		{Op: registry.Produced, Key: block.Key{0xff, 0xfe, 0xfd}, Conversation: "kept", Backend: "anthropic"},
		{Op: registry.Learned, Backend: "ollama", Model: "llama3.2", Facts: registry.CannotThink | registry.NoContextManagement, At: at},
		{Op: registry.Learned, Backend: "kimi", Model: "kimi-k3", Facts: registry.Thinks | registry.ThinkingBackEverywhere, At: at},
		{Op: registry.Forgot, Backend: "ollama", Model: "llama3.2", At: at},
		{Op: registry.Forgot, Backend: "ollama"},
	}
	for _, h := range []fileHeader{
		{Writer: "w"},
		{Writer: "folder", Generation: 3, Folded: []string{"llm_thinking/registries/x/journal/1.json", "2"}},
	} {
		data := encode(h, in[:2], nil, in[2:])
		got, out, err := readAll(data)
		if err != nil {
			t.Fatalf("%v in\n%s", err, data)
		}
		if !reflect.DeepEqual(out, in) {
			t.Fatalf("decoded %+v\nwant %+v", out, in)
		}
		if got.Writer != h.Writer || got.Generation != h.Generation || !slices.Equal(got.Folded, h.Folded) {
			t.Fatalf("header %+v, want %+v", got, h)
		}
	}
}

// TestAFileReadsAsDocumented reads a file written by hand, as an operator
// might: members in another order, names first, spaces, a member this
// version does not know.
func TestAFileReadsAsDocumented(t *testing.T) {
	data := []byte(` {"names": ["anthropic", "glm", "sess-1"], "later": {"x": [1]},
		"changes": [ [1, "q83vEjRWeJCrze8SNFZ4kA", 0, -1, 1795433589123456789],
			[2,"q83vEjRWeJCrze8SNFZ4kA",1,-1,0], [3, "", 1, 2, 7], [3,"AAAAAAAAAAAAAAAAAAAAAA",0,2,0] ],
		"generation": 3, "folded": [], "writer": "w\u0031", "version": 2 } `)
	h, out, err := readAll(data)
	if err != nil {
		t.Fatal(err)
	}
	k := block.Key{0xab, 0xcd, 0xef, 0x12, 0x34, 0x56, 0x78, 0x90, 0xab, 0xcd, 0xef, 0x12, 0x34, 0x56, 0x78, 0x90}
	want := []registry.Change{
		{Op: registry.Produced, Key: k, Backend: "anthropic", At: time.Unix(0, 1795433589123456789)},
		{Op: registry.Refused, Key: k, Backend: "glm"},
		{Op: registry.Served, Conversation: "sess-1", Backend: "glm", At: time.Unix(0, 7)},
		{Op: registry.Served, Conversation: "sess-1", Backend: "anthropic"}, // the zero key spelled out
	}
	if !reflect.DeepEqual(out, want) || h.Writer != "w1" || h.Generation != 3 || len(h.Folded) != 0 {
		t.Fatalf("read %+v, %+v", h, out)
	}
}

// TestTheDocumentedExampleReads reads the example of the format's comment.
func TestTheDocumentedExampleReads(t *testing.T) {
	data := []byte(`{"version":3,"writer":"3f2a9c01b7de","generation":3,"folded":["llm_thinking/registries/default/journal/01795433588000000000-3f2a9c01b7de-000064.json"],"changes":[
	[1,"9XTfL0mee7wqAtsov5h_tQ",0,-1,1795433589123456789],
	[1,"fpZt_W5j6I5mUoKDenaOGA",1,-1,1795433589123458289],
	[2,"fpZt_W5j6I5mUoKDenaOGA",0,-1,1795433589123458289],
	[3,"",0,2,0],
	[3,"",1,2,1795433589123458789],
	[4,"",3,4,1795433589123459000,2]
	],
	"names":["anthropic","glm","sess-1","ollama","llama3.2"]}`)
	_, out, err := readAll(data)
	if err != nil {
		t.Fatal(err)
	}
	want := registry.Change{Op: registry.Learned, Backend: "ollama", Model: "llama3.2", Facts: registry.CannotThink, At: time.Unix(0, 1795433589123459000)}
	if len(out) != 6 || !reflect.DeepEqual(out[5], want) {
		t.Fatalf("read %+v", out)
	}
}

func TestMalformedFilesAreErrors(t *testing.T) {
	const names = `"names":["a"]`
	change := func(c string) string { return `{"version":2,"changes":[` + c + `],` + names + `}` }
	change3 := func(c string) string { return `{"version":3,"changes":[` + c + `],` + names + `}` }
	for _, in := range []string{
		``,
		`[]`,
		`{"version":2,"changes":[],` + names,
		`{"version":2,"changes":[],` + names + `} x`,
		`{"changes":[],` + names + `}`,
		`{"version":1,"changes":[],` + names + `}`,
		`{"version":1,"writer":"x","changes":[{"op":"produced","key":"0123456789abcdef0123456789abcdef","backend":"x"}]}`,
		`{"version":2.0,"changes":[],` + names + `}`,
		`{"version":"2","changes":[],` + names + `}`,
		`{"version":2,` + names + `}`,
		`{"version":2,"changes":[]}`,
		`{"version":2,"version":2,"changes":[],` + names + `}`,
		`{"version":2,"changes":[],"names":[1]}`,
		`{"version":2,"changes":[],"names":["a",]}`,
		`{"version":2,"changes":[],"names":{}}`,
		`{"version":2,"writer":1,"changes":[],` + names + `}`,
		`{"version":2,"generation":-1,"changes":[],` + names + `}`,
		`{"version":2,"generation":18446744073709551616,"changes":[],` + names + `}`,
		`{"version":2,"folded":"x","changes":[],` + names + `}`,
		`{"version":2,"changes":{},` + names + `}`,
		change(`1`),
		change(`[]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",0,-1]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",0,-1,0,0]`),
		change(`[0,"AAAAAAAAAAAAAAAAAAAAAA",0,-1,0]`),
		change(`[4,"AAAAAAAAAAAAAAAAAAAAAA",0,-1,0]`),
		change(`[4,"",0,0,0,2]`), // a version 3 change in a version 2 file
		change3(`[4,"",0,0,0]`),
		change3(`[4,"",0,0,0,0]`),
		change3(`[4,"",0,0,0,65536]`),
		change3(`[4,"",0,0,0,"2"]`),
		change3(`[5,"",0,0,0,2]`),
		change3(`[6,"",0,0,0]`),
		change(`["1","AAAAAAAAAAAAAAAAAAAAAA",0,-1,0]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAA",0,-1,0]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAAA",0,-1,0]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAA=",0,-1,0]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAA\n",0,-1,0]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAB",0,-1,0]`), // stray bits: not the key's spelling
		change(`[1,"0123456789abcdef0123456789abcdef",0,-1,0]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",1,-1,0]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",-1,-1,0]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",0,-2,0]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",0,1,0]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",00,-1,0]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",0,-1,1.5]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",0,-1,1e9]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",0,-1,9223372036854775808]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",0,-1,null]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",0,-1,0],`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",0,-1,0] [1,"AAAAAAAAAAAAAAAAAAAAAA",0,-1,0]`),
	} {
		if _, _, err := readAll([]byte(in)); err == nil {
			t.Errorf("no error reading %s", in)
		}
	}
	// The limits themselves are numbers.
	for _, in := range []string{
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",0,-1,9223372036854775807]`),
		change(`[1,"AAAAAAAAAAAAAAAAAAAAAA",0,-1,-9223372036854775808]`),
		`{"version":2,"generation":18446744073709551615,"changes":[],` + names + `}`,
	} {
		if _, _, err := readAll([]byte(in)); err != nil {
			t.Errorf("reading %s: %v", in, err)
		}
	}
}

func TestAnUnknownVersionIsRefusedBeforeAnythingIsApplied(t *testing.T) {
	data := encode(fileHeader{Writer: "w"}, []registry.Change{{Op: registry.Produced, Key: key("a"), Backend: "x"}})
	data = []byte(strings.Replace(string(data), `"version":3`, `"version":4`, 1))
	applied := 0
	_, err := readFile(data, func(b []registry.Change) { applied += len(b) })
	if err == nil || !strings.Contains(err.Error(), "unknown version 4") || applied != 0 {
		t.Fatalf("error %v, %d changes applied", err, applied)
	}
}

// FuzzSegment feeds arbitrary bytes to the segment and snapshot reader: it
// must never panic, and what it accepts must encode back to the same
// changes and header.
func FuzzSegment(f *testing.F) {
	at := time.Unix(0, 1795433589123456789)
	f.Add(encode(fileHeader{Writer: "w"}, []registry.Change{{Op: registry.Produced, Key: key("a"), Backend: "anthropic", At: at}}))
	f.Add(encode(fileHeader{Writer: "w", Generation: 3, Folded: []string{"x"}}, []registry.Change{
		{Op: registry.Refused, Key: key("b"), Backend: "glm", At: at},
		{Op: registry.Served, Conversation: "c", Backend: "anthropic"},
		{Op: registry.Served, Conversation: "c\u00e9\"", Backend: "glm", At: at},
	}))
	f.Add([]byte(`{"names":["a\u0062"],"version":2,"changes":[[3,"AAAAAAAAAAAAAAAAAAAAAA",0,0,-1],[3,"",0,-1,0]],"x":[{}]}`))
	f.Add([]byte(`{"version":2,"changes":[[1,"zz",0,-1,0]],"names":["x"]}`))
	f.Add([]byte(`{"version":1,"changes":[{"op":"refused","key":"zz"}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":3,"changes":[[4,"",0,1,7,3],[5,"",0,-1,0]],"names":["ollama","llama3.2"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, changes, err := readAll(data)
		if err != nil {
			return
		}
		again := encode(h, changes)
		h2, back, err := readAll(again)
		if err != nil || !reflect.DeepEqual(back, changes) {
			t.Fatalf("re-encoded changes differ: %v\n%+v\n%+v", err, back, changes)
		}
		if h2.Writer != h.Writer || h2.Generation != h.Generation || !slices.Equal(h2.Folded, h.Folded) {
			t.Fatalf("re-encoded header differs: %+v, %+v", h2, h)
		}
	})
}

func TestLargeFilesAreAppliedInBatches(t *testing.T) {
	in := make([]registry.Change, 3*batchSize+7)
	for i := range in {
		in[i] = registry.Change{Op: registry.Produced, Key: key(fmt.Sprint(i)), Backend: "a"}
	}
	data := encode(fileHeader{Writer: "w", Generation: 2, Folded: []string{"x"}}, in)
	var sizes []int
	h, err := readFile(data, func(b []registry.Change) { sizes = append(sizes, len(b)) })
	if err != nil || h.Generation != 2 || len(h.Folded) != 1 {
		t.Fatalf("header %+v, %v", h, err)
	}
	if fmt.Sprint(sizes) != fmt.Sprintf("[%d %d %d 7]", batchSize, batchSize, batchSize) {
		t.Fatalf("batches %v", sizes)
	}
}
