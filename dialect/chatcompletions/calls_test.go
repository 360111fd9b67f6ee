package chatcompletions

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/toolcall"
)

// TestResultsAnswerTheirCallsInAnyOrder: a result answers the first call
// of its id still waiting, in or out of order; a second result of one id
// answers its second call; one of no call waiting is told as text; calls
// left without a result get one.
func TestResultsAnswerTheirCallsInAnyOrder(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"assistant","content":[` +
		`{"type":"tool_use","id":"a","name":"n","input":{}},{"type":"tool_use","id":"b","name":"n","input":{}},` +
		`{"type":"tool_use","id":"a","name":"n","input":{}},{"type":"tool_use","id":"c","name":"n","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"b","content":"rb"},{"type":"tool_result","tool_use_id":"a","content":"ra1"},` +
		`{"type":"tool_result","tool_use_id":"a","content":"ra2"},{"type":"tool_result","tool_use_id":"a","content":"ra3"}]}]}`
	tr, err := TranslateRequest([]byte(body), RequestOptions{Reasoning: ReasoningNone})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"tool","content":"rb","tool_call_id":"b"},{"role":"tool","content":"ra1","tool_call_id":"a"},` +
		`{"role":"tool","content":"ra2","tool_call_id":"a"},{"role":"tool","content":"(no result)","tool_call_id":"c"},` +
		`{"role":"user","content":"Tool result a:\nra3\n\n"}]`
	if !strings.Contains(string(tr.Body), want) {
		t.Fatalf("got %s\nwant it to hold %s", tr.Body, want)
	}
}

// TestManyResultsOutOfOrder: results in the reverse order of their
// calls, and results of one id repeated, each answer the right call
// (BenchmarkResultsOutOfOrder shows each costs no scan).
func TestManyResultsOutOfOrder(t *testing.T) {
	const n = 20_000
	body := resultsOutOfOrder(n)
	tr, err := TranslateRequest(body, RequestOptions{Reasoning: ReasoningNone})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(tr.Body), `"role":"tool"`); got != n {
		t.Fatalf("%d tool messages, want %d", got, n)
	}
	var want strings.Builder
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(&want, `{"role":"tool","content":"r%d","tool_call_id":"t%d"},`, i, i)
	}
	if !strings.Contains(string(tr.Body), want.String()) {
		t.Fatal("a call did not get its result, in the results' order")
	}
	if got := strings.Count(string(tr.Body), `Tool result t0:`); got != n {
		t.Fatalf("%d repeated results told as text, want %d", got, n)
	}
}

// resultsOutOfOrder returns a request of n calls, their results in the
// reverse order, then n more results of the first call.
func resultsOutOfOrder(n int) []byte {
	var calls, results, same strings.Builder
	for i := range n {
		fmt.Fprintf(&calls, `{"type":"tool_use","id":"t%d","name":"n","input":{}},`, i)
		fmt.Fprintf(&results, `{"type":"tool_result","tool_use_id":"t%d","content":"r%d"},`, n-1-i, n-1-i)
		same.WriteString(`{"type":"tool_result","tool_use_id":"t0","content":"r"},`)
	}
	return []byte(`{"model":"m","messages":[{"role":"assistant","content":[` + strings.TrimSuffix(calls.String(), ",") + `]},` +
		`{"role":"user","content":[` + results.String() + same.String() + `{"type":"text","text":"go"}]}]}`)
}

// TestGrowAndHoldStopTheTranslation: an error of Grow or Hold is what
// TranslateRequest returns, and Hold hears of the calls waiting.
func TestGrowAndHoldStopTheTranslation(t *testing.T) {
	body := []byte(`{"model":"m","messages":[{"role":"assistant","content":[` +
		strings.Repeat(`{"type":"tool_use","id":"a","name":"n","input":{}},`, 1000) + `{"type":"text","text":"x"}]}]}`)
	noRoom := errors.New("no room")
	grown := 0
	_, err := TranslateRequest(body, RequestOptions{Grow: func(p []byte, n int) ([]byte, error) {
		if grown++; grown > 1 {
			return nil, noRoom
		}
		return make([]byte, len(p), len(p)+n), nil
	}})
	if !errors.Is(err, noRoom) || grown != 2 {
		t.Fatalf("err %v after %d grows", err, grown)
	}
	held := 0
	tooMuch := errors.New("too much")
	_, err = TranslateRequest(body, RequestOptions{Hold: func(bytes int) error {
		held = bytes
		if bytes > 500*toolcall.CallBytes {
			return tooMuch
		}
		return nil
	}})
	if !errors.Is(err, tooMuch) || held <= 500*toolcall.CallBytes {
		t.Fatalf("err %v, held %d", err, held)
	}
}
