package observe

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/eventstream"
)

// FuzzSSE checks that no input panics the observer, that however the input
// is cut into Writes it reports the same, and that for a stream whose
// events are all valid JSON it agrees with referenceSSE.
func FuzzSSE(f *testing.F) {
	fix := string(readFixture(f, fixture.file))
	for _, s := range []string{
		fix,
		strings.ReplaceAll(fix, "\n", "\r\n"),
		strings.ReplaceAll(fix, "\n", "\r"),
		"\xef\xbb\xbf" + messageStart + blockStart(0, startThinking) + signatureDelta(0, `"s"`) + blockStop(0) + messageStop,
		blockStart(0, `{"type":"thinking","thinking":"a\u00e9\ud83d\ude00"}`) + thinkingDelta(0, `"\n\"x\""`) + ": c\n" + blockStop(0),
		blockStart(1, `{"type":"redacted_thinking","data":"r"}`) + blockStop(1) + ev("error", `{"type":"error"}`),
		"data: {\"type\":\"content_block_start\",\ndata: \"index\":0,\"content_block\":{\"type\":\"thinking\"}}\n\n" + blockStop(0) + messageStop,
		`data: {"t\u0079pe":"content_block_start","index":2,"index":0,"content_block":{"type":"thinking"}}` + "\n\n" + blockStop(0),
		`data: {"type":"content_block_delta","index":3,"type":"content_block_start","content_block":{"type":"thinking"}}` + "\n\n" + blockStop(3),
	} {
		f.Add([]byte(s), []byte{7, 0, 255, 1, 30})
	}
	f.Fuzz(func(t *testing.T, stream, cuts []byte) {
		whole := observe(t, false, stream)
		chunked := observe(t, false, cut(stream, cuts)...)
		if !whole.equal(chunked) {
			t.Fatalf("whole stream: %v; cut by %v: %v", whole, cuts, chunked)
		}
		if want, ok := referenceSSE(stream); ok && !whole.equal(want) {
			t.Fatalf("observer: %v; reference: %v", whole, want)
		}
	})
}

// cut splits p into chunks whose lengths are the bytes of cuts, in turn,
// then the rest. Zero-length chunks are kept: a Write of nothing must not
// change anything either.
func cut(p, cuts []byte) [][]byte {
	var chunks [][]byte
	for _, c := range cuts {
		n := min(int(c), len(p))
		chunks = append(chunks, p[:n])
		p = p[n:]
	}
	return append(chunks, p)
}

// referenceSSE is a slow, independent reading of a stream, built on the
// standard library: strings for the framing, encoding/json for the events.
// It reports false when the stream holds an event that is not valid JSON,
// where the observer is lenient, or is too large to follow.
func referenceSSE(stream []byte) (result, bool) {
	if len(stream) >= eventstream.MaxEvent {
		return result{}, false
	}
	text := strings.TrimPrefix(string(stream), "\xef\xbb\xbf")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	lines := strings.Split(text, "\n")
	lines = lines[:len(lines)-1] // unterminated

	r := reference{open: map[int]*refBlock{}}
	var data []string
	errEvent := false
	for _, line := range lines {
		if r.done {
			break
		}
		if line == "" {
			switch {
			case errEvent:
				r.done = true
			case data != nil && r.unfollowedDelta(data[0]):
				// Decided on its leading bytes, whatever follows.
			case data != nil:
				joined := strings.Join(data, "\n")
				if !json.Valid([]byte(joined)) {
					return result{}, false
				}
				r.event(joined)
			}
			data, errEvent = nil, false
			continue
		}
		field, value, found := strings.Cut(line, ":")
		if found && field == "" {
			continue
		}
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			data = append(data, value)
		case "event":
			errEvent = value == "error"
		}
	}
	if !r.done {
		r.result = reported(r.finished...)
	}
	return r.result, true
}

type reference struct {
	open     map[int]*refBlock
	finished []block.Observed
	done     bool
	result   result
}

type refBlock struct {
	kind      block.Kind
	text, sig string
	data      string
}

var indexPattern = regexp.MustCompile(`^[0-9]{1,4}$`)

// unfollowedDelta reports whether an event's first data line starts as a
// delta of a block that is not open: the observer skips such an event
// without reading the rest.
func (r *reference) unfollowedDelta(first string) bool {
	rest, ok := strings.CutPrefix(first, `{"type":"content_block_delta","index":`)
	if !ok {
		return false
	}
	lit, _, ok := strings.Cut(rest, ",")
	if !ok || !regexp.MustCompile(`^(0|[1-9][0-9]{0,8})$`).MatchString(lit) {
		return false
	}
	n, _ := strconv.Atoi(lit)
	return n <= maxIndex && r.open[n] == nil
}

func refIndex(raw json.RawMessage) (int, bool) {
	if !indexPattern.Match(raw) {
		return 0, false
	}
	n, _ := strconv.Atoi(string(raw))
	return n, n <= maxIndex
}

// refString decodes an optional string field: absent and null are empty.
func refString(obj map[string]json.RawMessage, key string) (string, bool) {
	var s string
	raw, ok := obj[key]
	if !ok {
		return "", true
	}
	return s, json.Unmarshal(raw, &s) == nil
}

func refObject(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	return obj, json.Unmarshal(raw, &obj) == nil && obj != nil
}

func (r *reference) fail() { r.done, r.result = true, result{} }

func (r *reference) event(data string) {
	ev, ok := refObject(json.RawMessage(data))
	if !ok {
		return
	}
	typ, _ := refString(ev, "type")
	index, indexOK := refIndex(ev["index"])
	switch typ {
	case "content_block_start":
		if !indexOK {
			return
		}
		delete(r.open, index)
		cb, ok := refObject(ev["content_block"])
		if !ok {
			return
		}
		cbType, _ := refString(cb, "type")
		var b refBlock
		var okText, okSig bool
		switch cbType {
		case "thinking":
			b.kind = block.Thinking
			b.text, okText = refString(cb, "thinking")
			b.sig, okSig = refString(cb, "signature")
		case "redacted_thinking":
			b.kind = block.Redacted
			b.data, okText = refString(cb, "data")
			okSig = true
		default:
			return
		}
		if len(r.open) == maxOpen || !okText || !okSig || len(b.sig) > maxSignature {
			r.fail()
			return
		}
		r.open[index] = &b
	case "content_block_delta":
		b := r.open[index]
		if !indexOK || b == nil || b.kind != block.Thinking {
			return
		}
		delta, ok := refObject(ev["delta"])
		if !ok {
			return
		}
		var okValue bool
		switch deltaType, _ := refString(delta, "type"); deltaType {
		case "thinking_delta":
			var s string
			s, okValue = refString(delta, "thinking")
			b.text += s
		case "signature_delta":
			b.sig, okValue = refString(delta, "signature")
			okValue = okValue && len(b.sig) <= maxSignature
		default:
			return
		}
		if !okValue {
			r.fail()
		}
	case "content_block_stop":
		b := r.open[index]
		if !indexOK || b == nil {
			return
		}
		if len(r.finished) == maxFinished {
			r.fail()
			return
		}
		key := redactedKey(b.data)
		if b.kind == block.Thinking {
			key = thinkingKey(b.text, b.sig)
		}
		r.finished = append(r.finished, block.Observed{Kind: b.kind, Index: index, Key: key})
		delete(r.open, index)
	case "message_stop":
		r.done, r.result = true, reported(r.finished...)
	case "error":
		r.fail()
	}
}

// FuzzJSON checks that no body panics the observer and that it agrees with
// referenceJSON, whether or not the body is gzipped.
func FuzzJSON(f *testing.F) {
	f.Add(readFixture(f, messageFixture.file))
	for _, s := range []string{
		`{"type":"message","content":[{"type":"thinking","thinking":"a\nb","signature":"s"},{"type":"redacted_thinking","data":"d"}]}`,
		`{"t\u0079pe":"message","content":[1,null,{"type":"thinking"},{"type":"thinking","thinking":null,"thinking":"x"}]}`,
		`{"type":"error","error":{"type":"api_error","message":"x"}}`,
		`{"type":"message","content":[{"type":"thinking","thinking":7}]}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	// One writer for every run: a new one costs far more than a run.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 1<<19 {
			return // past the limit below, gzipped or not
		}
		want, wantErr := referenceJSON(body)
		got, err := observeJSON(t, 1<<20, "", body, 0)
		if (err != nil) != (wantErr != nil) || !slices.Equal(got, want) {
			t.Fatalf("observer: %v, %v; reference: %v, %v", got, err, want, wantErr)
		}
		gz.Reset()
		zw.Reset(&gz)
		if _, err := zw.Write(body); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		unzipped, gzErr := observeJSON(t, 1<<20, "gzip", gz.Bytes(), 0)
		if (gzErr != nil) != (err != nil) || !slices.Equal(unzipped, got) {
			t.Fatalf("gzipped: %v, %v; plain: %v, %v", unzipped, gzErr, got, err)
		}
	})
}

// referenceJSON reads a message body with encoding/json.
func referenceJSON(body []byte) ([]block.Observed, error) {
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(body, &msg); err != nil {
		return nil, err
	}
	if typ, _ := refString(msg, "type"); typ != "message" {
		return nil, errNotMessage
	}
	var content []json.RawMessage
	if raw := msg["content"]; len(raw) == 0 || raw[0] != '[' {
		return nil, errNotMessage
	} else if err := json.Unmarshal(raw, &content); err != nil {
		return nil, err
	}
	var blocks []block.Observed
	for i, raw := range content {
		b, ok := refObject(raw)
		if !ok {
			continue
		}
		switch typ, _ := refString(b, "type"); typ {
		case "thinking":
			text, okText := refString(b, "thinking")
			sig, okSig := refString(b, "signature")
			if !okText || !okSig {
				return nil, errNotMessage
			}
			blocks = append(blocks, thinking(i, text, sig))
		case "redacted_thinking":
			data, ok := refString(b, "data")
			if !ok {
				return nil, errNotMessage
			}
			blocks = append(blocks, redacted(i, data))
		}
	}
	return blocks, nil
}

var errNotMessage = errors.New("reference: not a message")
