package transport

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/option"
)

// subdirectives names the subdirectives of a transport's own and the
// field each sets: a *string takes one argument, an *int a positive
// number, an *int64 a size, a *Models a pattern and a model (repeatable).
type subdirectives map[string]any

// unmarshal reads a transport block: the subdirectives own names, and
// every other one as Caddy's http transport reads it, so
// `transport openai { tls ... }` means what `transport http` means.
func unmarshal(d *caddyfile.Dispenser, ht *reverseproxy.HTTPTransport, own subdirectives) error {
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
		field, ok := own[sd.Val()]
		if !ok {
			rest = append(rest, sd.NextSegment()...)
		} else if err := parseInto(sd, field); err != nil {
			return err
		}
	}
	if block {
		// The braces of the block, on the lines they were on.
		rest = append(rest[:1], append([]caddyfile.Token{all[1]}, rest[1:]...)...)
		rest = append(rest, all[len(all)-1])
	}
	return ht.UnmarshalCaddyfile(caddyfile.NewDispenser(rest))
}

// parseInto reads the arguments of the subdirective d is at into field
// (see subdirectives).
func parseInto(d *caddyfile.Dispenser, field any) error {
	switch f := field.(type) {
	case *Models:
		return parseModel(d, f)
	case *string:
		return parseOne(d, f)
	case *int:
		return parseCount(d, f)
	case *int64:
		return parseSize(d, f)
	}
	return d.Errf("%s: a field of type %T cannot be read", d.Val(), field)
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
