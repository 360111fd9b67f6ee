package chatcompletions

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

// genStr returns a string literal of pieces that decode in every way a
// literal may: escapes, surrogates, invalid bytes, whitespace.
func genStr(r *rand.Rand) string {
	pieces := []string{"", "a", "hi there", `\"`, `\\`, `\n`, ` `, `\t`, `\r`, `\b`, `\f`, `\u0000`, `\u00e9`, `\ud83d\ude00`, `\ud800`, "\xff", "é", "😀", "<think>", `\/`, `  \n`, `\\n`, `\\\n`}
	var sb strings.Builder
	n := r.IntN(5)
	for range n {
		sb.WriteString(pieces[r.IntN(len(pieces))])
	}
	return `"` + sb.String() + `"`
}

// genID returns the id of a call or result, of few values so that they
// meet.
func genID(r *rand.Rand) string {
	return []string{`"a"`, `"b"`, `"c"`, `""`, `1`, `null`}[r.IntN(6)]
}

// genBlock returns a content block of any type, well formed or not.
func genBlock(r *rand.Rand, role string) string {
	switch r.IntN(9) {
	case 0:
		return `{"type":"text","text":` + genStr(r) + `}`
	case 1:
		return `{"type":"text"}`
	case 2:
		sig := []string{`"reasoning:x"`, `"sig"`, `"reasoning:"`}[r.IntN(3)]
		return `{"type":"thinking","thinking":` + genStr(r) + `,"signature":` + sig + `}`
	case 3:
		in := []string{``, `,"input":{}`, `,"input":{"q":` + genStr(r) + `}`, `,"input":"x\u00e9"`}[r.IntN(4)]
		name := []string{`"n"`, `"` + strings.Repeat("n", 70) + `"`, `1`}[r.IntN(3)]
		return `{"type":"tool_use","id":` + genID(r) + `,"name":` + name + in + `}`
	case 4, 5:
		c := []string{``, `,"content":` + genStr(r), `,"content":[{"type":"text","text":` + genStr(r) + `},{"type":"image","source":{"type":"url","url":"http://x"}},{"type":"text","text":` + genStr(r) + `}]`}[r.IntN(3)]
		e := []string{``, `,"is_error":true`}[r.IntN(2)]
		return `{"type":"tool_result","tool_use_id":` + genID(r) + c + e + `}`
	case 6:
		return `{"type":"image","source":{"type":"base64","media_type":` + genStr(r) + `,"data":"AAA"}}`
	case 7:
		return `{"type":"redacted_thinking","data":"x"}`
	}
	return `{"type":"image","source":{"type":"url","url":` + genStr(r) + `}}`
}

// genRequest returns a Messages request of random messages, tools and
// options.
func genRequest(r *rand.Rand) []byte {
	var sb strings.Builder
	sb.WriteString(`{"model":"m"`)
	if r.IntN(2) == 0 {
		sb.WriteString(`,"system":`)
		if r.IntN(2) == 0 {
			sb.WriteString(genStr(r))
		} else {
			sb.WriteString(`[{"type":"text","text":` + genStr(r) + `},{"type":"text","text":` + genStr(r) + `}]`)
		}
	}
	sb.WriteString(`,"messages":[`)
	n := r.IntN(6)
	for i := range n {
		if i > 0 {
			sb.WriteString(",")
		}
		role := []string{"user", "assistant", "system"}[r.IntN(3)]
		sb.WriteString(`{"role":"` + role + `","content":`)
		if r.IntN(4) == 0 {
			sb.WriteString(genStr(r))
		} else {
			sb.WriteString("[")
			k := r.IntN(5)
			for j := range k {
				if j > 0 {
					sb.WriteString(",")
				}
				sb.WriteString(genBlock(r, role))
			}
			sb.WriteString("]")
		}
		sb.WriteString("}")
	}
	sb.WriteString("]")
	if r.IntN(2) == 0 {
		sb.WriteString(`,"tools":[{"name":"n","description":` + genStr(r) + `,"input_schema":{"type":"object"}},{"name":"` + strings.Repeat("n", 70) + `","input_schema":{}},{"type":"web_search"}]`)
	}
	if r.IntN(2) == 0 {
		sb.WriteString(`,"tool_choice":{"type":"tool","name":"` + strings.Repeat("n", 70) + `","disable_parallel_tool_use":true}`)
	}
	if r.IntN(2) == 0 {
		sb.WriteString(`,"metadata":{"user_id":` + genStr(r) + `},"stop_sequences":["x"],"temperature":0.5,"max_tokens":500,"stream":true,"thinking":{"type":"enabled","budget_tokens":5000}`)
	}
	sb.WriteString("}")
	return []byte(sb.String())
}

// TestTranslationWritesOnlyWhereItAskedRoom: for random requests, the
// translation is valid JSON and every byte of it is written into the
// memory Grow gave, asked for exactly: nothing is ever allocated behind the
// budget's back.
func TestTranslationWritesOnlyWhereItAskedRoom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		body := genRequest(r)
		var last []byte
		grow := func(p []byte, n int) ([]byte, error) {
			last = make([]byte, len(p), len(p)+n)
			copy(last, p)
			return last, nil
		}
		reasoning := []Reasoning{ReasoningContent, ReasoningField, ReasoningDetails, ReasoningThinkTags, ReasoningNone}[i%5]
		got, err := TranslateRequest(body, RequestOptions{Reasoning: reasoning, ThinkingSwitch: ThinkingSwitch(i % 4), Grow: grow})
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if unsafe.SliceData(got.Body) != unsafe.SliceData(last) {
			t.Fatalf("wrote past the room it asked for: %s", body)
		}
		if !json.Valid(got.Body) {
			t.Fatalf("invalid JSON out of %s: %s", body, got.Body)
		}
	}
}
