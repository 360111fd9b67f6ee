package scancompare

import (
	"os"
	"slices"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
)

// session returns the captured Claude Code request grown to n bytes.
func session(tb testing.TB, n int) []byte {
	tb.Helper()
	capture, err := os.ReadFile("../../testdata/claude-code-2.1.328/capture-3-continue-replays-thinking.json")
	if err != nil {
		tb.Fatal(err)
	}
	body, err := claudecode.GrowHistory(capture, n)
	if err != nil {
		tb.Fatal(err)
	}
	return body
}

// scanKeys returns the keys of body's blocks as llm_thinking reads them.
func scanKeys(tb testing.TB, body []byte, dst []block.Key) []block.Key {
	req, err := thinking.Parse(body)
	if err != nil {
		tb.Fatal(err)
	}
	for _, b := range req.Blocks() {
		dst = append(dst, b.Key)
	}
	req.Release()
	return dst
}

// gjsonKeys returns the keys of body's blocks as gjson reads them: the
// same walk (assistant messages, their content parts, the fields of
// thinking parts) and the same hashing of the decoded strings.
func gjsonKeys(body []byte, dst []block.Key) []block.Key {
	var h block.Hasher
	gjson.GetBytes(body, "messages").ForEach(func(_, m gjson.Result) bool {
		if m.Get("role").String() != "assistant" {
			return true
		}
		m.Get("content").ForEach(func(_, p gjson.Result) bool {
			switch p.Get("type").String() {
			case "thinking":
				h.Reset()
				h.Write([]byte(p.Get("thinking").String()))
				dst = append(dst, h.Thinking([]byte(p.Get("signature").String())))
			case "redacted_thinking":
				dst = append(dst, h.Redacted([]byte(p.Get("data").String())))
			}
			return true
		})
		return true
	})
	return dst
}

func TestBothFindTheSameBlocks(t *testing.T) {
	body := session(t, 256<<10)
	ours, theirs := scanKeys(t, body, nil), gjsonKeys(body, nil)
	if len(ours) < 50 || !slices.Equal(ours, theirs) {
		t.Fatalf("llm_thinking found %d blocks, gjson %d, or they differ", len(ours), len(theirs))
	}
}

func benchmark(b *testing.B, size int, find func(testing.TB, []byte, []block.Key) []block.Key) {
	body := session(b, size)
	keys := make([]block.Key, 0, 1024)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		keys = find(b, body, keys[:0])
	}
}

func BenchmarkScan256KiB(b *testing.B)  { benchmark(b, 256<<10, scanKeys) }
func BenchmarkScan1MiB(b *testing.B)    { benchmark(b, 1<<20, scanKeys) }
func BenchmarkGJSON256KiB(b *testing.B) { benchmark(b, 256<<10, gjsonFind) }
func BenchmarkGJSON1MiB(b *testing.B)   { benchmark(b, 1<<20, gjsonFind) }

func gjsonFind(_ testing.TB, body []byte, dst []block.Key) []block.Key { return gjsonKeys(body, dst) }
