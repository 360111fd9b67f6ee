package llmtest

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Turn is the outcome of one request of a Conversation.
type Turn struct {
	// Status is the HTTP status of the response.
	Status int
	// Header is the response header.
	Header http.Header
	// Raw is the response body as received on the wire, still compressed
	// when the server compressed it.
	Raw []byte
	// Body is Raw with its Content-Encoding undone.
	Body []byte
	// Message is the assistant message appended to the history; nil unless
	// the request succeeded.
	Message json.RawMessage
	// StopReason is the response's stop_reason.
	StopReason string
	// Model is the model the answer names (in message_start for a stream),
	// which the client records with the assistant message.
	Model string
	// ErrorType and ErrorMessage come from the error envelope of a non-200
	// response, or from an error event inside a 200 stream.
	ErrorType, ErrorMessage string
	// FirstByte is the time from sending the request to the arrival of the
	// first byte of the response body.
	FirstByte time.Duration
}

// firstByteReader notes when the first byte of a body arrives.
type firstByteReader struct {
	r     io.Reader
	start time.Time
	at    time.Duration
	seen  bool
	hook  func()
}

// Read reads from the body, reporting the first byte when it arrives.
func (f *firstByteReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if n > 0 && !f.seen {
		f.seen = true
		f.at = time.Since(f.start)
		if f.hook != nil {
			f.hook()
		}
	}
	return n, err
}

// roundTrip posts body to url and reads the whole response into a Turn,
// including the error envelope of a non-200 answer.
func roundTrip(client *http.Client, url string, body []byte, setHeaders func(http.Header), onFirstByte func()) (*Turn, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	setHeaders(req.Header)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	fb := &firstByteReader{r: resp.Body, start: start, hook: onFirstByte}
	raw, err := io.ReadAll(fb)
	turn := &Turn{Status: resp.StatusCode, Header: resp.Header, Raw: raw, FirstByte: fb.at}
	if err != nil {
		return turn, fmt.Errorf("reading the response of %s: %w", url, err)
	}
	if turn.Body, err = decodeBody(raw, resp.Header.Get("Content-Encoding")); err != nil {
		return turn, fmt.Errorf("response of %s: %w", url, err)
	}
	if turn.Status != http.StatusOK {
		var env struct {
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(turn.Body, &env); err != nil {
			return turn, fmt.Errorf("status %d from %s without an error envelope: %w", turn.Status, url, err)
		}
		turn.ErrorType, turn.ErrorMessage = env.Error.Type, env.Error.Message
	}
	return turn, nil
}

// decodeBody undoes a Content-Encoding. Because the client sets
// Accept-Encoding itself, Go's transport leaves this to us.
func decodeBody(raw []byte, encoding string) ([]byte, error) {
	var r io.ReadCloser
	var err error
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return raw, nil
	case "gzip", "x-gzip":
		r, err = gzip.NewReader(bytes.NewReader(raw))
	case "deflate":
		r, err = zlib.NewReader(bytes.NewReader(raw))
	default:
		return nil, fmt.Errorf("unsupported Content-Encoding %q", encoding)
	}
	if err != nil {
		return nil, fmt.Errorf("decoding a %s body: %w", encoding, err)
	}
	defer r.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("decoding a %s body: %w", encoding, err)
	}
	return out, nil
}
