package llmtest

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// GeminiDummySignature is the dummy thought signature Google documents for
// function calls Gemini did not make, as the official SDKs send it: the
// standard base64 of "skip_thought_signature_validator".
var GeminiDummySignature = base64.StdEncoding.EncodeToString([]byte("skip_thought_signature_validator"))

// GeminiUpstream is a mock of the Gemini API on 127.0.0.1 that answers
// POST /v1beta/models/{model}:generateContent and
// :streamGenerateContent?alt=sse as Gemini 3 does, and refuses what Gemini
// 3 refuses, with Google's words and envelope: a request field Gemini does
// not know; a function call of the current turn (since the last user
// content of its own) that is the first of its content and carries no
// thought signature; a signature it did not issue, or issued for another
// part ("Corrupted thought signature."), the documented dummy aside; as
// many function responses as calls, right after them, with their ids; a
// wrong key; and what the model named in the path does not take (see
// gemini_rules.go: thinkingLevel or any thinkingConfig by model, the
// bound of maxOutputTokens, media inside function responses before
// Gemini 3). Replies are scripted: "[tool]" in the last user text asks for
// a Bash call ("[parallel]" for two at once, the second unsigned), each
// "[read <path>]" a call of the Read tool on that path, anything
// else gets "{name} answer {n}."; each after the thought "{name} thinks
// #{n}." when thoughts are asked for. A call carries its signature (none
// from Gemini 2.0 and older, which sign nothing) and an id; an answer
// without calls its signature on its last part (in a stream,
// an empty part of its own in the last chunk, as Gemini 3 sends it). It is
// safe for concurrent use.
type GeminiUpstream struct {
	mock
	name string

	// Guarded by mu.
	responses   int
	issued      map[string]string // signature -> the part it was issued on
	outputBound int               // see OutputBound
	emptyReason string            // see AnswerEmpty
	empties     int
}

// NewGeminiUpstream starts a mock Gemini API; name appears in its ids and
// texts. Close it when done.
func NewGeminiUpstream(name string) *GeminiUpstream {
	u := &GeminiUpstream{name: name, issued: make(map[string]string)}
	u.start(u.serveHTTP)
	return u
}

// Thought returns the thought of the n-th answer (from 1).
func (u *GeminiUpstream) Thought(n int) string { return fmt.Sprintf("%s thinks #%d.", u.name, n) }

// Signatures returns every signature the upstream issued, by the part it
// was issued on ("call Bash", "text").
func (u *GeminiUpstream) Signatures() map[string]string { return copyLocked(&u.mu, &u.issued) }

// GeminiError returns Google's error envelope.
func GeminiError(code int, status, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}})
	return b
}

func (u *GeminiUpstream) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body := readUpload(r)
	rec, failure, key, served := u.receive(r, body)
	reply := func(status int, ctype string, b []byte) { u.reply(w, rec, status, ctype, b) }
	fail := func(code int, status, msg string) {
		u.mu.Lock()
		rec.ErrorMessage = msg
		u.mu.Unlock()
		reply(code, "application/json; charset=UTF-8", GeminiError(code, status, msg))
	}
	model, method, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":")
	switch {
	case r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") || !ok ||
		(method != "generateContent" && method != "streamGenerateContent"):
		fail(http.StatusNotFound, "NOT_FOUND", "Requested entity was not found.")
		return
	case failure != nil:
		reply(failure.status, "application/json; charset=UTF-8", []byte(failure.body))
		return
	case key != "" && r.Header.Get("X-Goog-Api-Key") != key:
		fail(http.StatusBadRequest, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.")
		return
	case served != "" && model != served:
		fail(http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("models/%s is not found for API version v1beta, or is not supported for generateContent.", model))
		return
	case method == "streamGenerateContent" && r.URL.Query().Get("alt") != "sse":
		fail(http.StatusBadRequest, "INVALID_ARGUMENT", "the mock streams with alt=sse only")
		return
	}
	req, msg := parseGemRequest(body)
	if msg == "" {
		u.mu.Lock()
		msg = u.violation(req, thinkingOf(model) == thinksByLevel)
		if msg == "" {
			msg = u.modelRule(req, model)
		}
		u.mu.Unlock()
	}
	if msg != "" {
		fail(http.StatusBadRequest, "INVALID_ARGUMENT", msg)
		return
	}
	u.mu.Lock()
	if reason := u.takeEmpty(); reason != "" {
		empty := emptyAnswer(reason, model, len(u.received))
		u.mu.Unlock()
		if method == "streamGenerateContent" {
			u.streamEvents(w, rec, [][]byte{empty})
			return
		}
		reply(http.StatusOK, "application/json; charset=UTF-8", empty)
		return
	}
	u.responses++
	rep := u.compose(req, u.responses, model)
	u.mu.Unlock()
	if method == "streamGenerateContent" {
		u.stream(w, rec, rep)
		return
	}
	reply(http.StatusOK, "application/json; charset=UTF-8", rep.json())
}

// violation returns Google's message for a request Gemini 3 refuses, or
// "". Only Gemini 3 (signed) refuses a current-turn call without its
// signature; older models never issued one to check. Called with u.mu
// held.
func (u *GeminiUpstream) violation(req *gemRequest, signed bool) string {
	current := req.currentTurn()
	for i, c := range req.Contents {
		calls, first := 0, true
		for _, p := range c.Parts {
			if p.ThoughtSignature != "" && p.ThoughtSignature != GeminiDummySignature {
				on, ok := u.issued[p.ThoughtSignature]
				if !ok || (on != "text" && (p.FunctionCall == nil || on != "call "+p.FunctionCall.Name)) {
					return "Corrupted thought signature."
				}
			}
			if p.FunctionCall == nil {
				continue
			}
			calls++
			if signed && first && i > current && p.ThoughtSignature == "" {
				return fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, "+
					"and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. "+
					"Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", p.FunctionCall.Name, i+1)
			}
			first = false
		}
		if calls == 0 {
			continue
		}
		if c.Role != "model" {
			return "Please ensure that function call turn comes immediately after a user turn or after a function response turn."
		}
		var next []gemPart
		if i+1 < len(req.Contents) {
			next = req.Contents[i+1].Parts
		}
		var answers []*gemFunctionAnswer
		for _, p := range next {
			if p.FunctionResponse != nil {
				answers = append(answers, p.FunctionResponse)
			}
		}
		if i+1 < len(req.Contents) && len(answers) != calls {
			return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
		}
		k := 0
		for _, p := range c.Parts {
			if p.FunctionCall == nil || k >= len(answers) {
				continue
			}
			if a := answers[k]; a.ID != p.FunctionCall.ID || a.Name != p.FunctionCall.Name {
				return "functionResponse.id does not match functionCall.id"
			}
			k++
		}
	}
	return ""
}

// geminiReply is what a GeminiUpstream answers: a thought, then text or
// function calls, in parts.
type geminiReply struct {
	id, model string
	thought   string // "" when thoughts were not asked for
	text      string
	calls     []gemFunctionCall
	sig       string // on the first call, else on the last part
	prompt    int
}

// compose makes the n-th reply. Called with u.mu held.
func (u *GeminiUpstream) compose(req *gemRequest, n int, model string) geminiReply {
	rep := geminiReply{id: fmt.Sprintf("gresp-%s-%d", u.name, n), model: model, prompt: 100 + 10*len(req.Contents)}
	if thinkingOf(model) != thinksNot {
		// Gemini 2.0 and older never think, and sign nothing.
		rep.sig = u.newSignature()
	}
	if g := req.GenerationConfig; g != nil && g.ThinkingConfig != nil && g.ThinkingConfig.IncludeThoughts {
		rep.thought = u.Thought(n)
	}
	last := req.lastText()
	tool := ""
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			if tool == "" || d.Name == "Bash" {
				tool = d.Name
			}
		}
	}
	if reads := readPaths(last); len(reads) > 0 && req.declares("Read") {
		for k, path := range reads {
			args, _ := json.Marshal(map[string]string{"file_path": path})
			rep.calls = append(rep.calls, gemFunctionCall{ID: fmt.Sprintf("gcall-%s-%d-%d", u.name, n, k), Name: "Read", Args: args})
		}
		u.issue(rep.sig, "call Read")
		return rep
	}
	if strings.Contains(last, "[tool]") && tool != "" {
		calls := 1
		if strings.Contains(last, "[parallel]") {
			calls = 2
		}
		for k := range calls {
			rep.calls = append(rep.calls, gemFunctionCall{ID: fmt.Sprintf("gcall-%s-%d-%d", u.name, n, k), Name: tool,
				Args: json.RawMessage(fmt.Sprintf(`{"command":"echo %s %d"}`, u.name, k))})
		}
		u.issue(rep.sig, "call "+tool)
		return rep
	}
	rep.text = fmt.Sprintf("%s answer %d.", u.name, n)
	if media := req.responseMedia(); len(media) > 0 {
		rep.text += " Seen: " + strings.Join(media, ", ") + "."
	}
	u.issue(rep.sig, "text")
	return rep
}

// issue records a signature issued on a part; "" is none. Called with
// u.mu held.
func (u *GeminiUpstream) issue(sig, on string) {
	if sig != "" {
		u.issued[sig] = on
	}
}

// newSignature returns a signature of Gemini's look: standard base64, as
// Google's thought signatures are.
func (u *GeminiUpstream) newSignature() string {
	var b [48]byte
	_, _ = rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}

// parts returns the reply's parts: whole, or as a stream sends them in
// chunks (the text in two, the signature of an answer without calls in an
// empty part of its own).
func (r geminiReply) parts(stream bool) [][]map[string]any {
	var chunks [][]map[string]any
	if r.thought != "" {
		chunks = append(chunks, []map[string]any{{"text": r.thought, "thought": true}})
	}
	if len(r.calls) > 0 {
		var calls []map[string]any
		for i, c := range r.calls {
			p := map[string]any{"functionCall": map[string]any{"id": c.ID, "name": c.Name, "args": c.Args}}
			if i == 0 && r.sig != "" {
				p["thoughtSignature"] = r.sig
			}
			calls = append(calls, p)
		}
		return append(chunks, calls)
	}
	if r.sig == "" {
		return append(chunks, []map[string]any{{"text": r.text}})
	}
	if !stream {
		return append(chunks, []map[string]any{{"text": r.text, "thoughtSignature": r.sig}})
	}
	half := len(r.text) / 2
	return append(chunks, []map[string]any{{"text": r.text[:half]}}, []map[string]any{{"text": r.text[half:]}},
		[]map[string]any{{"text": "", "thoughtSignature": r.sig}})
}

func (r geminiReply) usage() map[string]any {
	return map[string]any{"promptTokenCount": r.prompt, "candidatesTokenCount": 20, "thoughtsTokenCount": 30,
		"totalTokenCount": r.prompt + 50, "cachedContentTokenCount": 40}
}

// response returns one GenerateContentResponse of parts; last adds the
// finish reason.
func (r geminiReply) response(parts []map[string]any, last bool) []byte {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	if last {
		cand["finishReason"] = "STOP"
	}
	b, _ := json.Marshal(map[string]any{"candidates": []any{cand}, "usageMetadata": r.usage(), "modelVersion": r.model, "responseId": r.id})
	return b
}

// json returns the whole answer.
func (r geminiReply) json() []byte {
	var all []map[string]any
	for _, p := range r.parts(false) {
		all = append(all, p...)
	}
	return r.response(all, true)
}

// stream writes the answer as Gemini streams it: one response per event,
// the events framed with CRLF, flushed one at a time.
func (u *GeminiUpstream) stream(w http.ResponseWriter, rec *Received, r geminiReply) {
	chunks := r.parts(true)
	events := make([][]byte, len(chunks))
	for i, parts := range chunks {
		events[i] = r.response(parts, i == len(chunks)-1)
	}
	u.streamEvents(w, rec, events)
}

// streamEvents writes one event per response, framed with CRLF, flushed
// one at a time.
func (u *GeminiUpstream) streamEvents(w http.ResponseWriter, rec *Received, responses [][]byte) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, resp := range responses {
		u.streamEvent(w, rec, append(append([]byte("data: "), resp...), "\r\n\r\n"...))
	}
}
