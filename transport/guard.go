package transport

import (
	"bytes"
	"errors"
	"io"

	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/guard"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// guardedBody reads a translated body; a panic in the translation (a bug)
// is logged (see package guard) and ends the body with an error, never the
// process.
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
	defer guard.Recover(g.logger, "transport answer", "", func() { g.failed, n, err = true, 0, errTranslation })
	return g.ReadCloser.Read(p)
}

// errTranslation ends a body whose translation failed.
var errTranslation = errors.New("translating the upstream's answer failed")

// failed is the fallback of a round trip whose own steps panicked (a
// bug): an error, as reverse_proxy reports a failed upstream.
func failed(err *error) func() { return func() { *err = errTranslation } }
