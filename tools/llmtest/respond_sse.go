package llmtest

import "net/http"

// Event payloads of a Messages API stream, keys in the API's order.
type (
	messageStartJSON struct {
		Type    string      `json:"type"`
		Message messageJSON `json:"message"`
	}
	typeOnlyJSON struct {
		Type string `json:"type"`
	}
	blockStartJSON struct {
		Type         string `json:"type"`
		Index        int    `json:"index"`
		ContentBlock any    `json:"content_block"`
	}
	blockDeltaJSON struct {
		Type  string `json:"type"`
		Index int    `json:"index"`
		Delta any    `json:"delta"`
	}
	blockStopJSON struct {
		Type  string `json:"type"`
		Index int    `json:"index"`
	}
	thinkingDeltaJSON struct {
		Type     string `json:"type"`
		Thinking string `json:"thinking"`
	}
	signatureDeltaJSON struct {
		Type      string `json:"type"`
		Signature string `json:"signature"`
	}
	textDeltaJSON struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	inputJSONDeltaJSON struct {
		Type        string `json:"type"`
		PartialJSON string `json:"partial_json"`
	}
	messageDeltaJSON struct {
		Type  string `json:"type"`
		Delta struct {
			StopReason   string  `json:"stop_reason"`
			StopSequence *string `json:"stop_sequence"`
		} `json:"delta"`
		Usage struct {
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	}
)

// writeStream writes rep as server-sent events, flushing each event on its own.
// h, when set, pauses the stream (see HoldStream); cut, when not 0, breaks
// the connection after that many events (see CutNextStream).
func (a answer) writeStream(rep *reply, h *hold, cut int) {
	hdr := a.w.Header()
	hdr.Set("Content-Type", "text/event-stream; charset=utf-8")
	hdr.Set("Cache-Control", "no-cache")
	a.u.finish(a.rec, http.StatusOK, "")
	a.w.WriteHeader(http.StatusOK)
	flusher, _ := a.w.(http.Flusher)
	sent := 0
	send := func(event string, v any) {
		if cut > 0 && sent == cut {
			// The server closes the connection without ending the body.
			panic(http.ErrAbortHandler)
		}
		sent++
		a.write([]byte("event: " + event + "\ndata: " + string(a.u.marshal(v)) + "\n\n"))
		if flusher != nil {
			flusher.Flush()
		}
	}

	start := rep.message()
	start.Content = []any{}
	start.StopReason = nil
	start.Usage.OutputTokens = 1
	send("message_start", messageStartJSON{Type: "message_start", Message: start})
	if h != nil && !h.afterBlocks {
		a.wait(h)
	}
	send("ping", typeOnlyJSON{Type: "ping"})
	for i, b := range rep.blocks {
		send("content_block_start", blockStartJSON{Type: "content_block_start", Index: i, ContentBlock: b.start()})
		for _, d := range b.deltas() {
			send("content_block_delta", blockDeltaJSON{Type: "content_block_delta", Index: i, Delta: d})
		}
		send("content_block_stop", blockStopJSON{Type: "content_block_stop", Index: i})
	}
	if h != nil && h.afterBlocks {
		a.wait(h)
	}
	var md messageDeltaJSON
	md.Type = "message_delta"
	md.Delta.StopReason = rep.stopReason
	md.Usage.OutputTokens = rep.outputTokens
	send("message_delta", md)
	send("message_stop", typeOnlyJSON{Type: "message_stop"})
}

// wait pauses the stream on h and records a hold that timed out.
func (a answer) wait(h *hold) {
	if h.wait(a.r.Context(), a.u.closed) {
		a.u.mu.Lock()
		a.rec.HoldTimedOut = true
		a.u.mu.Unlock()
	}
}

// deltas are the content_block_delta payloads of b: thinking in three
// chunks then its signature last, text in three chunks (or in pieces of a
// few runes, see fineChunks), tool input in three partial_json chunks.
func (b replyBlock) deltas() []any {
	var out []any
	switch b.kind {
	case "thinking":
		for _, c := range chunks(b.text, 3) {
			out = append(out, thinkingDeltaJSON{Type: "thinking_delta", Thinking: c})
		}
		if b.signed {
			out = append(out, signatureDeltaJSON{Type: "signature_delta", Signature: b.signature})
		}
	case "text":
		pieces := chunks(b.text, 3)
		if b.fine {
			pieces = fineChunks(b.text, b.phase)
		}
		for _, c := range pieces {
			out = append(out, textDeltaJSON{Type: "text_delta", Text: c})
		}
	case "tool_use":
		for _, c := range chunks(b.input, 3) {
			out = append(out, inputJSONDeltaJSON{Type: "input_json_delta", PartialJSON: c})
		}
	}
	return out
}
