package chatcompletions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// assembled is a Messages stream as a client assembles it.
type assembled struct {
	Blocks     []map[string]any
	StopReason string
	Usage      map[string]any
	Model      string
	ErrType    string
	ErrMessage string
}

// checkStream assembles out and checks the rules every Messages stream
// keeps: UTF-8 throughout (the SDKs decode strictly), message_start
// first, one block open at a time, indices from 0 up, deltas of the open
// block's kind only, no blank text block, a valid JSON input for every
// finished tool_use, message_delta and message_stop last, nothing after
// an error. It returns the first rule broken.
func checkStream(out []byte) (assembled, error) {
	var a assembled
	if !utf8.Valid(out) {
		return a, fmt.Errorf("the stream is not UTF-8: %q", out)
	}
	events := strings.Split(string(out), "\n\n")
	if len(events) == 0 || events[len(events)-1] != "" {
		return a, fmt.Errorf("the stream does not end with a complete event: %q", out)
	}
	open := -1
	var kind string
	var text, input strings.Builder
	state := "start"
	for _, ev := range events[:len(events)-1] {
		name, data, ok := strings.Cut(ev, "\ndata: ")
		if !ok || !strings.HasPrefix(name, "event: ") || strings.Contains(data, "\n") {
			return a, fmt.Errorf("malformed event %q", ev)
		}
		name = strings.TrimPrefix(name, "event: ")
		var d map[string]any
		if err := json.Unmarshal([]byte(data), &d); err != nil {
			return a, fmt.Errorf("event %s: data is not JSON: %v: %s", name, err, data)
		}
		if d["type"] != name {
			return a, fmt.Errorf("event %s carries type %v", name, d["type"])
		}
		if state == "ended" {
			return a, fmt.Errorf("event %s after the end", name)
		}
		switch name {
		case "error":
			e := d["error"].(map[string]any)
			a.ErrType, a.ErrMessage = e["type"].(string), e["message"].(string)
			state = "ended"
		case "message_start":
			if state != "start" {
				return a, fmt.Errorf("message_start twice")
			}
			a.Model = d["message"].(map[string]any)["model"].(string)
			state = "blocks"
		case "content_block_start":
			if state != "blocks" || open >= 0 {
				return a, fmt.Errorf("content_block_start while %s, block %d open", state, open)
			}
			idx := int(d["index"].(float64))
			if idx != len(a.Blocks) {
				return a, fmt.Errorf("block index %d, want %d", idx, len(a.Blocks))
			}
			cb := d["content_block"].(map[string]any)
			kind = cb["type"].(string)
			open = idx
			a.Blocks = append(a.Blocks, cb)
			text.Reset()
			input.Reset()
		case "content_block_delta":
			idx := int(d["index"].(float64))
			if idx != open {
				return a, fmt.Errorf("delta for block %d while %d is open", idx, open)
			}
			delta := d["delta"].(map[string]any)
			want := map[string][]string{"thinking": {"thinking_delta", "signature_delta"}, "text": {"text_delta"}, "tool_use": {"input_json_delta"}}[kind]
			dt := delta["type"].(string)
			if !contains(want, dt) {
				return a, fmt.Errorf("%s into a %s block", dt, kind)
			}
			b := a.Blocks[idx]
			switch dt {
			case "thinking_delta":
				b["thinking"] = b["thinking"].(string) + delta["thinking"].(string)
			case "signature_delta":
				b["signature"] = delta["signature"].(string)
			case "text_delta":
				text.WriteString(delta["text"].(string))
				b["text"] = text.String()
			case "input_json_delta":
				input.WriteString(delta["partial_json"].(string))
			}
		case "content_block_stop":
			idx := int(d["index"].(float64))
			if idx != open {
				return a, fmt.Errorf("stop of block %d while %d is open", idx, open)
			}
			b := a.Blocks[idx]
			switch kind {
			case "text":
				if strings.TrimSpace(text.String()) == "" {
					return a, fmt.Errorf("blank text block %d", idx)
				}
			case "thinking":
				// Empty only when it carries reasoning_details parts.
				sig := b["signature"].(string)
				if b["thinking"] == "" && !strings.HasPrefix(sig, "llmthinking.v1.reasoning.details.") || !strings.HasPrefix(sig, "llmthinking.v1.reasoning.") {
					return a, fmt.Errorf("thinking block %d: %v", idx, b)
				}
			case "tool_use":
				in := input.String()
				if in == "" {
					in = "{}"
				}
				var v map[string]any
				if err := json.Unmarshal([]byte(in), &v); err != nil {
					return a, fmt.Errorf("tool_use %d input %q: %v", idx, in, err)
				}
				b["input"] = v
			}
			open = -1
		case "message_delta":
			if state != "blocks" || open >= 0 {
				return a, fmt.Errorf("message_delta while %s, block %d open", state, open)
			}
			a.StopReason = d["delta"].(map[string]any)["stop_reason"].(string)
			a.Usage = d["usage"].(map[string]any)
			state = "delta"
		case "message_stop":
			if state != "delta" {
				return a, fmt.Errorf("message_stop while %s", state)
			}
			state = "ended"
		default:
			return a, fmt.Errorf("unknown event %s", name)
		}
	}
	if state != "ended" {
		return a, fmt.Errorf("the stream stops while %s", state)
	}
	return a, nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// translate runs an upstream stream through a Reader that reads it in
// the given pieces, and returns the client's stream.
func translate(opts AnswerOptions, pieces ...string) []byte {
	return translateWith(NewStream(opts), pieces...)
}

// translateWith is translate through the Stream s.
func translateWith(s *Stream, pieces ...string) []byte {
	r := messagesapi.NewReader(&piecewise{pieces: pieces}, s)
	var out bytes.Buffer
	buf := make([]byte, 512)
	for i := 0; i < 1<<20; i++ {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return out.Bytes()
}

// piecewise returns its pieces one Read each.
type piecewise struct{ pieces []string }

func (p *piecewise) Read(b []byte) (int, error) {
	if len(p.pieces) == 0 {
		return 0, errEOF
	}
	n := copy(b, p.pieces[0])
	p.pieces[0] = p.pieces[0][n:]
	if p.pieces[0] == "" {
		p.pieces = p.pieces[1:]
	}
	return n, nil
}

// testOptions are the answer options of the tests.
func testOptions() AnswerOptions {
	return AnswerOptions{Model: "claude-sonnet-4-5", Sign: DefaultSign("127.0.0.1:8000"), InputTokens: 7}
}

// sse makes an upstream stream of chunk data.
func sse(data ...string) string {
	var b strings.Builder
	for _, d := range data {
		b.WriteString("data: " + d + "\n\n")
	}
	return b.String()
}

// summary renders the assembled blocks compactly for comparisons.
func (a assembled) summary() string {
	var b strings.Builder
	for _, bl := range a.Blocks {
		switch bl["type"] {
		case "thinking":
			fmt.Fprintf(&b, "[thinking %q]", bl["thinking"])
		case "text":
			fmt.Fprintf(&b, "[text %q]", bl["text"])
		case "tool_use":
			in, _ := json.Marshal(bl["input"])
			fmt.Fprintf(&b, "[tool_use %s %s %s]", bl["id"], bl["name"], in)
		}
	}
	fmt.Fprintf(&b, " %s", a.StopReason)
	if a.ErrType != "" {
		fmt.Fprintf(&b, " error %s: %s", a.ErrType, a.ErrMessage)
	}
	return b.String()
}
