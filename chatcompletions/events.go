package chatcompletions

import "strconv"

// The events of an Anthropic Messages stream, appended as the API writes
// them: an event line, one data line, a blank line.

func appendMessageStart(dst, id, modelLit []byte) []byte {
	dst = append(dst, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_"...)
	dst = append(dst, id...)
	dst = append(dst, `","type":"message","role":"assistant","model":`...)
	dst = append(dst, modelLit...)
	return append(dst, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}`+"\n\n"...)
}

// appendBlockStartHead appends a content_block_start event up to its
// content_block; blockStartEnd ends it after the block.
func appendBlockStartHead(dst []byte, index int) []byte {
	dst = append(dst, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":"...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	return append(dst, `,"content_block":`...)
}

// blockStartEnd ends a content_block_start event after its block.
const blockStartEnd = "}\n\n"

// appendDeltaHead appends an open content_block_delta event up to the
// value of its delta's field; appendDeltaTail closes it.
func appendDeltaHead(dst []byte, index int, head string) []byte {
	dst = append(dst, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	return append(dst, head...)
}

func appendDeltaTail(dst []byte) []byte { return append(dst, "}}\n\n"...) }

// Heads of the deltas, up to the value of their one field.
const (
	textDeltaHead      = `,"delta":{"type":"text_delta","text":`
	thinkingDeltaHead  = `,"delta":{"type":"thinking_delta","thinking":`
	signatureDeltaHead = `,"delta":{"type":"signature_delta","signature":`
	inputDeltaHead     = `,"delta":{"type":"input_json_delta","partial_json":`
)

// Blocks as content_block_start opens them.
const (
	thinkingStart = `{"type":"thinking","thinking":"","signature":""}`
	textStart     = `{"type":"text","text":""}`
)

func appendBlockStop(dst []byte, index int) []byte {
	dst = append(dst, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":"...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	return append(dst, "}\n\n"...)
}

func appendMessageEnd(dst []byte, stopReason string, u usage) []byte {
	dst = append(dst, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\""...)
	dst = append(dst, stopReason...)
	dst = append(dst, `","stop_sequence":null},"usage":`...)
	dst = u.appendJSON(dst)
	return append(dst, "}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"...)
}
