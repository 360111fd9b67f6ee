package llmtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"
)

// Upstream is a mock Anthropic-compatible backend listening on 127.0.0.1.
// It answers POST /v1/messages and POST /v1/messages/count_tokens and
// remembers every request it received. Replies are scripted by the text of
// the request's last message: "[tool]" asks for a Bash tool_use, "[agent]"
// for a call of Claude Code's Agent tool, "[redacted]" for a
// redacted_thinking block after the thinking block; anything else gets
// the text "{name} answer {n}.". A Tagged instance writes its reasoning in
// front of that text instead, or in a text block of its own before a
// tool_use. It is safe for concurrent use.
type Upstream struct {
	name      string
	flavor    Flavor
	signer    signer
	srv       *httptest.Server
	closed    chan struct{}
	closeOnce sync.Once

	mu        sync.Mutex
	received  []*Received
	seq       int // requests ever received, for request ids
	responses int // successful /v1/messages responses, the n of the script
	ledger    ledger
	gzip      bool
	hold      *hold
	cutAfter  int // events before the next stream breaks; 0 for none
	answerAs  string
	omitOpen  bool
	serves    string // the one model served, "" for any
	// cannotThink are the models refused thinking, unknownFields the
	// top-level members refused (see RefuseThinking, RefuseFields).
	cannotThink   map[string]bool
	unknownFields []string
	// neverThinks are the models answered without thinking whatever the
	// request asks (see NeverThink).
	neverThinks []string
	// holdTimeout bounds each hold; only the test of the timeout shortens it.
	holdTimeout time.Duration
	// unbound turns off the binding of a Strict instance's signatures to
	// their conversation (see BindSignatures).
	unbound bool
	// thinkingBack and typeRefusals are the shapes the instance demands
	// (see WantThinkingBack and RefuseThinkingType).
	thinkingBack ThinkingBackRule
	typeRefusals map[string]TypeRefusal
	// serverRefusals are the refusals it answers in a server's own
	// envelope (see RefuseAsServer).
	serverRefusals map[string]ServerRefusal
	// failures are the answers the next requests get instead (see
	// FailNext).
	failures []Failure
	// cache counts prompt caching in the usage when not nil (see
	// CountCache).
	cache promptCache
}

// Received is one request as an Upstream saw it, with the answer it gave.
type Received struct {
	// Method is the request method.
	Method string
	// Path is the URL path, without the query.
	Path string
	// RawQuery is the query string, e.g. "beta=true".
	RawQuery string
	// Header is the request header; as in net/http, Host is not in it.
	Header http.Header
	// Body is the request body as received.
	Body []byte
	// Status is the response status, 0 while the answer is not decided.
	Status int
	// ErrorMessage is the error envelope's message when Status is not 200.
	ErrorMessage string
	// Response is the response body exactly as the Upstream wrote it, still
	// compressed when it compressed it; for a stream, every event written
	// so far.
	Response []byte
	// HoldTimedOut reports that HoldStream held this response and the
	// safety timeout, not the release function, ended the hold: the sign of
	// a gateway that buffered the stream.
	HoldTimedOut bool
}

// NewUpstream starts a mock backend of flavor f on 127.0.0.1 at a random
// port. name appears in its ids and texts ("msg_{name}_{n}") so tests can
// tell which backend answered. Close it when done.
func NewUpstream(name string, f Flavor) *Upstream {
	u := &Upstream{name: name, flavor: f, signer: newSigner(), closed: make(chan struct{}), holdTimeout: holdTimeout}
	u.srv = startLocal(http.HandlerFunc(u.serveHTTP))
	return u
}

// URL returns the base URL, "http://127.0.0.1:PORT".
func (u *Upstream) URL() string { return u.srv.URL }

// HostPort returns the listening address, "127.0.0.1:PORT", as a
// reverse_proxy upstream wants it.
func (u *Upstream) HostPort() string { return strings.TrimPrefix(u.srv.URL, "http://") }

// Close releases any held stream, then stops the server and waits for the
// requests in flight.
func (u *Upstream) Close() {
	u.closeOnce.Do(func() { close(u.closed) })
	u.srv.Close()
}

// Requests returns a copy of every request received since the start or
// the last Reset, in order of arrival.
func (u *Upstream) Requests() []Received { return copyReceived(&u.mu, &u.received) }

// RequestsOf returns a copy of every request of the Claude Code session
// named session (its X-Claude-Code-Session-Id), in order of arrival.
func (u *Upstream) RequestsOf(session string) []Received {
	return u.RequestsWith("X-Claude-Code-Session-Id", session)
}

// RequestsWith returns a copy of every request whose header name was
// value, in order of arrival.
func (u *Upstream) RequestsWith(name, value string) []Received {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []Received
	for _, r := range u.received {
		if r.Header.Get(name) == value {
			out = append(out, r.clone())
		}
	}
	return out
}

// Reset forgets the received requests. Keys, counters and what the instance
// produced are kept, so earlier blocks stay valid.
func (u *Upstream) Reset() { setLocked(&u.mu, &u.received, nil) }

// RotateKey gives the instance a new signing key, as when a provider's key,
// account or region changes behind the same address: from now on it refuses
// every signature and redacted payload it issued before.
func (u *Upstream) RotateKey() { setLocked(&u.mu, &u.signer, newSigner()) }

// BindSignatures turns the binding of a Strict instance's signatures to
// the conversation before them on (the default, as the newest models do)
// or off (as older models do): a bound signature is refused, with "bound to
// a different conversation", once the system prompt, the tools or any
// message before the block's differ from when it was produced.
func (u *Upstream) BindSignatures(on bool) { setLocked(&u.mu, &u.unbound, !on) }

// CutNextStream makes the next streamed response stop after its first
// events events, breaking the connection as an upstream that crashed or
// was reset does: no message_stop, no proper end of the body.
func (u *Upstream) CutNextStream(events int) { setLocked(&u.mu, &u.cutAfter, events) }

// SetGzip turns gzip on or off for every response that is not a stream:
// message JSON, count_tokens and error envelopes. A response is compressed
// only when the request's Accept-Encoding allows gzip.
func (u *Upstream) SetGzip(on bool) { setLocked(&u.mu, &u.gzip, on) }

// AnswerAs makes every later answer, streamed or not, name model instead of
// the model the request asked for, as a gateway that maps claude-* names to
// its own models does; "" goes back to the model asked for.
func (u *Upstream) AnswerAs(model string) { setLocked(&u.mu, &u.answerAs, model) }

// ServeModel makes every request for another model than model answer 404
// not_found_error, as Ollama answers a model it has not pulled; "" serves
// any model.
func (u *Upstream) ServeModel(model string) { setLocked(&u.mu, &u.serves, model) }

// OmitOpeningTag makes a Tagged instance leave out the opening <think> of
// its reasoning, as DeepSeek-R1-style models do: the text starts inside the
// think section and only </think> marks where the answer begins.
func (u *Upstream) OmitOpeningTag(on bool) { setLocked(&u.mu, &u.omitOpen, on) }

func (u *Upstream) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body := readUpload(r)
	rec := &Received{
		Method:   r.Method,
		Path:     r.URL.Path,
		RawQuery: r.URL.RawQuery,
		Header:   r.Header.Clone(),
		Body:     body,
	}
	u.mu.Lock()
	u.received = append(u.received, rec)
	u.seq++
	requestID := fmt.Sprintf("req_%s_%d", u.name, u.seq)
	failure, failed := u.nextFailure()
	u.mu.Unlock()
	w.Header().Set("Request-Id", requestID)

	a := answer{u: u, w: w, r: r, rec: rec, requestID: requestID}
	switch {
	case failed:
		a.failWith(failure)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		u.messages(a, body)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		u.countTokens(a, body)
	default:
		a.fail(http.StatusNotFound, "not_found_error", "Not Found")
	}
}

func (u *Upstream) messages(a answer, body []byte) {
	req, msg := u.check(body)
	if u.flavor == Strict && msg == "" {
		msg = betaRule(a.r.Header)
	}
	if msg != "" {
		a.fail(http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	if u.serverRefusal(a, req) {
		return
	}
	u.mu.Lock()
	if u.serves != "" && req.model != u.serves {
		u.mu.Unlock()
		a.fail(http.StatusNotFound, "not_found_error", fmt.Sprintf("model %q not found, try pulling it first", req.model))
		return
	}
	u.responses++
	rep := u.compose(req, u.responses, len(body)/4)
	if u.cache != nil {
		u.cache.count(rep, req, a.r.Header.Get("X-Claude-Code-Session-Id"), len(body)/4)
	}
	u.ledger.record(rep.blocks)
	var h *hold
	cut := 0
	if req.stream {
		h, u.hold = u.hold, nil
		cut, u.cutAfter = u.cutAfter, 0
	}
	u.mu.Unlock()
	if req.stream {
		a.writeStream(rep, h, cut)
		return
	}
	a.writeJSON(http.StatusOK, rep.message(), "")
}

func (u *Upstream) countTokens(a answer, body []byte) {
	if _, msg := u.check(body); msg != "" {
		a.fail(http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	a.writeJSON(http.StatusOK, struct {
		InputTokens int `json:"input_tokens"`
	}{len(body) / 4}, "")
}

// check parses body and, for Strict, applies the API's rules; any flavor
// refuses what RefuseThinking and RefuseFields say. It returns the message
// of the 400 to answer, or "".
func (u *Upstream) check(body []byte) (*request, string) {
	req, msg := parseRequest(body)
	if msg != "" {
		return req, msg
	}
	if msg := u.unsupported(req); msg != "" {
		return req, msg
	}
	if u.flavor != Strict {
		return req, ""
	}
	return req, u.violation(req)
}

// RefuseThinking makes u answer a request for one of models that turns
// thinking on as Ollama answers one for a model without thinking: a 400
// "\"<model>\" does not support thinking".
func (u *Upstream) RefuseThinking(models ...string) {
	putLocked(&u.mu, &u.cannotThink, true, models...)
}

// NeverThink makes u answer requests for the models without thinking,
// whatever they ask, as a model that cannot think and ignores the thinking
// config does.
func (u *Upstream) NeverThink(models ...string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.neverThinks = append(u.neverThinks, models...)
}

// RefuseFields makes u refuse a request that has one of the top-level
// fields as servers that validate with pydantic do: a 400
// "<field>: Extra inputs are not permitted".
func (u *Upstream) RefuseFields(fields ...string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.unknownFields = append(u.unknownFields, fields...)
}

// unsupported returns the message of the 400 u answers a request with for
// what it does not support, or "".
func (u *Upstream) unsupported(req *request) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, f := range u.unknownFields {
		if slices.Contains(req.fields, f) {
			return f + ": Extra inputs are not permitted"
		}
	}
	if req.thinkingOn() && u.cannotThink[req.model] {
		return fmt.Sprintf("%q does not support thinking", req.model)
	}
	if msg := u.typeRefusals[req.model].refuse(req); msg != "" {
		return msg
	}
	return u.thinkingBack.refuse(req)
}

func (u *Upstream) gzipOn() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.gzip
}

// finish stores the decided status in the request's record.
func (u *Upstream) finish(rec *Received, status int, errMessage string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	rec.Status, rec.ErrorMessage = status, errMessage
}
