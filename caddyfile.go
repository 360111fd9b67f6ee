package llmthinking

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("llm_thinking", parseCaddyfile)
	// Rewriting has to happen before the request is proxied; with this
	// order, users need no `order` global option.
	httpcaddyfile.RegisterDirectiveOrder("llm_thinking", httpcaddyfile.Before, "reverse_proxy")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	var m Handler
	err := m.UnmarshalCaddyfile(h.Dispenser)
	return &m, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens:
//
//	llm_thinking [<matcher>] [<backend>] {
//	    backend       <name>
//	    mode          strip|convert_to_text|convert_to_tags|drop_signature
//	    registry      <name>
//	    max_blocks    <n>
//	    orphan_ttl    <duration>
//	    max_body_size <size>
//	}
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive name
	if d.NextArg() {
		h.Backend = d.Val()
		if d.NextArg() {
			return d.ArgErr()
		}
	}
	for d.NextBlock(0) {
		sub := d.Val()
		if !d.NextArg() {
			return d.ArgErr()
		}
		val := d.Val()
		if d.NextArg() {
			return d.Errf("%s takes one value, got another: %q", sub, d.Val())
		}
		switch sub {
		case "backend":
			h.Backend = val
		case "mode":
			if _, ok := modeActions[val]; !ok {
				return d.Errf("unknown mode %q: want strip, convert_to_text, convert_to_tags or drop_signature", val)
			}
			h.Mode = val
		case "registry":
			h.Registry = val
		case "max_blocks":
			n, err := strconv.Atoi(val)
			if err != nil || n <= 0 {
				return d.Errf("max_blocks must be a positive integer, got %q", val)
			}
			h.MaxBlocks = n
		case "orphan_ttl":
			dur, err := caddy.ParseDuration(val)
			if err != nil || dur <= 0 {
				return d.Errf("orphan_ttl must be a positive duration such as 5m, got %q", val)
			}
			h.OrphanTTL = caddy.Duration(dur)
		case "max_body_size":
			size, err := humanize.ParseBytes(val)
			if err != nil || size == 0 || size > 1<<40 {
				return d.Errf("max_body_size must be a size such as 32MiB, got %q", val)
			}
			h.MaxBodySize = int64(size)
		default:
			return d.Errf("unrecognized llm_thinking subdirective %q", sub)
		}
	}
	return nil
}

// Interface guard
var _ caddyfile.Unmarshaler = (*Handler)(nil)
