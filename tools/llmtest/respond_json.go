package llmtest

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
)

// answer is the response side of one request to an Upstream.
type answer struct {
	u         *Upstream
	w         http.ResponseWriter
	r         *http.Request
	rec       *Received
	requestID string
}

// messageJSON is a complete Messages API message, keys in the API's order.
type messageJSON struct {
	ID           string    `json:"id"`
	Type         string    `json:"type"`
	Role         string    `json:"role"`
	Model        string    `json:"model"`
	Content      []any     `json:"content"`
	StopReason   *string   `json:"stop_reason"`
	StopSequence *string   `json:"stop_sequence"`
	Usage        usageJSON `json:"usage"`
}

type usageJSON struct {
	InputTokens              int  `json:"input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens,omitempty"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens,omitempty"`
	OutputTokens             int  `json:"output_tokens"`
}

// message renders rep as a non-streaming response body.
func (rep *reply) message() messageJSON {
	m := messageJSON{
		ID: rep.id, Type: "message", Role: "assistant", Model: rep.model,
		Content:    []any{},
		StopReason: &rep.stopReason,
		Usage: usageJSON{InputTokens: rep.inputTokens, CacheCreationInputTokens: rep.cacheCreation,
			CacheReadInputTokens: rep.cacheRead, OutputTokens: rep.outputTokens},
	}
	for _, b := range rep.blocks {
		m.Content = append(m.Content, b.full())
	}
	return m
}

type errorEnvelope struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	RequestID string `json:"request_id"`
}

// fail answers with the API's error envelope.
func (a answer) fail(status int, errType, message string) {
	var env errorEnvelope
	env.Type = "error"
	env.Error.Type, env.Error.Message = errType, message
	env.RequestID = a.requestID
	a.writeJSON(status, env, message)
}

// writeJSON writes v as the Upstream encodes JSON (see marshal), gzip
// encoded when the Upstream and the request allow it.
func (a answer) writeJSON(status int, v any, errMessage string) {
	body := a.u.marshal(v)
	h := a.w.Header()
	h.Set("Content-Type", "application/json")
	if a.u.gzipOn() && acceptsGzip(a.r.Header.Values("Accept-Encoding")) {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(body)
		zw.Close()
		body = buf.Bytes()
		h.Set("Content-Encoding", "gzip")
		h.Add("Vary", "Accept-Encoding")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	a.u.finish(a.rec, status, errMessage)
	a.w.WriteHeader(status)
	a.write(body)
}

// write sends p to the client, and keeps it in the request's record first,
// so that a client that read it finds it there.
func (a answer) write(p []byte) {
	a.u.mu.Lock()
	a.rec.Response = append(a.rec.Response, p...)
	a.u.mu.Unlock()
	a.w.Write(p)
}

// acceptsGzip reports whether Accept-Encoding values allow gzip: an
// explicit gzip entry decides by its q-value, else a "*" entry does.
func acceptsGzip(values []string) bool {
	gzipQ, starQ := -1.0, -1.0
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			coding, params, _ := strings.Cut(item, ";")
			q := qValue(params)
			switch strings.ToLower(strings.TrimSpace(coding)) {
			case "gzip":
				gzipQ = q
			case "*":
				starQ = q
			}
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}

// qValue returns the q parameter of an Accept-Encoding item, 1 by default.
func qValue(params string) float64 {
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			return f
		}
	}
	return 1
}
