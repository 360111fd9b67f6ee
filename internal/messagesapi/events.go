package messagesapi

import "strconv"

// The events of an Anthropic Messages stream, appended as the API writes
// them: an event line, one data line, a blank line.

// AppendMessageStart appends message_start for the message msg_<id> of the
// model whose string literal is modelLit.
func AppendMessageStart(dst, id, modelLit []byte) []byte {
	dst = append(dst, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_"...)
	dst = append(dst, id...)
	dst = append(dst, `","type":"message","role":"assistant","model":`...)
	dst = append(dst, modelLit...)
	return append(dst, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}`+"\n\n"...)
}

// AppendBlockStartHead appends a content_block_start event up to its
// content_block; BlockStartEnd ends it after the block.
func AppendBlockStartHead(dst []byte, index int) []byte {
	dst = append(dst, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":"...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	return append(dst, `,"content_block":`...)
}

// BlockStartEnd ends a content_block_start event after its block.
const BlockStartEnd = "}\n\n"

// AppendDeltaHead appends an open content_block_delta event up to the
// value of its delta's field; AppendDeltaTail closes it.
func AppendDeltaHead(dst []byte, index int, head string) []byte {
	dst = append(dst, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	return append(dst, head...)
}

// AppendDeltaTail closes a content_block_delta event.
func AppendDeltaTail(dst []byte) []byte { return append(dst, "}}\n\n"...) }

// Heads of the deltas, up to the value of their one field.
const (
	TextDeltaHead      = `,"delta":{"type":"text_delta","text":`
	ThinkingDeltaHead  = `,"delta":{"type":"thinking_delta","thinking":`
	SignatureDeltaHead = `,"delta":{"type":"signature_delta","signature":`
	InputDeltaHead     = `,"delta":{"type":"input_json_delta","partial_json":`
)

// Blocks as content_block_start opens them.
const (
	ThinkingStart = `{"type":"thinking","thinking":"","signature":""}`
	TextStart     = `{"type":"text","text":""}`
)

// AppendBlockStop appends content_block_stop.
func AppendBlockStop(dst []byte, index int) []byte {
	dst = append(dst, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":"...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	return append(dst, "}\n\n"...)
}

// AppendMessageEnd appends message_delta, with the stop reason and the
// usage, and message_stop.
func AppendMessageEnd(dst []byte, stopReason string, u Usage) []byte {
	dst = append(dst, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\""...)
	dst = append(dst, stopReason...)
	dst = append(dst, `","stop_sequence":null},"usage":`...)
	dst = u.AppendJSON(dst)
	return append(dst, "}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"...)
}

// AppendFailure appends an error event of type typ and ends the stream
// (*ended), or nothing once it ended: a stream ends once.
func AppendFailure(dst []byte, ended *bool, typ, msg string) []byte {
	if *ended {
		return dst
	}
	*ended = true
	return AppendErrorEvent(dst, typ, msg)
}

// AppendCut appends the error event of a stream whose upstream's body
// ended before the answer did (see AppendFailure): no answer came when
// the message had not started, else it was cut short.
func AppendCut(dst []byte, started bool, ended *bool) []byte {
	if !started {
		return AppendFailure(dst, ended, "api_error", "the upstream's stream ended without an answer")
	}
	return AppendFailure(dst, ended, "api_error", "the upstream's stream ended before its answer was complete")
}
