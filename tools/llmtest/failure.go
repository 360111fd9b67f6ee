package llmtest

import (
	"net/http"
	"strconv"
)

// Failure is an answer the Messages API gives instead of a message, before
// any byte of one: a status, its error envelope's type and message, in the
// API's own words, and the headers that come with it.
type Failure struct {
	Status        int
	Type, Message string
	Header        http.Header
}

// RateLimited is the API's 429 for an account over its rate limit, with
// retry-after seconds. Anthropic's rate limits page (docs.claude.com/en/api/
// rate-limits): a 429 "along with a retry-after header indicating how long
// to wait"; the message as Claude Code 2.1.123 and 2.1.114 reported it
// (anthropics/claude-code#54603, #71634): {"type":"error","error":{"type":
// "rate_limit_error","message":"This request would exceed your account's
// rate limit. Please try again later."},"request_id":"req_…"}.
func RateLimited(seconds int) Failure {
	return Failure{Status: http.StatusTooManyRequests, Type: "rate_limit_error",
		Message: "This request would exceed your account's rate limit. Please try again later.",
		Header:  http.Header{"Retry-After": {strconv.Itoa(seconds)}}}
}

// Overloaded is the API's 529, answered to a request streamed or not before
// the stream begins, as Claude Code 2.1.85 reported it (anthropics/
// claude-code#39757): {"type":"error","error":{"type":"overloaded_error",
// "message":"Overloaded. https://docs.claude.com/en/api/errors"},
// "request_id":"req_…"}. It comes with x-should-retry and no retry-after
// (the headers of a 529 in anthropics/anthropic-sdk-typescript#616).
var Overloaded = Failure{Status: 529, Type: "overloaded_error", Message: "Overloaded. https://docs.claude.com/en/api/errors",
	Header: http.Header{"X-Should-Retry": {"true"}}}

// FailNext makes the next request u receives, whatever it asks, get f
// (several calls queue their failures, one a request). The failure comes
// before the request is read for anything else, as a limit or an overload
// turns a request away at the API's door.
func (u *Upstream) FailNext(f Failure) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.failures = append(u.failures, f)
}

// nextFailure returns the failure scripted for the request being
// received, if any. Callers hold u.mu.
func (u *Upstream) nextFailure() (Failure, bool) {
	if len(u.failures) == 0 {
		return Failure{}, false
	}
	f := u.failures[0]
	u.failures = u.failures[1:]
	return f, true
}

// failWith answers f in the API's error envelope.
func (a answer) failWith(f Failure) {
	for k, v := range f.Header {
		a.w.Header()[k] = v
	}
	a.fail(f.Status, f.Type, f.Message)
}
