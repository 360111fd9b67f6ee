package observe

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"

	"bytes"
	"compress/gzip"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// messageFixture is testdata/message.json and the blocks it holds, decoded
// by hand.
var messageFixture = struct {
	file string
	want []block.Observed
}{
	file: "testdata/message.json",
	want: []block.Observed{
		thinking(0, "The user wants the file list.\nRun \"ls\" <first> 😀.", "EqQBCkYIBxgCKkCvJ9mF3z5Lq0pFvX1rZc8wT2nYb4HsK7dVeA6gMuR0iJx/NyQ5tB1oC3lW8pE9fD2hG4kS6jU7aV0zX+9mQ=="),
		redacted(2, "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4"),
	},
}

func gzipped(t testing.TB, p []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(p); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// observeJSON writes body to a new JSON observer in chunks of n bytes (all at
// once when n is 0) and returns its blocks.
func observeJSON(t testing.TB, limit int64, encoding string, body []byte, n int) ([]block.Observed, error) {
	t.Helper()
	j := NewJSON(limit, encoding)
	chunks := [][]byte{body}
	if n > 0 {
		chunks = split(body, n)
	}
	for _, c := range chunks {
		buf := slices.Clone(c)
		if w, err := j.Write(buf); w != len(c) || err != nil {
			t.Fatalf("Write(%d bytes) = %d, %v", len(c), w, err)
		}
		clear(buf)
	}
	return j.Blocks()
}

func TestJSONBlocks(t *testing.T) {
	msg := readFixture(t, messageFixture.file)
	tests := []struct {
		name     string
		encoding string
		body     []byte
		want     []block.Observed
	}{
		{"plain", "", msg, messageFixture.want},
		{"identity", "identity", msg, messageFixture.want},
		{"gzip", "gzip", gzipped(t, msg), messageFixture.want},
		{"x-gzip in capitals", " X-GZIP ", gzipped(t, msg), messageFixture.want},
		{"no thinking", "", []byte(`{"type":"message","content":[{"type":"text","text":"hi"}]}`), nil},
		{"empty content", "", []byte(`{"type":"message","content":[]}`), nil},
		{
			"unknown blocks and non-objects are skipped but counted",
			"",
			[]byte(`{"content":[1,{"type":"future"},"x",{"type":"thinking","thinking":"t","signature":null}],"type":"message"}`),
			[]block.Observed{thinking(3, "t", "")},
		},
		{
			"escaped keys and duplicates (the last wins)",
			"",
			[]byte(`{"type":"error","t\u0079pe":"message","content":[{"type":"redacted_thinking","data":"old","d\u0061ta":"new"}]}`),
			[]block.Observed{redacted(0, "new")},
		},
		{
			"no signature (Ollama)",
			"",
			[]byte(`{"type":"message","content":[{"type":"thinking","thinking":"local"}]}`),
			[]block.Observed{thinking(0, "local", "")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, n := range []int{0, 1, 100} {
				got, err := observeJSON(t, 1<<20, tt.encoding, tt.body, n)
				if err != nil {
					t.Fatalf("chunks of %d: %v", n, err)
				}
				if !slices.Equal(got, tt.want) {
					t.Fatalf("chunks of %d: got %v, want %v", n, got, tt.want)
				}
			}
		})
	}
}

func TestJSONErrors(t *testing.T) {
	msg := readFixture(t, messageFixture.file)
	gz := gzipped(t, msg)
	tests := []struct {
		name     string
		limit    int64
		encoding string
		body     []byte
		err      string
	}{
		{"overflow", int64(len(msg)) - 1, "", msg, "exceeds"},
		{"overflow of the compressed body", int64(len(gz)) - 1, "gzip", gz, "exceeds"},
		{"decompressed body over the limit", int64(len(msg)) - 1, "gzip", gz, "decompressed response body exceeds"},
		{"negative limit", -1, "", msg, "exceeds 0 bytes"},
		{"brotli", 1 << 20, "br", msg, `Content-Encoding "br"`},
		{"two encodings", 1 << 20, "gzip, gzip", gz, `Content-Encoding "gzip, gzip"`},
		{"not gzip", 1 << 20, "gzip", msg, "bad gzip"},
		{"truncated gzip", 1 << 20, "gzip", gz[:len(gz)-10], "bad gzip"},
		{"empty gzip", 1 << 20, "gzip", nil, "bad gzip"},
		{"invalid JSON", 1 << 20, "", msg[:len(msg)-3], "not valid JSON"},
		{"empty body", 1 << 20, "", nil, "not valid JSON"},
		{"an error response", 1 << 20, "", []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), "not a message"},
		{"an array", 1 << 20, "", []byte(`[{"type":"message"}]`), "not a message"},
		{"a type that is not a string", 1 << 20, "", []byte(`{"type":1,"content":[]}`), "not a message"},
		{"no content", 1 << 20, "", []byte(`{"type":"message"}`), "content is not an array"},
		{"null content", 1 << 20, "", []byte(`{"type":"message","content":null}`), "content is not an array"},
		{"thinking that is not a string", 1 << 20, "", []byte(`{"type":"message","content":[{"type":"thinking","thinking":1,"signature":"s"}]}`), "content index 0"},
		{"signature that is not a string", 1 << 20, "", []byte(`{"type":"message","content":[{"type":"text"},{"type":"thinking","thinking":"","signature":{}}]}`), "content index 1"},
		{"data that is not a string", 1 << 20, "", []byte(`{"type":"message","content":[{"type":"redacted_thinking","data":true}]}`), "content index 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := observeJSON(t, tt.limit, tt.encoding, tt.body, 0)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Blocks() = %v, %v; want an error containing %q", got, err, tt.err)
			}
		})
	}
}

func TestJSONWithinLimit(t *testing.T) {
	msg := readFixture(t, messageFixture.file)
	for _, enc := range []string{"", "gzip"} {
		body := msg
		if enc == "gzip" {
			body = gzipped(t, msg)
		}
		if _, err := observeJSON(t, int64(len(msg)), enc, body, 7); err != nil {
			t.Errorf("encoding %q, limit = decoded size: %v", enc, err)
		}
	}
}

// TestJSONGzipBomb checks that a small body that inflates far past the limit
// is refused without inflating it.
func TestJSONGzipBomb(t *testing.T) {
	const limit = 1 << 20
	bomb := gzipped(t, make([]byte, 10<<20))
	if len(bomb) > limit {
		t.Fatalf("the bomb is %d bytes, not small", len(bomb))
	}
	j := NewJSON(limit, "gzip")
	j.Write(bomb)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := j.Blocks()
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "decompressed response body exceeds") {
		t.Fatalf("Blocks() error = %v, want the decompressed size refused", err)
	}
	// Inflating the bomb would take 10 MiB at the very least.
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 8*limit {
		t.Fatalf("refusing the bomb allocated %d bytes, want at most %d", allocated, 8*limit)
	}
}

func TestJSONBlocksTwice(t *testing.T) {
	j := NewJSON(1<<20, "gzip")
	j.Write(gzipped(t, readFixture(t, messageFixture.file)))
	for range 2 {
		got, err := j.Blocks()
		if err != nil || !slices.Equal(got, messageFixture.want) {
			t.Fatalf("Blocks() = %v, %v; want %v", got, err, messageFixture.want)
		}
	}
}
