package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// ResponsesUpstream is a mock of OpenAI's Responses API on 127.0.0.1 that
// answers POST /v1/responses, streamed or not, as a reasoning model does
// with "store": false, and refuses what the API refuses, with OpenAI's
// envelope, codes and statuses: a parameter the API does not know, at the
// top or inside any item ("Unknown parameter: 'input[3].signature'."); a
// reasoning item without encrypted_content (404: stateless, nothing was
// persisted); encrypted_content no ResponsesUpstream issued, or issued to
// another organization; a reasoning item not followed by the item that
// followed it in the answer, or that item without its reasoning item; a
// function_call_output for no call, a call without its output; a wrong
// key or model; a max_output_tokens below 16; a reasoning summary for an
// organization that is not verified (see UnverifyOrganization); an output
// part or a file part the API does not read. Requests with "store" true
// or missing are refused too: the mock models the stateless use only.
//
// Every answer is a reasoning item, then a message or function calls.
// Replies are scripted: "[tool]" in the last user text asks for a Bash
// call ("[parallel]" for two; "[read <path>]" a call of Claude Code's Read
// tool on path, when it is offered; no call with tool_choice "none"),
// anything else, and the turn after a function_call_output, gets "{name}
// answer {n}."; the reasoning item's summary is "{name} thinks #{n}." when
// reasoning.summary is set, and it carries encrypted_content when include
// asks for "reasoning.encrypted_content" (without it the API leaves the
// field out, and so does the mock). It is safe for concurrent use.
type ResponsesUpstream struct {
	mock
	name string

	// Guarded by mu.
	responses int
	orgs      map[string]string // API key -> organization
	issued    map[string]string // reasoning item id -> organization
	follows   map[string]string // id of the item right after a reasoning item -> that reasoning item's id
	fault     *streamFault
	// unverified are the organizations refused reasoning summaries (see
	// UnverifyOrganization).
	unverified map[string]bool
}

// streamFault is the event the next stream ends with, after n events.
type streamFault struct {
	n     int
	event []byte
}

// NewResponsesUpstream starts a mock Responses API; name appears in its ids
// and texts, and its keys belong to organization "org-{name}" unless
// SetOrganization says otherwise. Close it when done.
func NewResponsesUpstream(name string) *ResponsesUpstream {
	u := &ResponsesUpstream{name: name, orgs: make(map[string]string), issued: make(map[string]string), follows: make(map[string]string),
		unverified: make(map[string]bool)}
	u.start(u.serveHTTP)
	return u
}

// Summary returns the reasoning summary of the n-th answer (from 1).
func (u *ResponsesUpstream) Summary(n int) string { return fmt.Sprintf("%s thinks #%d.", u.name, n) }

// SetOrganization puts API key in organization org: encrypted_content
// issued to one organization is refused to every other, as OpenAI refuses
// it.
func (u *ResponsesUpstream) SetOrganization(key, org string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.orgs[key] = org
}

// Issued returns every reasoning item the upstream answered, by id, with
// the organization it was issued to.
func (u *ResponsesUpstream) Issued() map[string]string { return copyLocked(&u.mu, &u.issued) }

// ReasoningBack returns the ids of the upstream's own reasoning items that
// request i (from 0, as Requests numbers them) sent back, in order; an end
// to end test compares them with what it expects to travel back, and the
// count of every reasoning item in the body with them to see nothing
// foreign came along.
func (u *ResponsesUpstream) ReasoningBack(i int) []string {
	reqs := u.Requests()
	if i < 0 || i >= len(reqs) {
		return nil
	}
	var body struct {
		Input json.RawMessage `json:"input"`
	}
	var items []struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		Encrypted string `json:"encrypted_content"`
	}
	if json.Unmarshal(reqs[i].Body, &body) != nil || json.Unmarshal(body.Input, &items) != nil {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for _, it := range items {
		id := it.ID
		if s, ok := openReasoning(it.Encrypted); ok && id == "" {
			id = s.id // sent without its id
		}
		if _, own := u.issued[id]; own && it.Type == "reasoning" {
			out = append(out, id)
		}
	}
	return out
}

// FailStreamAfter makes the next streamed answer end after its first n
// events with event, the JSON of one stream event (ResponsesFailedEvent,
// ResponsesErrorEvent, ResponsesNestedErrorEvent or any other), its
// sequence_number set; a response.failed event gets the mock's response
// object, status "failed" with the output done so far, around its
// response.error. The status stays 200, as it does when a stream fails
// midway.
func (u *ResponsesUpstream) FailStreamAfter(n int, event []byte) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.fault = &streamFault{n: n, event: append([]byte(nil), event...)}
}

// ResponsesError returns OpenAI's error envelope; an empty code or param
// is null. The status is not part of the body: it only picks the type when
// typ is empty, "server_error" from 500 on and "invalid_request_error"
// below.
func ResponsesError(status int, typ, code, param, msg string) []byte {
	if typ == "" {
		typ = "invalid_request_error"
		if status >= 500 {
			typ = "server_error"
		}
	}
	b, _ := json.Marshal(jobj{{"error", jobj{{"message", msg}, {"type", typ}, {"param", nullable(param)}, {"code", nullable(code)}}}})
	return b
}

// ResponsesFailedEvent returns a response.failed event whose response
// failed with code and message, for FailStreamAfter.
func ResponsesFailedEvent(code, message string) []byte {
	b, _ := json.Marshal(jobj{{"type", "response.failed"}, {"response", jobj{{"error", jobj{{"code", code}, {"message", message}}}}}})
	return b
}

// ResponsesErrorEvent returns an error event in its documented shape,
// code, message and param at the top, for FailStreamAfter.
func ResponsesErrorEvent(code, message string) []byte {
	b, _ := json.Marshal(jobj{{"type", "error"}, {"code", code}, {"message", message}, {"param", nil}})
	return b
}

// ResponsesNestedErrorEvent returns an error event in the shape the API
// has been seen to send instead of the documented one, the error in a
// member of its own (openai/openai-dotnet#881), for FailStreamAfter.
func ResponsesNestedErrorEvent(typ, code, message string) []byte {
	b, _ := json.Marshal(jobj{{"type", "error"}, {"error", jobj{{"type", typ}, {"code", code}, {"message", message}, {"param", nil}}}})
	return b
}

// nullable is s, or null when it is empty.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// organization returns the organization of a request's bearer key.
// Called with u.mu held.
func (u *ResponsesUpstream) organization(r *http.Request) string {
	key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if org, ok := u.orgs[key]; ok {
		return org
	}
	return "org-" + u.name
}

func (u *ResponsesUpstream) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body := readUpload(r)
	rec, failure, key, served := u.receive(r, body)
	reply := func(status int, ctype string, b []byte) { u.reply(w, rec, status, ctype, b) }
	refuse := func(e *respErr) {
		u.mu.Lock()
		rec.ErrorMessage = e.msg
		u.mu.Unlock()
		reply(e.status, "application/json", ResponsesError(e.status, "invalid_request_error", e.code, e.param, e.msg))
	}
	switch {
	case r.Method != http.MethodPost || r.URL.Path != "/v1/responses":
		refuse(&respErr{status: http.StatusNotFound, msg: fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path)})
		return
	case failure != nil:
		reply(failure.status, "application/json", []byte(failure.body))
		return
	case key != "" && r.Header.Get("Authorization") != "Bearer "+key:
		refuse(&respErr{status: http.StatusUnauthorized, code: "invalid_api_key",
			msg: fmt.Sprintf("Incorrect API key provided: %s. You can find your API key at https://platform.openai.com/account/api-keys.",
				maskKey(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")))})
		return
	}
	req, e := parseRespRequest(body)
	if e == nil && served != "" && req.model != served {
		e = &respErr{status: http.StatusNotFound, code: "model_not_found",
			msg: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.model)}
	}
	if e != nil {
		refuse(e)
		return
	}
	u.mu.Lock()
	org := u.organization(r)
	e = u.violation(req, org)
	var rep *responsesReply
	var fault *streamFault
	if e == nil {
		u.responses++
		rep = u.compose(req, u.responses, org)
		if req.stream {
			fault, u.fault = u.fault, nil
		}
	}
	u.mu.Unlock()
	switch {
	case e != nil:
		refuse(e)
	case req.stream:
		u.stream(w, rec, rep, fault)
	default:
		reply(http.StatusOK, "application/json", rep.json())
	}
}

// maskKey hides a key as OpenAI's 401 does: its first eight and last four
// characters around a star for each one in between.
func maskKey(key string) string {
	if len(key) <= 12 {
		return key
	}
	return key[:8] + strings.Repeat("*", len(key)-12) + key[len(key)-4:]
}
