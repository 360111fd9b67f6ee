package llmthinking

import (
	"net/http"
	"slices"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp/encode"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/header"
)

// narrowAcceptEncoding asks the upstream only for encodings the observer
// can read: identity when identityOnly (streams, where compressing a token
// stream only adds latency, and answers to rewrite), else gzip when the
// client accepts it, for JSON answers, which the observer reads through
// decompression. br, zstd and deflate are never requested; a response that
// still arrives in one of them passes through unobserved.
func narrowAcceptEncoding(r *http.Request, identityOnly bool) {
	if !identityOnly && slices.Contains(encode.AcceptedEncodings(r, nil), "gzip") {
		r.Header[header.AcceptEncoding] = []string{"gzip"}
		return
	}
	r.Header[header.AcceptEncoding] = []string{"identity"}
}
