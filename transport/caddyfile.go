package transport

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/option"
)

// unmarshal reads a transport block: the subdirectives own handles (it
// reports whether it did), and every other one as Caddy's http transport
// reads it, so `transport openai { tls ... }` means what `transport http`
// means.
func unmarshal(d *caddyfile.Dispenser, ht *reverseproxy.HTTPTransport, own func(*caddyfile.Dispenser) (bool, error)) error {
	if !d.Next() {
		return d.ArgErr()
	}
	all := d.NextSegment()
	sd := caddyfile.NewDispenser(all)
	sd.Next()
	if sd.NextArg() {
		return sd.ArgErr()
	}
	rest := []caddyfile.Token{all[0]}
	block := false
	for sd.NextBlock(0) {
		block = true
		handled, err := own(sd)
		if err != nil {
			return err
		}
		if !handled {
			rest = append(rest, sd.NextSegment()...)
		}
	}
	if block {
		// The braces of the block, on the lines they were on.
		rest = append(rest[:1], append([]caddyfile.Token{all[1]}, rest[1:]...)...)
		rest = append(rest, all[len(all)-1])
	}
	return ht.UnmarshalCaddyfile(caddyfile.NewDispenser(rest))
}

// parseModel reads `model <pattern> <name>`.
func parseModel(d *caddyfile.Dispenser, models *Models) error {
	args := d.RemainingArgs()
	if len(args) != 2 {
		return d.Errf("model: want a pattern and a model name, got %d arguments", len(args))
	}
	*models = append(*models, ModelMap{Match: args[0], Model: args[1]})
	return nil
}

// parseOne reads the one argument of a subdirective.
func parseOne(d *caddyfile.Dispenser, dst *string) error {
	name := d.Val()
	if *dst != "" {
		return d.Errf("%s: given twice", name)
	}
	if !d.NextArg() {
		return d.ArgErr()
	}
	*dst = d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	return nil
}

// parseCount reads the one positive integer argument of a subdirective.
func parseCount(d *caddyfile.Dispenser, dst *int) error {
	return parseWith(d, dst, option.Count)
}

// parseSize reads the one size argument of a subdirective ("8MiB", or
// bytes).
func parseSize(d *caddyfile.Dispenser, dst *int64) error {
	return parseWith(d, dst, option.Size)
}

// parseWith reads the one argument of a subdirective with parse.
func parseWith[N int | int64](d *caddyfile.Dispenser, dst *N, parse func(name, val string) (N, error)) error {
	name := d.Val()
	if *dst != 0 {
		return d.Errf("%s: given twice", name)
	}
	var s string
	if err := parseOne(d, &s); err != nil {
		return err
	}
	n, err := parse(name, s)
	if err != nil {
		return d.Err(err.Error())
	}
	*dst = n
	return nil
}
