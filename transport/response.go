package transport

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// maxErrorBody bounds the upstream error bodies read to translate them.
const maxErrorBody = 64 << 10

// DefaultMaxResponseSize bounds a JSON answer held to be translated.
const DefaultMaxResponseSize = 8 << 20

// errAnswerTooLarge says a JSON answer is over its bound.
var errAnswerTooLarge = errors.New("the upstream's answer is larger than max_response_size")

// decoded returns the response's body with a gzip Content-Encoding undone;
// the transports ask for identity, and a server that compresses anyway
// compresses with gzip. Other encodings are read as they come.
func decoded(resp *http.Response) (io.ReadCloser, error) {
	if resp.Header.Get("Content-Encoding") != "gzip" {
		return resp.Body, nil
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("reading the upstream's gzip answer: %w", err)
	}
	resp.Header.Del("Content-Encoding")
	return readCloser{zr, resp.Body}, nil
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// readAnswer reads a whole body of at most limit bytes.
func readAnswer(body io.ReadCloser, limit int64) ([]byte, error) {
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the upstream's answer: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, errAnswerTooLarge
	}
	return b, nil
}

// replaceBody gives resp a whole new body.
func replaceBody(resp *http.Response, contentType string, body []byte) {
	resp.Header.Set("Content-Type", contentType)
	resp.Header.Set("Content-Length", fmt.Sprint(len(body)))
	resp.Header.Del("Content-Encoding")
	resp.ContentLength = int64(len(body))
	resp.Body = io.NopCloser(bytesReader(body))
}

// streamBody gives resp a body read as it comes, of unknown length.
func streamBody(resp *http.Response, body io.ReadCloser) {
	resp.Header.Set("Content-Type", "text/event-stream")
	resp.Header.Del("Content-Length")
	resp.Header.Del("Content-Encoding")
	resp.ContentLength = -1
	resp.Body = body
}
