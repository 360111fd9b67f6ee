package transport

import (
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	"go.uber.org/zap"
)

// base is what each transport of ours keeps beside its options and does
// alike: its name in logs and errors, its logger, its share of the memory
// budget; provisioned, cleaned up and, for a translating one, its round
// trips served the same way.
type base struct {
	name   string // "transport openai", say
	logger *zap.Logger
	memory memory
}

// moduleInfo is the Caddy module information of transport name, which
// newModule makes.
func moduleInfo(name string, newModule func() caddy.Module) caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: caddy.ModuleID("http.reverse_proxy.transport." + name), New: newModule}
}

// checkOptions checks, for the transport named name, the options the
// translating transports share: the bounds, then what own checks (the
// transport's own options), then the model mappings.
func checkOptions(name string, models Models, maxTokens int, maxResponseSize int64, own func() error) error {
	if maxTokens < 0 || maxResponseSize < 0 {
		return fmt.Errorf("%s: max_tokens and max_response_size cannot be negative", name)
	}
	if err := own(); err != nil {
		return err
	}
	if err := models.Check(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// provision sets up the transport t, named name, whose http transport is
// ht: it checks the options, takes the default max_response_size, reads
// the transport's own options with setup (nil when it has none; its error
// is said to be the transport's), joins the memory budget and sets up the
// http transport.
func (b *base) provision(ctx caddy.Context, name string, t caddy.Validator, ht *reverseproxy.HTTPTransport, maxResponseSize *int64, setup func() error) error {
	b.name, b.logger = name, ctx.Logger()
	if err := t.Validate(); err != nil {
		return err
	}
	if *maxResponseSize == 0 {
		*maxResponseSize = DefaultMaxResponseSize
	}
	if setup != nil {
		if err := setup(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	b.memory.join(t, b.logger)
	return ht.Provision(ctx)
}

// cleanup lets go of the memory budget the transport t joined and of the
// http transport's connections.
func (b *base) cleanup(t any, ht *reverseproxy.HTTPTransport) error {
	b.memory.leave(t)
	return ht.Cleanup()
}

// serve answers req: a Messages request through the dialect round makes,
// for the model models maps, its JSON answer held up to maxResponseSize
// bytes, sent by next; any other request as next sends it (see
// translatedTrip).
func (b *base) serve(req *http.Request, next http.RoundTripper, models Models, maxResponseSize int64, round func() dialect) (*http.Response, error) {
	trip := translatedTrip{models: models, memory: &b.memory, maxResponseSize: maxResponseSize, logger: b.logger, next: next}
	return trip.serve(req, b.name, round)
}

// reverseProxyTransport is what each transport of ours is: a module set
// up, checked and cleaned up as Caddy's are, read from the Caddyfile, and
// a reverse_proxy transport that does all Caddy's http transport does (it
// embeds it).
type reverseProxyTransport interface {
	caddy.Provisioner
	caddy.Validator
	caddy.CleanerUpper
	http.RoundTripper
	caddyfile.Unmarshaler
	reverseproxy.TLSTransport
	reverseproxy.H2CTransport
	reverseproxy.HealthCheckSchemeOverriderTransport
	reverseproxy.ProxyProtocolTransport
}
