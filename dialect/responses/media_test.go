package responses

import (
	"strings"
	"testing"
)

// TestToolResultsCarryTheirMedia: a tool result with images or documents
// (Claude Code's Read of an image or a PDF) goes as a function_call_output
// whose output is the array of input parts the API takes, in the result's
// order; an error is said so first; one of text alone stays a string; a
// source the API has no form for goes nowhere; nothing of the result is
// repeated in a user message.
func TestToolResultsCarryTheirMedia(t *testing.T) {
	call := `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/p/a.pdf"}}]}`
	result := func(content string, isError bool) string {
		e := ""
		if isError {
			e = `,"is_error":true`
		}
		return `{"model":"m","messages":[{"role":"user","content":"read it"},` + call +
			`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":` + content + e + `},{"type":"text","text":"and?"}]}]}`
	}
	const pdf = `{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0x"}}`
	const png = `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0K"}}`
	const after = `,{"type":"message","role":"user","content":[{"type":"input_text","text":"and?"}]}],"store":false}`
	for _, tt := range []struct {
		name, content string
		isError       bool
		output        string
	}{
		{"a PDF", `[` + pdf + `]`, false,
			`[{"type":"input_file","filename":"document.pdf","file_data":"data:application/pdf;base64,JVBERi0x"}]`},
		{"text, an image, documents", `[{"type":"text","text":"page \"1\""},` + png +
			`,{"type":"image","source":{"type":"url","url":"https://x/y.png"}},{"type":"document","source":{"type":"url","url":"https://x/y.pdf"}}` +
			`,{"type":"document","source":{"type":"text","media_type":"text/plain","data":"notes\n"}}` +
			`,{"type":"document","source":{"type":"content","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]`, false,
			`[{"type":"input_text","text":"page \"1\""},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0K"},` +
				`{"type":"input_image","image_url":"https://x/y.png"},{"type":"input_file","file_url":"https://x/y.pdf"},` +
				`{"type":"input_text","text":"notes\n"},{"type":"input_text","text":"a\n\nb"}]`},
		{"an error with text", `[{"type":"text","text":"too big"},` + png + `]`, true,
			`[{"type":"input_text","text":"Error: too big"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0K"}]`},
		{"an error with an image first", `[` + png + `]`, true,
			`[{"type":"input_text","text":"Error:"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0K"}]`},
		{"text alone", `[{"type":"text","text":"a"},{"type":"text","text":"b"}]`, false, `"a\n\nb"`},
		{"a file of the Files API", `[{"type":"text","text":"a"},{"type":"document","source":{"type":"file","file_id":"file_01"}},{"type":"image","source":{"type":"file","file_id":"file_02"}}]`, false, `"a"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := translate(t, result(tt.content, tt.isError), RequestOptions{})
			want := `{"type":"function_call_output","call_id":"toolu_1","output":` + tt.output + `}` + after
			if !strings.HasSuffix(got, want) {
				t.Errorf("got  %s\nwant it to end %s", got, want)
			}
		})
	}
}

// TestUserMediaWithoutASource: an image or document of a user message
// whose source the API has no form for goes nowhere, and a message left
// without parts goes neither.
func TestUserMediaWithoutASource(t *testing.T) {
	got := translate(t, `{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"f"}},{"type":"document","source":{"type":"file","file_id":"g"}},{"type":"text","text":"hi"}]},`+
		`{"role":"assistant","content":"ok"},{"role":"user","content":[{"type":"document","source":{"type":"file","file_id":"h"}}]}]}`, RequestOptions{})
	want := `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}],"store":false}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestMaxOutputTokensNoFewerThanTheAPITakes: Claude Code's max_tokens 1
// (its quota check, warm-up and key test) goes as the API's least, 16;
// more goes as asked, capped; none goes as none.
func TestMaxOutputTokensNoFewerThanTheAPITakes(t *testing.T) {
	for _, tt := range []struct {
		maxTokens string
		cap       int
		want      string
	}{
		{`1`, 0, `"max_output_tokens":16,`},
		{`15`, 0, `"max_output_tokens":16,`},
		{`16`, 0, `"max_output_tokens":16,`},
		{`1`, 8000, `"max_output_tokens":16,`},
		{`17`, 0, `"max_output_tokens":17,`},
		{`32000`, 20, `"max_output_tokens":20,`},
		{`0`, 0, ``},
	} {
		got := translate(t, `{"model":"m","max_tokens":`+tt.maxTokens+`,"messages":[{"role":"user","content":"quota"}]}`, RequestOptions{MaxTokens: tt.cap})
		if tt.want == "" && strings.Contains(got, "max_output_tokens") || !strings.Contains(got, tt.want) {
			t.Errorf("max_tokens %s, cap %d: %s", tt.maxTokens, tt.cap, got)
		}
	}
}
