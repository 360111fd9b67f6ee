package thinking

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
)

// benchmarkRewrite parses a body and rewrites it with every block given the
// same action, fitted for its backend by fit when there is one, as the
// request path does.
func benchmarkRewrite(b *testing.B, size int, a Action, fit ...func(*Request)) {
	benchmarkParsed(b, fixtureOfSize(b, size), func(req *Request) {
		actions := make([]Action, len(req.Blocks()))
		for i := range actions {
			actions[i] = a
		}
		for _, f := range fit {
			f(req)
		}
		if _, _, err := req.Rewrite(actions); err != nil {
			b.Fatal(err)
		}
	})
}

// benchmarkParsed parses body and hands the request to use, then releases
// it, as the request path does.
func benchmarkParsed(b *testing.B, body []byte, use func(*Request)) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		req, err := Parse(body)
		if err != nil {
			b.Fatal(err)
		}
		use(req)
		req.Release() // the request path recycles parse state too
	}
}

// BenchmarkRewrite256KiBNothingToChange is the steady state: every replayed
// block belongs to the target.
func BenchmarkRewrite256KiBNothingToChange(b *testing.B) { benchmarkRewrite(b, 256<<10, Keep) }

// BenchmarkRewrite1MiB strips every block, as after a switch.
func BenchmarkRewrite1MiB(b *testing.B) { benchmarkRewrite(b, 1<<20, Strip) }

// BenchmarkRewrite1MiBNothingToChange is the steady state on a long session.
func BenchmarkRewrite1MiBNothingToChange(b *testing.B) { benchmarkRewrite(b, 1<<20, Keep) }

// BenchmarkResume1MiBNextRequest reads the next request of a long session
// as its thread does: the messages it shares with the previous request are
// recognized by their digests and taken from the checkpoint, the new ones
// read, and the History of the whole request made.
func BenchmarkResume1MiBNextRequest(b *testing.B) {
	body := fixtureOfSize(b, 1<<20)
	req := mustParse(b, body)
	h := req.History()
	var cp Checkpoint
	req.Save(&cp)
	req.Release()
	next := nextRequest(b, body, 0)
	b.SetBytes(int64(len(next)))
	b.ReportAllocs()
	for b.Loop() {
		req, err := Resume(next, follow(h, &cp))
		if err != nil {
			b.Fatal(err)
		}
		if req.Restored() == 0 {
			b.Fatal("the next request was not resumed")
		}
		req.History()
		req.Release()
	}
}

// BenchmarkHistory1MiB makes the History of a long session read in full:
// the digests of every message, as a request no thread knows pays them.
func BenchmarkHistory1MiB(b *testing.B) {
	body := fixtureOfSize(b, 1<<20)
	req := mustParse(b, body)
	defer req.Release()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		req.History()
	}
}

// BenchmarkReadCold1MiB reads a long session no thread knows, as a
// request of a client without a session is read the first time: its
// structure, its blocks' keys and the digests of its History. The body is
// the overhead tool's (the capture as Claude Code sent it, indented,
// grown to 1 MiB: 519 messages, 259 thinking blocks); the target is 3 GB/s.
func BenchmarkReadCold1MiB(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join(fixtureDir, "capture-3-continue-replays-thinking.json"))
	if err != nil {
		b.Fatal(err)
	}
	body, err := claudecode.GrowHistory(raw, 1<<20)
	if err != nil {
		b.Fatal(err)
	}
	benchmarkParsed(b, body, func(req *Request) { req.History() })
}

// BenchmarkRewrite1MiBThinkingBack strips every block for a backend that
// wants thinking back on every assistant message and takes only adaptive
// thinking, as after a switch to one: each message gets the empty block in
// front, and the config changes type.
func BenchmarkRewrite1MiBThinkingBack(b *testing.B) {
	benchmarkRewrite(b, 1<<20, Strip, func(r *Request) {
		r.WantThinkingBack(ThinkingBackEverywhere)
		r.Retype("adaptive")
	})
}

// BenchmarkResumeOpening reads a body whose system prompt and tools come
// before its messages, about 4 KB of them in many short strings, as the
// whole-process bench sends them: read in full, and taken from Heads,
// which remember its opening.
func BenchmarkResumeOpening(b *testing.B) {
	tool := `{"name":"Tool","description":"Runs it.","input_schema":{"type":"object","properties":{"command":{"type":"string","description":"The command"},` +
		`"timeout":{"type":"number"}},"required":["command"],"additionalProperties":false}}`
	tools := `"tools":[` + strings.Repeat(tool+",", 15) + tool + `]`
	body := openedWith(strings.Repeat("You are a careful assistant. ", 50), tools, model, enabled, stream)
	for _, bc := range []struct {
		name  string
		heads *Heads
	}{{"read", nil}, {"remembered", new(Heads)}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				req, err := ResumeWith(body, Resumption{Heads: bc.heads})
				if err != nil {
					b.Fatal(err)
				}
				req.Release()
			}
		})
	}
}
