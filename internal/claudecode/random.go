package claudecode

import (
	"math/rand/v2"
	"strings"
)

// Random Messages requests, for tests of the translations into other
// APIs: every block type, well formed or not, strings that decode in every
// way a literal may, ids of few values so that calls and results meet.

// randomString returns a string literal of pieces that decode in every way a
// literal may: escapes, surrogates, invalid bytes, whitespace.
func randomString(r *rand.Rand) string {
	pieces := []string{"", "a", "hi there", `\"`, `\\`, `\n`, ` `, `\t`, `\r`, `\b`, `\f`, `\u0000`, `\u00e9`, `\ud83d\ude00`, `\ud800`, "\xff", "é", "😀", "<think>", `\/`, `  \n`, `\\n`, `\\\n`}
	var sb strings.Builder
	n := r.IntN(5)
	for range n {
		sb.WriteString(pieces[r.IntN(len(pieces))])
	}
	return `"` + sb.String() + `"`
}

// randomID returns the id of a call or result, of few values so that they
// meet.
func randomID(r *rand.Rand) string {
	return []string{`"a"`, `"b"`, `"c"`, `""`, `1`, `null`}[r.IntN(6)]
}

// randomBlock returns a content block of any type, well formed or not.
func randomBlock(r *rand.Rand, role string) string {
	switch r.IntN(9) {
	case 0:
		return `{"type":"text","text":` + randomString(r) + `}`
	case 1:
		return `{"type":"text"}`
	case 2:
		sig := []string{`"reasoning:x"`, `"sig"`, `"reasoning:"`}[r.IntN(3)]
		return `{"type":"thinking","thinking":` + randomString(r) + `,"signature":` + sig + `}`
	case 3:
		in := []string{``, `,"input":{}`, `,"input":{"q":` + randomString(r) + `}`, `,"input":"x\u00e9"`}[r.IntN(4)]
		name := []string{`"n"`, `"` + strings.Repeat("n", 70) + `"`, `1`}[r.IntN(3)]
		return `{"type":"tool_use","id":` + randomID(r) + `,"name":` + name + in + `}`
	case 4, 5:
		c := []string{``, `,"content":` + randomString(r), `,"content":[{"type":"text","text":` + randomString(r) + `},{"type":"image","source":{"type":"url","url":"http://x"}},{"type":"text","text":` + randomString(r) + `}]`}[r.IntN(3)]
		e := []string{``, `,"is_error":true`}[r.IntN(2)]
		return `{"type":"tool_result","tool_use_id":` + randomID(r) + c + e + `}`
	case 6:
		return `{"type":"image","source":{"type":"base64","media_type":` + randomString(r) + `,"data":"AAA"}}`
	case 7:
		return `{"type":"redacted_thinking","data":"x"}`
	}
	return `{"type":"image","source":{"type":"url","url":` + randomString(r) + `}}`
}

// RandomRequest returns a Messages request of random messages, tools and
// options.
func RandomRequest(r *rand.Rand) []byte {
	var sb strings.Builder
	sb.WriteString(`{"model":"m"`)
	if r.IntN(2) == 0 {
		sb.WriteString(`,"system":`)
		if r.IntN(2) == 0 {
			sb.WriteString(randomString(r))
		} else {
			sb.WriteString(`[{"type":"text","text":` + randomString(r) + `},{"type":"text","text":` + randomString(r) + `}]`)
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
			sb.WriteString(randomString(r))
		} else {
			sb.WriteString("[")
			k := r.IntN(5)
			for j := range k {
				if j > 0 {
					sb.WriteString(",")
				}
				sb.WriteString(randomBlock(r, role))
			}
			sb.WriteString("]")
		}
		sb.WriteString("}")
	}
	sb.WriteString("]")
	if r.IntN(2) == 0 {
		sb.WriteString(`,"tools":[{"name":"n","description":` + randomString(r) + `,"input_schema":{"type":"object"}},{"name":"` + strings.Repeat("n", 70) + `","input_schema":{}},{"type":"web_search"}]`)
	}
	if r.IntN(2) == 0 {
		sb.WriteString(`,"tool_choice":{"type":"tool","name":"` + strings.Repeat("n", 70) + `","disable_parallel_tool_use":true}`)
	}
	if r.IntN(2) == 0 {
		sb.WriteString(`,"metadata":{"user_id":` + randomString(r) + `},"stop_sequences":["x"],"temperature":0.5,"max_tokens":500,"stream":true,"thinking":{"type":"enabled","budget_tokens":5000}`)
	}
	sb.WriteString("}")
	return []byte(sb.String())
}
