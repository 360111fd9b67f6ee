package thinktags

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/observe"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// testSign is the Sign of every test.
var testSign = DefaultSign("test-backend")

// signature is the signature testSign gives a thinking text.
func signature(text string) string { return testSign(sha256.Sum256([]byte(text))) }

// synthKey is the key of a synthesized block with this text.
func synthKey(text string) block.Key {
	var h block.Hasher
	h.Write([]byte(text))
	return h.Thinking([]byte(signature(text)))
}

// lit is s as a JSON string literal, with '<' and '>' as they are, as
// servers and this package write them.
func lit(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// ev formats one event as the Messages API sends it.
func ev(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

func blockStart(index int, obj string) string {
	return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, index, obj))
}

func blockDelta(index int, delta string) string {
	return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, index, delta))
}

func textDelta(index int, text string) string {
	return blockDelta(index, `{"type":"text_delta","text":`+lit(text)+`}`)
}

func thinkingDelta(index int, text string) string {
	return blockDelta(index, `{"type":"thinking_delta","thinking":`+lit(text)+`}`)
}

func signatureDelta(index int, sig string) string {
	return blockDelta(index, `{"type":"signature_delta","signature":`+lit(sig)+`}`)
}

func blockStop(index int) string {
	return ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index))
}

// textStream is a text block streamed in the given pieces.
func textStream(index int, pieces ...string) string {
	var b strings.Builder
	b.WriteString(blockStart(index, startText))
	for _, p := range pieces {
		b.WriteString(textDelta(index, p))
	}
	b.WriteString(blockStop(index))
	return b.String()
}

// synthThinking is a thinking block as this package synthesizes it, its
// text in the given deltas.
func synthThinking(index int, deltas ...string) string {
	s := blockStart(index, startThinking)
	for _, d := range deltas {
		s += thinkingDelta(index, d)
	}
	return s + signatureDelta(index, signature(strings.Join(deltas, ""))) + blockStop(index)
}

// toolUse is a tool_use block.
func toolUse(index int) string {
	return blockStart(index, `{"type":"tool_use","id":"toolu_01","name":"Bash","input":{}}`) +
		blockDelta(index, `{"type":"input_json_delta","partial_json":"{\"command\": \"ls <dir>\"}"}`) +
		blockStop(index)
}

var (
	messageStart = ev("message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"glm-4.7","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`)
	ping         = ev("ping", `{"type": "ping"}`)
	messageDelta = ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`)
	messageStop  = ev("message_stop", `{"type":"message_stop"}`)

	startThinking = `{"type":"thinking","thinking":"","signature":""}`
	startText     = `{"type":"text","text":""}`
)

// rewrite feeds chunks to a new SSE rewriter, then closes it. Each chunk is
// written from a copy that is scribbled over right after the Write, so a
// rewriter that kept a slice of the caller's buffer gets caught.
func rewrite(t testing.TB, opts Options, chunks ...[]byte) (string, []Block) {
	t.Helper()
	var out bytes.Buffer
	r := NewSSE(&out, opts)
	for _, c := range chunks {
		buf := slices.Clone(c)
		if n, err := r.Write(buf); n != len(c) || err != nil {
			t.Fatalf("Write(%d bytes) = %d, %v", len(c), n, err)
		}
		for i := range buf {
			buf[i] = '#'
		}
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return out.String(), slices.Clone(r.Blocks())
}

// checkStream asserts that stream rewrites to want, reporting blocks,
// whole, cut in two at every byte (with and without an empty Write at the
// cut), and written one byte at a time.
func checkStream(t *testing.T, opts Options, stream, want string, blocks []Block) {
	t.Helper()
	p := []byte(stream)
	check := func(how string, chunks ...[]byte) {
		t.Helper()
		got, gotBlocks := rewrite(t, opts, chunks...)
		if got != want {
			t.Fatalf("%s: got\n%s\nwant\n%s", how, got, want)
		}
		if !slices.Equal(gotBlocks, blocks) {
			t.Fatalf("%s: blocks %v, want %v", how, gotBlocks, blocks)
		}
	}
	check("whole stream", p)
	for i := range p {
		check(fmt.Sprintf("cut at %d (%q|%q)", i, tail(p[:i]), head(p[i:])), p[:i], p[i:])
		check(fmt.Sprintf("cut at %d by an empty Write (%q||%q)", i, tail(p[:i]), head(p[i:])), p[:i], nil, p[i:])
	}
	bytewise := make([][]byte, len(p))
	for i := range p {
		bytewise[i] = p[i : i+1]
	}
	check("bytewise", bytewise...)
}

func head(p []byte) []byte { return p[:min(len(p), 24)] }
func tail(p []byte) []byte { return p[max(0, len(p)-24):] }

// referenceSplit splits a whole text by the rules of the package
// documentation, a byte at a time, and returns its thinking and text in
// order, merged by kind.
func referenceSplit(text string, assumeOpen bool, maxSections int) []Run {
	var runs []Run
	inside, eating, fresh, left := false, false, false, maxSections
	if assumeOpen && left > 0 {
		inside, eating, fresh, left = true, true, true, left-1
	}
	for i := 0; i < len(text); {
		rest := text[i:]
		switch {
		case eating && strings.IndexByte(" \t\r\n", text[i]) >= 0:
			i++
			continue
		case inside && strings.HasPrefix(rest, closeTag):
			inside, eating = false, true
			i += len(closeTag)
			continue
		case inside && fresh && strings.HasPrefix(rest, openTag):
			eating = true
			i += len(openTag)
			continue
		case !inside && left > 0 && strings.HasPrefix(rest, openTag):
			inside, eating, fresh, left = true, true, true, left-1
			i += len(openTag)
			continue
		}
		eating, fresh = false, false
		if n := len(runs); n > 0 && runs[n-1].Thinking == inside {
			runs[n-1].Text = append(runs[n-1].Text, text[i])
		} else {
			runs = append(runs, Run{Thinking: inside, Text: []byte{text[i]}})
		}
		i++
	}
	return runs
}

// merged returns runs with neighbours of a kind joined, their text copied.
func merged(runs []Run) []Run {
	var out []Run
	for _, r := range runs {
		if n := len(out); n > 0 && out[n-1].Thinking == r.Thinking {
			out[n-1].Text = append(out[n-1].Text, r.Text...)
		} else {
			out = append(out, Run{Thinking: r.Thinking, Text: slices.Clone(r.Text)})
		}
	}
	return out
}

func runsString(runs []Run) string {
	var b strings.Builder
	for _, r := range runs {
		if r.Thinking {
			fmt.Fprintf(&b, "T%q ", r.Text)
		} else {
			fmt.Fprintf(&b, "X%q ", r.Text)
		}
	}
	return b.String()
}

// outBlock is a content block as a client accumulates it from a stream.
type outBlock struct {
	Type      string
	Text      string // text, or thinking
	Signature string
	Index     int
}

// readStream reads a rewritten stream as a client would, with the standard
// library, and checks that it is well formed: every data is JSON, blocks
// start at indices 0, 1, 2... in turn, each one's events come between its
// start and its stop, and every start is stopped. It returns the blocks and
// the stream's other events' data. A stream cut short may leave its last
// upstream block unstopped when allowOpen is set.
func readStream(t testing.TB, stream string, allowOpen bool) ([]outBlock, []string) {
	t.Helper()
	stream = strings.ReplaceAll(strings.ReplaceAll(stream, "\r\n", "\n"), "\r", "\n")
	var blocks []outBlock
	var texts [][]byte
	var others []string
	open := -1
	events := strings.Split(stream, "\n\n")
	// What follows the last blank line is an event cut short, which a
	// client drops.
	for _, raw := range events[:len(events)-1] {
		var data []string
		for _, line := range strings.Split(raw, "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				data = append(data, strings.TrimPrefix(d, " "))
			}
		}
		if len(data) == 0 {
			continue
		}
		var e struct {
			Type         string
			Index        *int
			ContentBlock *struct{ Type, Text, Thinking string } `json:"content_block"`
			Delta        *struct{ Type, Text, Thinking, Signature string }
		}
		if err := json.Unmarshal([]byte(strings.Join(data, "\n")), &e); err != nil {
			t.Fatalf("event data is not JSON: %v\n%s", err, raw)
		}
		if !strings.HasPrefix(e.Type, "content_block_") {
			others = append(others, strings.Join(data, "\n"))
			continue
		}
		if e.Index == nil {
			t.Fatalf("content block event without an index: %s", raw)
		}
		switch i := *e.Index; e.Type {
		case "content_block_start":
			if open >= 0 || i != len(blocks) {
				t.Fatalf("block %d starts with block %d open and %d blocks before it:\n%s", i, open, len(blocks), stream)
			}
			blocks = append(blocks, outBlock{Type: e.ContentBlock.Type, Index: i})
			texts = append(texts, nil)
			open = i
		case "content_block_delta":
			if i != open {
				t.Fatalf("delta of block %d with block %d open:\n%s", i, open, stream)
			}
			switch e.Delta.Type {
			case "text_delta":
				texts[i] = append(texts[i], e.Delta.Text...)
			case "thinking_delta":
				texts[i] = append(texts[i], e.Delta.Thinking...)
			case "signature_delta":
				blocks[i].Signature = e.Delta.Signature
			}
		case "content_block_stop":
			if i != open {
				t.Fatalf("stop of block %d with block %d open:\n%s", i, open, stream)
			}
			open = -1
		}
	}
	if open >= 0 && !allowOpen {
		t.Fatalf("block %d is never stopped:\n%s", open, stream)
	}
	for i := range blocks {
		blocks[i].Text = string(texts[i])
	}
	return blocks, others
}

// observed returns the thinking blocks the response observer reports for a
// rewritten stream.
func observed(t testing.TB, stream string) []block.Observed {
	t.Helper()
	var blocks []block.Observed
	o := observe.NewSSE(func(b []block.Observed) { blocks = b })
	o.Write([]byte(stream))
	o.Close(false)
	return blocks
}

// checkKeys asserts that the response observer gives each synthesized block
// the key the rewriter reported. It follows indices up to 1024.
func checkKeys(t testing.TB, stream string, synthesized []Block) {
	t.Helper()
	seen := make(map[int]block.Key)
	for _, b := range observed(t, stream) {
		if b.Kind == block.Thinking {
			seen[b.Index] = b.Key
		}
	}
	for _, b := range synthesized {
		if b.Index > 1024 {
			continue
		}
		if k, ok := seen[b.Index]; !ok || k != b.Key {
			t.Fatalf("block %d: rewriter reported key %v, observer %v (seen %v)", b.Index, b.Key, k, ok)
		}
	}
}
