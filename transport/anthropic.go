package transport

import (
	"fmt"
	"io"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/modelname"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/guard"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

func init() {
	caddy.RegisterModule(Anthropic{})
}

// Anthropic is a reverse_proxy transport for upstreams that speak the
// Messages API under model names of their own (Ollama, vLLM, llama.cpp's
// /v1/messages): a request whose model matches a mapping goes out with the
// upstream's model, and its answer, streamed or not, names the model the
// client asked for. Every other request, and every byte but the model's,
// passes as with the http transport, whose options all apply.
type Anthropic struct {
	reverseproxy.HTTPTransport

	// Models maps the models clients ask for to the ones the upstream
	// serves ({"match":"*","model":"qwen3-coder"}); the first that matches
	// wins, and other models go as sent.
	Models Models `json:"models,omitempty"`

	// MaxResponseSize bounds a JSON answer held to name the model asked
	// for (bytes, default 8 MiB); a larger one is an error.
	MaxResponseSize int64 `json:"max_response_size,omitempty"`

	base
}

// CaddyModule returns the Caddy module information.
func (Anthropic) CaddyModule() caddy.ModuleInfo {
	return moduleInfo("anthropic", func() caddy.Module { return new(Anthropic) })
}

// Provision sets up the http transport.
func (t *Anthropic) Provision(ctx caddy.Context) error {
	return t.provision(ctx, "transport anthropic", t, &t.HTTPTransport, &t.MaxResponseSize, nil)
}

// Cleanup lets go of the memory budget and the http transport's
// connections.
func (t *Anthropic) Cleanup() error { return t.cleanup(t, &t.HTTPTransport) }

// Validate checks the options.
func (t *Anthropic) Validate() error {
	if t.MaxResponseSize < 0 {
		return fmt.Errorf("transport anthropic: max_response_size cannot be negative")
	}
	if err := t.Models.Check(); err != nil {
		return fmt.Errorf("transport anthropic: %w", err)
	}
	return nil
}

// RoundTrip maps the model of a Messages request and names the model
// asked for in its answer.
func (t *Anthropic) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	ep, _ := messagesapi.EndpointOf(req)
	if ep == messagesapi.Other || len(t.Models) == 0 {
		return t.HTTPTransport.RoundTrip(req)
	}
	defer guard.Recover(t.logger, t.name, "", failed(&err))
	tk, held, refused, err := t.memory.request(req)
	if held == nil {
		return refused, err
	}
	defer held.Close()
	body := held.Bytes()
	lit, at := modelLiteral(body)
	asked, _, ok := jsonstr.Value(nil, lit)
	model, changed := t.Models.Map(string(asked))
	if !ok || !changed {
		return t.HTTPTransport.RoundTrip(outgoing(req, held))
	}
	quoted := jsonstr.Quote(nil, []byte(model))
	mapped, err := budget.CopyRoom(tk, len(body)-len(lit)+len(quoted))
	if err != nil {
		return t.memory.refusal(req, tk, err), nil
	}
	defer mapped.Close()
	mapped.Set(append(append(append(mapped.Room(), body[:at]...), quoted...), body[at+len(lit):]...))
	held.Close() // the upstream gets the copy
	out := outgoing(req, mapped)
	if ep == messagesapi.Messages {
		// The answer is read to rename its model.
		out.Header.Set("Accept-Encoding", "identity")
	}
	resp, err = t.HTTPTransport.RoundTrip(out)
	mapped.Close() // see OpenAI.RoundTrip
	if err != nil || ep != messagesapi.Messages || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	return t.rename(resp, tk, string(asked))
}

// rename makes an answer name the model asked for.
func (t *Anthropic) rename(resp *http.Response, tk *budget.Ticket, asked string) (*http.Response, error) {
	body, err := decoded(resp)
	if err != nil {
		return nil, err
	}
	switch messagesapi.MediaType(resp.Header) {
	case messagesapi.EventStream:
		r := &renamingReader{src: body}
		r.names = modelname.NewSSE(&r.out, asked)
		streamBody(resp, &guardedBody{ReadCloser: r, logger: t.logger})
	case "application/json":
		return t.memory.heldAnswer(resp, body, tk, t.MaxResponseSize, func(b []byte) ([]byte, error) {
			b, _ = modelname.RewriteJSON(b, asked)
			return b, nil
		})
	default:
		resp.Body = body
	}
	return resp, nil
}

// renamingReader passes a Messages stream through modelname.SSE: each Read
// returns what one read of the upstream gave, the model of message_start
// renamed.
type renamingReader struct {
	src   io.ReadCloser
	names *modelname.SSE
	out   sink
	off   int
	buf   [32 << 10]byte
	err   error // how the upstream body ended, once it did
}

// sink collects what the renamer writes.
type sink struct{ b []byte }

func (s *sink) Write(p []byte) (int, error) {
	s.b = append(s.b, p...)
	return len(p), nil
}

// Read implements io.Reader.
func (r *renamingReader) Read(p []byte) (int, error) {
	for r.off == len(r.out.b) {
		if r.err != nil {
			return 0, r.err
		}
		r.out.b, r.off = r.out.b[:0], 0
		n, err := r.src.Read(r.buf[:])
		r.names.Write(r.buf[:n])
		if err != nil {
			// What the renamer still holds goes out before the end.
			r.names.Close()
			r.err = err
		}
	}
	n := copy(p, r.out.b[r.off:])
	r.off += n
	return n, nil
}

// Close closes the upstream body.
func (r *renamingReader) Close() error { return r.src.Close() }

// UnmarshalCaddyfile reads the transport's block: every `transport http`
// subdirective, and
//
//	transport anthropic {
//	    model <pattern> <model>     # repeatable, first match wins
//	    max_response_size <size>
//	}
func (t *Anthropic) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return unmarshal(d, &t.HTTPTransport, subdirectives{"model": &t.Models, "max_response_size": &t.MaxResponseSize})
}

// Interface guards
var _ reverseProxyTransport = (*Anthropic)(nil)
