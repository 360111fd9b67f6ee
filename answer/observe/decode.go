package observe

import (
	"fmt"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// Decoded returns the answer a holds with its Content-Encoding removed:
// itself, or for gzip a new held answer of at most limit bytes, counted in
// a's account, which the caller releases.
func Decoded(a *budget.Answer, contentEncoding string, limit int64) (*budget.Answer, error) {
	zr, err := Decompressor(a.Bytes(), contentEncoding)
	switch {
	case err != nil:
		return nil, err
	case zr == nil:
		return a, nil
	}
	out, err := budget.NewAnswer(a.Ticket(), limit, 0)
	if err != nil {
		return nil, err
	}
	if err := out.Fill(zr); err != nil {
		out.Release()
		return nil, fmt.Errorf("reading gzip answer: %w", err)
	}
	return out, nil
}
