package responsesjudge

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// client starts a mock of the API for the test, and returns it with an
// OpenAI SDK client of it.
func client(t *testing.T) (*llmtest.ResponsesUpstream, openai.Client) {
	u := llmtest.NewResponsesUpstream("oa")
	t.Cleanup(u.Close)
	return u, openai.NewClient(option.WithBaseURL(u.URL()+"/v1"), option.WithAPIKey("sk-judge"), option.WithMaxRetries(0))
}

var bash = responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{Name: "Bash", Description: openai.String("Run a command"),
	Parameters: map[string]any{"type": "object", "properties": map[string]any{"command": map[string]any{"type": "string"}},
		"required": []string{"command"}, "additionalProperties": false},
	Strict: openai.Bool(true)}}

// params asks, statelessly, for the encrypted reasoning and its summary,
// offering Bash.
func params(input responses.ResponseInputParam) responses.ResponseNewParams {
	return responses.ResponseNewParams{Model: "gpt-5", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		Store: openai.Bool(false), Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
		Reasoning: shared.ReasoningParam{Effort: shared.ReasoningEffortLow, Summary: shared.ReasoningSummaryAuto},
		Tools:     []responses.ToolUnionParam{bash}, MaxOutputTokens: openai.Int(2048)}
}

// send makes one turn, streamed or not, and returns the response as the
// SDK has it: decoded whole, or put together from the stream's events.
func send(t *testing.T, c openai.Client, stream bool, input responses.ResponseInputParam) *responses.Response {
	t.Helper()
	var r *responses.Response
	if stream {
		r = accumulate(t, c.Responses.NewStreaming(context.Background(), params(input)))
	} else {
		var err error
		if r, err = c.Responses.New(context.Background(), params(input)); err != nil {
			t.Fatalf("the SDK refused the answer: %s", describe(err))
		}
	}
	if extra := responseExtra(r); len(extra) > 0 {
		t.Errorf("members of the response the SDK does not know: %v", extra)
	}
	return r
}

// describe returns an error with the message of OpenAI's envelope, when
// it is one.
func describe(err error) string {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return err.Error() + ": " + apiErr.Message
	}
	return err.Error()
}

// responseExtra returns the members of r the SDK does not know, its output
// items read as their variants.
func responseExtra(r *responses.Response) []string {
	extra := extraFields(reflect.ValueOf(r), "")
	for _, item := range r.Output {
		extra = append(extra, extraFields(reflect.ValueOf(item.AsAny()), "output."+item.ID)...)
	}
	return extra
}

// accumulate reads a stream as SDK clients do: each event decoded as its
// type, none with a member the SDK does not know, all fed to the SDK's
// ResponseAccumulator; the deltas must add up to what the done events and
// the completed response say, and the response the accumulator rebuilds
// from the done items must be the completed one.
func accumulate(t *testing.T, s *ssestream.Stream[responses.ResponseStreamEventUnion]) *responses.Response {
	t.Helper()
	var acc responses.ResponseAccumulator
	var final *responses.Response
	deltas, done := make(map[string]string), make(map[string]string)
	for s.Next() {
		ev := s.Current()
		if extra := extraFields(reflect.ValueOf(ev.AsAny()), ev.Type); len(extra) > 0 {
			t.Errorf("members the SDK does not know: %v", extra)
		}
		var server responses.ResponsesServerEventUnion
		if err := json.Unmarshal([]byte(ev.RawJSON()), &server); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
		if err := acc.AddEvent(server); err != nil {
			t.Fatalf("the SDK's accumulator refused %s: %v", ev.RawJSON(), err)
		}
		switch e := ev.AsAny().(type) {
		case responses.ResponseReasoningSummaryTextDeltaEvent:
			deltas[e.ItemID] += e.Delta
		case responses.ResponseReasoningSummaryTextDoneEvent:
			done[e.ItemID] = e.Text
		case responses.ResponseTextDeltaEvent:
			deltas[e.ItemID] += e.Delta
		case responses.ResponseTextDoneEvent:
			done[e.ItemID] = e.Text
		case responses.ResponseFunctionCallArgumentsDeltaEvent:
			deltas[e.ItemID] += e.Delta
		case responses.ResponseFunctionCallArgumentsDoneEvent:
			done[e.ItemID] = e.Arguments
		case responses.ResponseCompletedEvent:
			final = &e.Response
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("the SDK refused the stream: %s", describe(err))
	}
	if final == nil || acc.Snapshot().TerminalEvent != "response.completed" {
		t.Fatalf("the stream did not complete: %+v", acc.Snapshot())
	}
	if !maps.Equal(deltas, done) {
		t.Errorf("the deltas %v do not add up to %v", deltas, done)
	}
	rebuilt, err := acc.ReconstructedResponse()
	if err != nil || len(rebuilt.Output) != len(final.Output) {
		t.Fatalf("the accumulator rebuilt %+v, %v", rebuilt, err)
	}
	for i, item := range final.Output {
		if rebuilt.Output[i].RawJSON() != item.RawJSON() {
			t.Errorf("output %d was done as %s, completed as %s", i, rebuilt.Output[i].RawJSON(), item.RawJSON())
		}
	}
	return final
}

// next returns the input of the next turn: input, each output item as the
// SDK turns it into an input item, and an output for each call.
func next(input responses.ResponseInputParam, r *responses.Response) responses.ResponseInputParam {
	var outputs responses.ResponseInputParam
	for _, item := range r.Output {
		switch item.Type {
		case "reasoning":
			p := item.AsReasoning().ToParam()
			input = append(input, responses.ResponseInputItemUnionParam{OfReasoning: &p})
		case "message":
			p := item.AsMessage().ToParam()
			input = append(input, responses.ResponseInputItemUnionParam{OfOutputMessage: &p})
		case "function_call":
			p := item.AsFunctionCall().ToParam()
			input = append(input, responses.ResponseInputItemUnionParam{OfFunctionCall: &p})
			out := responses.ResponseInputItemParamOfFunctionCallOutput("files of " + item.CallID)
			out.OfFunctionCallOutput.CallID = openai.String(item.CallID)
			outputs = append(outputs, out)
		}
	}
	return append(input, outputs...)
}

func ask(text string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleUser)
}

// TestTheSDKGoesRoundAToolLoop: the SDK decodes the reasoning item with
// its summary and encrypted_content, two calls and the usage, streamed and
// not; sent back as the SDK turns them into input items, the mock takes
// them, answers, and counts its reasoning items back, turn after turn;
// every request reads as the SDK's.
func TestTheSDKGoesRoundAToolLoop(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "stream", false: "json"}[stream], func(t *testing.T) {
			u, c := client(t)
			input := responses.ResponseInputParam{ask("[tool][parallel] list the files")}
			r := send(t, c, stream, input)
			if len(r.Output) != 3 || r.Status != responses.ResponseStatusCompleted {
				t.Fatalf("turn 1: %s", r.RawJSON())
			}
			rs, ls, pwd := r.Output[0].AsReasoning(), r.Output[1].AsFunctionCall(), r.Output[2].AsFunctionCall()
			if !strings.HasPrefix(rs.EncryptedContent, "gAAAAABo") || len(rs.Summary) != 1 || rs.Summary[0].Text != u.Summary(1) ||
				ls.Name != "Bash" || ls.CallID != "call_oa_1_0" || ls.Arguments != `{"command":"ls"}` || pwd.Arguments != `{"command":"pwd"}` {
				t.Fatalf("turn 1: %s", r.RawJSON())
			}
			if us := r.Usage; us.OutputTokensDetails.ReasoningTokens != 30 || us.InputTokensDetails.CachedTokens != 40 ||
				us.TotalTokens != us.InputTokens+us.OutputTokens || us.InputTokens == 0 {
				t.Errorf("usage %+v", us)
			}
			input = next(input, r)
			r = send(t, c, stream, input)
			if r.OutputText() != "oa answer 2." || r.Output[0].AsReasoning().Summary[0].Text != u.Summary(2) {
				t.Fatalf("turn 2: %s", r.RawJSON())
			}
			// A third turn takes the answer's message back by its id,
			// after its reasoning item.
			input = append(next(input, r), ask("thanks"))
			if r = send(t, c, stream, input); r.OutputText() != "oa answer 3." {
				t.Fatalf("turn 3: %s", r.RawJSON())
			}
			if back := [][]string{u.ReasoningBack(1), u.ReasoningBack(2)}; !slices.Equal(back[0], []string{"rs_oa_1"}) ||
				!slices.Equal(back[1], []string{"rs_oa_1", "rs_oa_2"}) {
				t.Errorf("reasoning back %v", back)
			}
			second := judge(t, u)[1]
			types := make([]string, len(second.Items))
			for i, item := range second.Items {
				types[i] = reflect.TypeOf(item).Elem().Name()
			}
			if want := []string{"EasyInputMessage", "ResponseReasoningItem", "ResponseFunctionToolCall", "ResponseFunctionToolCall",
				"ResponseInputItemFunctionCallOutput", "ResponseInputItemFunctionCallOutput"}; !slices.Equal(types, want) {
				t.Fatalf("turn 2 went as %v", types)
			}
			if back := second.Items[1].(*responses.ResponseReasoningItem); back.EncryptedContent != rs.EncryptedContent || back.ID != rs.ID {
				t.Errorf("the reasoning went back as %+v", back)
			}
		})
	}
}

// TestTheSDKReadsTheRefusals: each refusal is an *openai.Error with
// OpenAI's status, type, code and param.
func TestTheSDKReadsTheRefusals(t *testing.T) {
	_, c := client(t)
	input := responses.ResponseInputParam{ask("[tool] go")}
	r := send(t, c, false, input)
	rs := r.Output[0].AsReasoning()
	altered := responses.ResponseInputItemParamOfReasoning(rs.ID, []responses.ResponseReasoningItemSummaryParam{{Text: rs.Summary[0].Text}})
	altered.OfReasoning.EncryptedContent = openai.String(strings.Replace(rs.EncryptedContent, "gAAAAABo", "gAAAAABp", 1))
	call := r.Output[1].AsFunctionCall().ToParam()
	output := responses.ResponseInputItemParamOfFunctionCallOutput("ok")
	output.OfFunctionCallOutput.CallID = openai.String(call.CallID)
	unsent := responses.ResponseInputItemParamOfReasoning(rs.ID, []responses.ResponseReasoningItemSummaryParam{{Text: rs.Summary[0].Text}})
	for _, tc := range []struct {
		name   string
		input  responses.ResponseInputParam
		opts   []option.RequestOption
		status int
		code   string
		param  string
	}{
		{"altered", responses.ResponseInputParam{input[0], altered, {OfFunctionCall: &call}, output}, nil, http.StatusBadRequest, "invalid_encrypted_content", ""},
		{"without encrypted_content", responses.ResponseInputParam{input[0], unsent, {OfFunctionCall: &call}, output}, nil, http.StatusNotFound, "", "input"},
		{"unknown parameter", input, []option.RequestOption{option.WithJSONSet("thinking", map[string]any{})}, http.StatusBadRequest, "unknown_parameter", "thinking"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Responses.New(context.Background(), params(tc.input), tc.opts...)
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tc.status || apiErr.Type != "invalid_request_error" ||
				apiErr.Code != tc.code || apiErr.Param != tc.param || apiErr.Message == "" {
				t.Fatalf("%v", err)
			}
		})
	}
}

// TestTheSDKReadsFailedStreams: a response.failed event and an error
// event, documented or nested, are read as the SDK reads them.
func TestTheSDKReadsFailedStreams(t *testing.T) {
	u, c := client(t)
	input := responses.ResponseInputParam{ask("hello")}
	last := func() (responses.ResponseStreamEventUnion, error) {
		s := c.Responses.NewStreaming(context.Background(), params(input))
		var ev responses.ResponseStreamEventUnion
		for s.Next() {
			ev = s.Current()
		}
		return ev, s.Err()
	}

	u.FailStreamAfter(10, llmtest.ResponsesFailedEvent("server_error", "The model failed."))
	ev, err := last()
	failed := ev.AsResponseFailed().Response
	if err != nil || ev.Type != "response.failed" || failed.Status != responses.ResponseStatusFailed ||
		failed.Error.Code != "server_error" || failed.Error.Message != "The model failed." || len(failed.Output) != 1 {
		t.Fatalf("response.failed read as %s, %v", ev.RawJSON(), err)
	}

	u.FailStreamAfter(3, llmtest.ResponsesErrorEvent("rate_limit_exceeded", "Slow down."))
	if ev, err = last(); err != nil || ev.AsError().Code != "rate_limit_exceeded" || ev.AsError().Message != "Slow down." {
		t.Fatalf("the error event read as %s, %v", ev.RawJSON(), err)
	}

	u.FailStreamAfter(3, llmtest.ResponsesNestedErrorEvent("server_error", "server_error", "Try again."))
	var streamErr *ssestream.StreamError
	if _, err = last(); !errors.As(err, &streamErr) || !strings.Contains(streamErr.Message, "Try again.") {
		t.Fatalf("the nested error event read as %v", err)
	}
}
