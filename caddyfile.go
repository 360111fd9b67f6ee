package llmthinking

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/option"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/policy"
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
//	    backend           <name>
//	    mode              strip|convert_to_text|convert_to_tags|drop_signature
//	    thinking_models   <glob>...
//	    think_tags        off|on|open
//	    think_tags_replay tags|thinking
//	    response_model    upstream|requested
//	    backend_profile   <backend> [<model glob>...] {
//	        thinking_back tool_calls|all
//	        thinking_type adaptive|enabled
//	        facts         <fact>...
//	    }
//	    registry          <name>
//	    max_blocks        <n>
//	    orphan_ttl        <duration>
//	    max_body_size     <size>
//	    max_response_size <size>
//	    retry_on_reject   on|off
//	    persist           on|off
//	    persist_interval  <duration>
//	    memory_wait       <duration>
//	}
//
// It only reads the values; Validate decides whether they are acceptable, so
// the Caddyfile and JSON configs give the same errors. Each subdirective may
// appear once, but backend_profile, once per backend and models.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive name
	// Each subdirective's line, to name both places of a repeated one.
	seen := make(map[string]int)
	if d.NextArg() {
		h.Backend = d.Val()
		seen["backend"] = d.Line()
		if d.NextArg() {
			return d.ArgErr()
		}
	}
	for d.NextBlock(0) {
		sub := d.Val()
		if sub == "backend_profile" {
			if err := h.unmarshalProfile(d); err != nil {
				return err
			}
			continue
		}
		if line, dup := seen[sub]; dup {
			return d.Errf("%s is given twice (first on line %d)", sub, line)
		}
		seen[sub] = d.Line()
		if sub == "thinking_models" {
			h.ThinkingModels = d.RemainingArgs()
			if len(h.ThinkingModels) == 0 {
				return d.ArgErr()
			}
			continue
		}
		if sub == "failover" {
			if err := h.unmarshalFailover(d); err != nil {
				return err
			}
			continue
		}
		if !d.NextArg() {
			return d.ArgErr()
		}
		val := d.Val()
		if d.NextArg() {
			return d.Errf("%s takes one value, got another: %q", sub, d.Val())
		}
		if err := h.setSubdirective(d, sub, val); err != nil {
			return err
		}
	}
	return nil
}

// unmarshalFailover reads a failover line and its block:
//
//	failover <backend> <backend>... {
//	    on   <status>...
//	    hold <duration>
//	}
func (h *Handler) unmarshalFailover(d *caddyfile.Dispenser) error {
	f := &Failover{Backends: d.RemainingArgs()}
	if len(f.Backends) == 0 {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		sub := d.Val()
		args := d.RemainingArgs()
		switch {
		case sub == "on" && len(args) > 0:
			for _, a := range args {
				status, err := strconv.Atoi(a)
				if err != nil {
					return d.Errf("failover on: %q is not a status", a)
				}
				f.On = append(f.On, status)
			}
		case sub == "hold" && len(args) == 1:
			dur, err := caddy.ParseDuration(args[0])
			if err != nil {
				return d.Errf("failover hold: %v", err)
			}
			hold := caddy.Duration(dur)
			f.Hold = &hold
		case sub == "on" || sub == "hold":
			return d.ArgErr()
		default:
			return d.Errf("unrecognized failover subdirective %q", sub)
		}
	}
	h.Failover = f
	return nil
}

// unmarshalProfile reads a backend_profile block; a thinking_back with no
// value is "all", what a backend that wants thinking back and says no more
// most likely wants.
func (h *Handler) unmarshalProfile(d *caddyfile.Dispenser) error {
	if !d.NextArg() {
		return d.Errf("backend_profile needs the backend's name")
	}
	bp := BackendProfile{Backend: d.Val(), Models: d.RemainingArgs()}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		sub := d.Val()
		args := d.RemainingArgs()
		if sub == "facts" {
			if len(args) == 0 {
				return d.ArgErr()
			}
			bp.Facts = append(bp.Facts, args...)
			continue
		}
		if len(args) > 1 {
			return d.Errf("%s takes one value, got %q", sub, args)
		}
		switch sub {
		case "thinking_back":
			bp.ThinkingBack = policy.ThinkingBackAll
			if len(args) == 1 {
				bp.ThinkingBack = args[0]
			}
		case "thinking_type":
			if len(args) == 0 {
				return d.ArgErr()
			}
			bp.ThinkingType = args[0]
		default:
			return d.Errf("unrecognized backend_profile subdirective %q", sub)
		}
	}
	h.BackendProfiles = append(h.BackendProfiles, bp)
	return nil
}

// setSubdirective reads one subdirective's value into its field.
func (h *Handler) setSubdirective(d *caddyfile.Dispenser, sub, val string) error {
	switch sub {
	case "backend":
		h.Backend = val
	case "mode":
		h.Mode = val
	case "think_tags":
		h.ThinkTags = val
	case "think_tags_replay":
		h.ThinkTagsReplay = val
	case "response_model":
		h.ResponseModel = val
	case "registry":
		h.Registry = val
	case "max_blocks":
		n, err := strconv.Atoi(val)
		if err != nil {
			return d.Errf("max_blocks must be an integer, got %q", val)
		}
		h.MaxBlocks = n
	case "orphan_ttl", "persist_interval", "memory_wait":
		dur, err := option.Duration(sub, val)
		if err != nil {
			return d.Err(err.Error())
		}
		switch sub {
		case "orphan_ttl":
			h.OrphanTTL = caddy.Duration(dur)
		case "persist_interval":
			h.PersistInterval = caddy.Duration(dur)
		default:
			h.MemoryWait = caddy.Duration(dur)
		}
	case "retry_on_reject", "persist":
		on, err := option.OnOff(sub, val)
		if err != nil {
			return d.Err(err.Error())
		}
		if sub == "persist" {
			h.Persist = &on
		} else {
			h.RetryOnReject = &on
		}
	case "memory_budget":
		return d.Errf("memory_budget is a global option, for the whole process: { llm_thinking { memory_budget %s } }", val)
	case "max_body_size", "max_response_size":
		size, err := option.Size(sub, val)
		if err != nil {
			return d.Err(err.Error())
		}
		if sub == "max_body_size" {
			h.MaxBodySize = size
		} else {
			h.MaxResponseSize = size
		}
	default:
		return d.Errf("unrecognized llm_thinking subdirective %q", sub)
	}
	return nil
}

// Interface guard
var _ caddyfile.Unmarshaler = (*Handler)(nil)
