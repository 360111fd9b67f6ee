package main

import (
	"fmt"
	"strings"
)

// A gateway is one of the two Caddy configs compared; both proxy to the
// same upstream.
type gateway struct {
	name string // as the report names it
	slug string // in the upstream's paths
	// handler is the Caddyfile directive that comes before reverse_proxy,
	// "" for none.
	handler string
	// proxy is the block of the site's reverse_proxy ("transport openai"),
	// "" for none. llm_thinking's gateway sends the translated loads
	// through their transports besides (see apis).
	proxy string
	// memoryBudget is llm_thinking's global option memory_budget, ""
	// for its default.
	memoryBudget string
}

// Indexes of the gateways, in gateways and in everything measured of them.
const (
	viaPlain = iota
	viaLLMThinking
)

// maxBlocks bounds the registry, in the Caddyfile and in the storage
// seeded for it, above what the loads and the filler blocks need, so that
// nothing is evicted.
const maxBlocks = 200_000

// gateways are the configs compared.
var gateways = [2]gateway{
	viaPlain: {name: "plain", slug: "plain"},
	viaLLMThinking: {
		name:    "llm_thinking",
		slug:    "llm-thinking",
		handler: fmt.Sprintf("llm_thinking %s {\n\t\tmax_blocks %d\n\t}", gatewayBackend, maxBlocks),
	},
}

// rewrites reports whether the gateway may change request bodies: only
// llm_thinking does.
func (g gateway) rewrites() bool { return g.handler != "" }

// caddyfile returns the Caddyfile of the gateway: the site on sitePort
// proxying to upstream, the admin API on adminPort for /llm_thinking/stats
// and /debug/pprof, and only errors logged.
func (g gateway) caddyfile(sitePort, adminPort int, upstream string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{\n\tadmin 127.0.0.1:%d\n\tpersist_config off\n\tauto_https off\n\tlog {\n\t\tlevel ERROR\n\t}\n", adminPort)
	if g.memoryBudget != "" {
		fmt.Fprintf(&b, "\tllm_thinking {\n\t\tmemory_budget %s\n\t}\n", g.memoryBudget)
	}
	b.WriteString("}\n")
	fmt.Fprintf(&b, "http://127.0.0.1:%d {\n", sitePort)
	if g.handler != "" {
		fmt.Fprintf(&b, "\t%s\n", g.handler)
	}
	if g.rewrites() {
		// Each translated load reaches the upstream through its API's
		// transport; plain reverse_proxy relays it untranslated.
		for _, a := range apis {
			fmt.Fprintf(&b, "\t@%s path */%s/* /lockstep-%s/* /first-%s/*\n\treverse_proxy @%s %s {\n\t\t%s\n\t}\n",
				a.slug, a.slug, a.slug, a.slug, a.slug, upstream, a.transport)
		}
	}
	if g.proxy != "" {
		fmt.Fprintf(&b, "\treverse_proxy %s {\n\t\t%s\n\t}\n}\n", upstream, g.proxy)
	} else {
		fmt.Fprintf(&b, "\treverse_proxy %s\n}\n", upstream)
	}
	return b.String()
}
