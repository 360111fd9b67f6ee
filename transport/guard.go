package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"go.uber.org/zap"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// guardedBody reads a translated body; a panic in the translation (a bug)
// is logged and ends the body with an error, never the process.
type guardedBody struct {
	io.ReadCloser
	logger *zap.Logger
	failed bool
}

// Read implements io.Reader.
func (g *guardedBody) Read(p []byte) (n int, err error) {
	if g.failed {
		return 0, errTranslation
	}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			g.logger.Error("llm_thinking.transport_internal_error", zap.String("panic", fmt.Sprint(v)))
			g.failed, n, err = true, 0, errTranslation
		}
	}()
	return g.ReadCloser.Read(p)
}

// errTranslation ends a body whose translation failed.
var errTranslation = errors.New("translating the upstream's answer failed")

// recoverRoundTrip turns a panic in a round trip's own steps (a bug) into
// an error, logged, as reverse_proxy reports a failed upstream.
func recoverRoundTrip(logger *zap.Logger, err *error) {
	if v := recover(); v != nil {
		if v == http.ErrAbortHandler {
			panic(v)
		}
		logger.Error("llm_thinking.transport_internal_error", zap.String("panic", fmt.Sprint(v)))
		*err = errTranslation
	}
}
