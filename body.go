package llmthinking

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// errBodyTooLarge reports a request body over max_body_size.
var errBodyTooLarge = errors.New("request body exceeds max_body_size")

// readBody reads the whole request body, refusing more than limit bytes.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, errBodyTooLarge
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	defer r.Body.Close()
	if r.ContentLength >= 0 {
		body := make([]byte, r.ContentLength)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, fmt.Errorf("reading request body: %w", err)
		}
		return body, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading request body: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, errBodyTooLarge
	}
	return body, nil
}

// tooLargeBody is the Anthropic error envelope for a 413, so clients show
// the reason the way they show the API's own errors.
const tooLargeBody = `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes (llm_thinking max_body_size %d)."}}`

// refuseBody answers a request whose body could not be read.
func (h *Handler) refuseBody(w http.ResponseWriter, err error) error {
	if !errors.Is(err, errBodyTooLarge) {
		return caddyhttp.Error(http.StatusBadRequest, err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	_, werr := fmt.Fprintf(w, tooLargeBody, h.MaxBodySize)
	return werr
}
