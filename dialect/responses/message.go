package responses

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// messageOf returns the Messages answer whose content the Messages stream
// events give: the translation of a whole response is its stream's, read
// back, so that an answer has the same blocks (and the same signatures)
// streamed or not. The events are the Stream's own: a data line each.
func messageOf(events, id, modelLit []byte, stop string, u messagesapi.Usage, size int) []byte {
	out := make([]byte, 0, len(events)/2+size/4+256)
	out = append(out, `{"id":"msg_`...)
	out = append(out, id...)
	out = append(out, `","type":"message","role":"assistant","model":`...)
	out = append(out, modelLit...)
	out = append(out, `,"content":[`...)
	var name [32]byte
	var sig, input []byte
	blocks := 0
	open := none
	for len(events) > 0 {
		ev, rest, _ := bytes.Cut(events, []byte("\n\n"))
		events = rest
		_, data, ok := bytes.Cut(ev, []byte("data: "))
		if !ok {
			continue
		}
		v := jsonscan.Parse(data)
		switch string(v.Get("type").Name(&name)) {
		case "content_block_start":
			if blocks > 0 {
				out = append(out, ',')
			}
			blocks++
			b := v.Get("content_block")
			switch string(b.Get("type").Name(&name)) {
			case "thinking":
				open, sig = thinkingBlock, sig[:0]
				out = append(out, `{"type":"thinking","thinking":"`...)
			case "text":
				open = textBlock
				out = append(out, `{"type":"text","text":"`...)
			default:
				open, input = toolBlock, input[:0]
				out = append(out, `{"type":"tool_use","id":`...)
				out = append(out, b.Get("id")...)
				out = append(out, `,"name":`...)
				out = append(out, b.Get("name")...)
				out = append(out, `,"input":`...)
			}
		case "content_block_delta":
			d := v.Get("delta")
			switch string(d.Get("type").Name(&name)) {
			case "text_delta":
				out = appendInner(out, d.Get("text"))
			case "thinking_delta":
				out = appendInner(out, d.Get("thinking"))
			case "signature_delta":
				sig = append(sig[:0], d.Get("signature")...)
			case "input_json_delta":
				input, _ = jsonstr.Append(input, d.Get("partial_json"))
			}
		case "content_block_stop":
			switch open {
			case thinkingBlock:
				out = append(out, `","signature":`...)
				out = append(out, sig...)
				out = append(out, '}')
			case textBlock:
				out = append(out, `"}`...)
			case toolBlock:
				if len(input) == 0 {
					input = append(input, "{}"...)
				}
				out = append(append(out, input...), '}')
			}
			open = none
		}
	}
	out = append(out, `],"stop_reason":"`...)
	out = append(out, stop...)
	out = append(out, `","stop_sequence":null,"usage":`...)
	out = u.AppendJSON(out)
	return append(out, '}')
}

// appendInner appends what is inside a string literal, still escaped:
// pieces of literals joined so make one.
func appendInner(dst []byte, lit jsonscan.Value) []byte {
	if lit.Kind() != jsonscan.String {
		return dst
	}
	return append(dst, lit[1:len(lit)-1]...)
}
