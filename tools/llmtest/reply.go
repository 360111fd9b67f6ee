package llmtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// reply is one scripted assistant response, before it is rendered as SSE or
// JSON.
type reply struct {
	id           string
	model        string
	blocks       []replyBlock
	stopReason   string
	inputTokens  int
	outputTokens int
	// cacheRead and cacheCreation are reported when set (see CountCache).
	cacheRead, cacheCreation *int
}

// replyBlock is one content block of a reply. kind is the block type.
type replyBlock struct {
	kind      string
	text      string // thinking or text
	signature string
	signed    bool // the block carries a signature key (false for Unsigned)
	data      string
	id, name  string
	input     string // tool_use input as JSON
	fine      bool   // text streamed in deltas of 3 to 5 runes (see fineChunks)
	phase     int    // where the cycle of fineChunks starts
}

// thinkingText is deliberately full of characters that need escaping, so
// that a gateway keying blocks on raw bytes instead of decoded text fails.
func thinkingText(name string, n int) string {
	return fmt.Sprintf("%s thinks #%d: \"plan\" <b>é😀\nstep 2", name, n)
}

// hugeText is the size of the text "[huge]" asks for: larger than any
// event a gateway's observer should buffer.
const hugeText = 3 << 20

// compose scripts the n-th response of u to req: "[tool]" in the last
// message asks for a tool call, "[agent]" for a call of Claude Code's Agent
// tool (which runs a subagent), "[redacted]" for a redacted_thinking block,
// "[huge]" for a text of hugeText bytes (streamed in three deltas). Callers
// hold u.mu.
func (u *Upstream) compose(req *request, n, inputTokens int) *reply {
	script := req.scriptText()
	rep := &reply{
		id:          fmt.Sprintf("msg_%s_%d", u.name, n),
		model:       cmp.Or(u.answerAs, req.model),
		inputTokens: inputTokens,
	}
	section := "" // a Tagged reply's reasoning, written into its text
	if req.thinkingOn() && !slices.Contains(u.neverThinks, req.model) {
		text := thinkingText(u.name, n)
		if u.flavor == Tagged {
			section = u.thinkSection(text)
		} else {
			if req.thinkingDisplay == "omitted" {
				text = ""
			}
			rep.blocks = append(rep.blocks, u.thinkingBlock(text, prefixes(req)[len(req.messages)]))
			if strings.Contains(script, "[redacted]") && u.flavor != Unsigned {
				rep.blocks = append(rep.blocks, u.redactedBlock())
			}
		}
	}
	if tool, input := toolCall(script, u.name); tool != "" {
		if section != "" {
			rep.blocks = append(rep.blocks, u.textBlock(section, n))
		}
		rep.blocks = append(rep.blocks, replyBlock{
			kind:  "tool_use",
			id:    fmt.Sprintf("toolu_%s_%d", u.name, n),
			name:  tool,
			input: input,
		})
		rep.stopReason = "tool_use"
	} else {
		text := section + fmt.Sprintf("%s answer %d.", u.name, n)
		b := u.textBlock(text, n)
		if strings.Contains(script, "[huge]") {
			b.text += strings.Repeat("x", hugeText)
			b.fine = false
		}
		rep.blocks = append(rep.blocks, b)
		rep.stopReason = "end_turn"
	}
	size := 0
	for _, b := range rep.blocks {
		size += len(b.text) + len(b.input)
	}
	rep.outputTokens = 1 + size/4
	return rep
}

// toolCall returns the tool a script asks backend name to call and its
// input as JSON, or "" when it asks for none.
func toolCall(script, name string) (tool, input string) {
	var args map[string]string
	switch {
	case strings.Contains(script, "[agent]"):
		tool, args = "Agent", map[string]string{"description": "Look around", "prompt": "Report what you see, briefly.",
			"subagent_type": "general-purpose"}
	case strings.Contains(script, "[tool]"):
		tool, args = "Bash", map[string]string{"command": "echo " + name}
	default:
		return "", ""
	}
	b, _ := json.Marshal(args)
	return tool, string(b)
}

// textBlock is a text block of the n-th response; a Tagged instance
// streams it in deltas of a few runes.
func (u *Upstream) textBlock(text string, n int) replyBlock {
	return replyBlock{kind: "text", text: text, fine: u.flavor == Tagged, phase: n}
}

// thinkingBlock is a thinking block of text, in an answer to a request
// whose conversation's digest is prefix (see prefixes).
func (u *Upstream) thinkingBlock(text string, prefix []byte) replyBlock {
	b := replyBlock{kind: "thinking", text: text}
	switch u.flavor {
	case Strict:
		b.signed, b.signature = true, u.signer.thinkingSignature(text, prefix)
	case Lenient:
		b.signed, b.signature = true, u.signer.glmSignature(text)
	}
	return b
}

func (u *Upstream) redactedBlock() replyBlock {
	if u.flavor == Lenient {
		return replyBlock{kind: "redacted_thinking", data: u.signer.glmRedactedData()}
	}
	return replyBlock{kind: "redacted_thinking", data: u.signer.redactedData()}
}

// Wire shapes of content blocks, with keys in the API's order.
type (
	thinkingJSON struct {
		Type      string  `json:"type"`
		Thinking  string  `json:"thinking"`
		Signature *string `json:"signature,omitempty"`
	}
	redactedJSON struct {
		Type string `json:"type"`
		Data string `json:"data"`
	}
	textJSON struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	toolUseJSON struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
)

// full is the block as it appears in a JSON response.
func (b replyBlock) full() any {
	switch b.kind {
	case "thinking":
		t := thinkingJSON{Type: b.kind, Thinking: b.text}
		if b.signed {
			t.Signature = &b.signature
		}
		return t
	case "redacted_thinking":
		return redactedJSON{Type: b.kind, Data: b.data}
	case "tool_use":
		return toolUseJSON{Type: b.kind, ID: b.id, Name: b.name, Input: json.RawMessage(b.input)}
	}
	return textJSON{Type: b.kind, Text: b.text}
}

// start is the block as content_block_start announces it.
func (b replyBlock) start() any {
	switch b.kind {
	case "thinking":
		t := thinkingJSON{Type: b.kind}
		if b.signed {
			empty := ""
			t.Signature = &empty
		}
		return t
	case "redacted_thinking":
		return redactedJSON{Type: b.kind, Data: b.data}
	case "tool_use":
		return toolUseJSON{Type: b.kind, ID: b.id, Name: b.name, Input: json.RawMessage("{}")}
	}
	return textJSON{Type: b.kind}
}

// chunks splits s into at most n non-empty pieces of about equal length,
// never inside a rune, so each piece is valid UTF-8 on its own.
func chunks(s string, n int) []string {
	runes := utf8.RuneCountInString(s)
	if runes == 0 {
		return nil
	}
	n = min(n, runes)
	var out []string
	for i := range n {
		size := runes / n
		if i < runes%n {
			size++
		}
		end := 0
		for range size {
			_, w := utf8.DecodeRuneInString(s[end:])
			end += w
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}
