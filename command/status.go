package command

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/adminapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/policy"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/persist"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/transport"
)

// The mode and the registry of a handler that names none, as the module's
// Provision sets them.
const (
	defaultMode     = policy.ModeStrip
	defaultRegistry = registry.DefaultName
)

// statusReport is what `status --json` prints.
type statusReport struct {
	// Handlers holds one entry per llm_thinking handler, in config order.
	Handlers []handlerStatus `json:"handlers"`
	// Registries is the "registries" member of GET /llm_thinking/stats,
	// as the admin API served it.
	Registries json.RawMessage `json:"registries"`
	// Memory is its "memory" member, the memory budget of the process;
	// absent from a Caddy built before the budget.
	Memory json.RawMessage `json:"memory,omitempty"`
	// Backends is its "backends" member: what each backend used, and how
	// often a request went on from it.
	Backends map[string]adminapi.BackendStats `json:"backends,omitempty"`
}

// handlerStatus is one llm_thinking handler and its route.
type handlerStatus struct {
	// Server is the HTTP server the route belongs to.
	Server string `json:"server,omitempty"`
	// Route is the route's config path, what switch --route takes.
	Route string `json:"route"`
	// ID is the route's @id, which switch --route takes too.
	ID string `json:"id,omitempty"`
	// Backend is the backend name the config gives the route, when it
	// tells one: the literal backend, or the value the route's vars
	// handler gives the variable the backend reads.
	Backend string `json:"backend,omitempty"`
	// BackendConfig is the handler's backend as configured; absent when
	// unset (the backend is then the upstream dialed).
	BackendConfig string `json:"backend_config,omitempty"`
	// BackendVar is the variable the backend reads, when the route's vars
	// handler sets it.
	BackendVar string `json:"backend_var,omitempty"`
	// Mode and Registry are the handler's, defaults filled in.
	Mode     string `json:"mode"`
	Registry string `json:"registry"`
	// Proxies are the route's reverse_proxy handlers, in config order.
	Proxies []proxyStatus `json:"proxies"`
}

// proxyStatus is one reverse_proxy handler of a route.
type proxyStatus struct {
	// SelectedBy holds the backend names whose vars matcher selects it;
	// absent when none does.
	SelectedBy []string `json:"selected_by,omitempty"`
	// Upstreams are the dial addresses of its upstreams.
	Upstreams []string `json:"upstreams"`
	// Protocol is its transport: "http" (the default), "openai" (chat
	// completions), "responses" (OpenAI's Responses API), "gemini",
	// "anthropic" (model names mapped), or another module.
	Protocol string `json:"protocol"`
	// Models is the transport's model map, in order; absent when it has
	// none.
	Models transport.Models `json:"models,omitempty"`
}

// status prints every llm_thinking handler of the running config and the
// statistics of every registry: as two tables, or as one JSON document.
func status(out io.Writer, a admin, asJSON bool) error {
	config, _, err := a.config()
	if err != nil {
		return err
	}
	body, _, err := a.get(adminapi.StatsPath)
	if err != nil {
		return err
	}
	var stats struct {
		Registries json.RawMessage                  `json:"registries"`
		Memory     json.RawMessage                  `json:"memory"`
		Backends   map[string]adminapi.BackendStats `json:"backends"`
	}
	if err := json.Unmarshal(body, &stats); err != nil {
		return fmt.Errorf("decoding %s: %w", adminapi.StatsPath, err)
	}
	report := statusReport{Handlers: []handlerStatus{}, Registries: stats.Registries, Memory: stats.Memory, Backends: stats.Backends}
	for _, r := range routes(config, configRoot, false) {
		report.Handlers = append(report.Handlers, statusOf(r))
	}
	if asJSON {
		b, err := json.MarshalIndent(report, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "%s\n", b)
		return err
	}
	var registries map[string]adminapi.RegistryStats
	if err := json.Unmarshal(stats.Registries, &registries); err != nil {
		return fmt.Errorf("decoding %s: %w", adminapi.StatsPath, err)
	}
	var memory *budget.Stats
	if stats.Memory != nil {
		memory = new(budget.Stats)
		if err := json.Unmarshal(stats.Memory, memory); err != nil {
			return fmt.Errorf("decoding %s: %w", adminapi.StatsPath, err)
		}
	}
	if err := printStatus(out, report.Handlers, registries, memory); err != nil {
		return err
	}
	return printBackends(out, stats.Backends)
}

// printBackends prints what each backend used and how often a request went
// on from it, when any backend answered.
func printBackends(out io.Writer, backends map[string]adminapi.BackendStats) error {
	if len(backends) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "BACKEND	INPUT TOKENS	OUTPUT TOKENS	CACHE READ	CACHE CREATION	FAILED OVER")
	for _, name := range slices.Sorted(maps.Keys(backends)) {
		b := backends[name]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\n", name, b.Tokens.Input, b.Tokens.Output, b.Tokens.CacheRead, b.Tokens.CacheCreation, b.Failovers)
	}
	return tw.Flush()
}

// statusOf reports the route's handler.
func statusOf(r *route) handlerStatus {
	s := handlerStatus{
		Server:        r.server(),
		Route:         r.path,
		ID:            r.id(),
		BackendConfig: str(r.handler, "backend"),
		Mode:          cmp.Or(str(r.handler, "mode"), defaultMode),
		Registry:      cmp.Or(str(r.handler, "registry"), defaultRegistry),
		Proxies:       []proxyStatus{},
	}
	s.Backend, _ = r.backendValue()
	if len(r.setters) > 0 {
		s.BackendVar = r.backendVar
	}
	for _, p := range r.proxies {
		protocol, models := transportOf(p)
		s.Proxies = append(s.Proxies, proxyStatus{SelectedBy: p.selectedBy, Upstreams: dials(p), Protocol: protocol, Models: models})
	}
	return s
}

// printStatus prints the handlers, the registries and the memory budget
// (when the admin API reports it) as three tables.
func printStatus(out io.Writer, handlers []handlerStatus, registries map[string]adminapi.RegistryStats, memory *budget.Stats) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	if len(handlers) == 0 {
		fmt.Fprintln(tw, "no llm_thinking handler in the config")
	} else {
		fmt.Fprintln(tw, "SERVER\tROUTE\tID\tBACKEND\tMODE\tREGISTRY\tUPSTREAMS")
	}
	for _, h := range handlers {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", dash(h.Server), h.Route, dash(h.ID), describe(h), h.Mode, h.Registry, upstreams(h.Proxies))
	}
	fmt.Fprintln(tw)
	if len(registries) == 0 {
		fmt.Fprintln(tw, "no registry in use")
	} else {
		fmt.Fprintln(tw, "REGISTRY\tBLOCKS\tCONFIRMED\tUNCONFIRMED\tCONVERSATIONS\tTHREADS\tSWITCHES\tRETRIES\tREFUSALS\tPERSIST")
	}
	for _, name := range slices.Sorted(maps.Keys(registries)) {
		s := registries[name]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", name, s.Blocks, s.Confirmed, s.Unconfirmed, s.Conversations, s.Threads, s.Switches, s.Retries, s.Refusals, persistence(s.Persist))
	}
	printLearned(tw, registries)
	if memory != nil {
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "MEMORY BUDGET\tHELD\tIN USE\tPEAK\tWAITS\tOVERLOADED (529)\tANSWERS UNREAD")
		size := func(n int64) string { return humanize.IBytes(uint64(max(n, 0))) }
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\n", size(memory.Budget), size(memory.Held),
			size(memory.InUse), size(memory.Peak), memory.Waits, memory.Overloaded, memory.Unobserved)
	}
	return tw.Flush()
}

// printLearned prints what the registries learned of backends' models, when
// they learned anything.
func printLearned(tw io.Writer, registries map[string]adminapi.RegistryStats) {
	header := false
	for _, name := range slices.Sorted(maps.Keys(registries)) {
		for _, c := range registries[name].Capabilities {
			if !header {
				fmt.Fprintln(tw)
				fmt.Fprintln(tw, "REGISTRY\tBACKEND\tMODEL\tLEARNED\tSINCE")
				header = true
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, c.Backend, c.Model, strings.Join(c.Names, " "), c.At.UTC().Format(time.RFC3339))
		}
	}
}

// describe says in words what a handler's backend is.
func describe(h handlerStatus) string {
	switch {
	case h.BackendConfig == "":
		return "(upstream dialed)"
	case h.Backend != "" && h.BackendVar != "":
		return h.Backend + " (vars " + h.BackendVar + ")"
	case h.Backend != "":
		return h.Backend
	default:
		return h.BackendConfig
	}
}

// upstreams lists the upstreams of a route's reverse_proxy handlers, each
// after the backend names that select it, with its protocol and model map
// when it speaks another than plain http.
func upstreams(proxies []proxyStatus) string {
	var parts []string
	for _, p := range proxies {
		addrs := dash(strings.Join(p.Upstreams, ", "))
		if p.SelectedBy != nil {
			addrs = strings.Join(p.SelectedBy, "|") + ": " + addrs
		}
		if p.Protocol != "http" || len(p.Models) > 0 {
			desc := []string{p.Protocol}
			for _, m := range p.Models {
				desc = append(desc, m.Match+" -> "+m.Model)
			}
			addrs += " [" + strings.Join(desc, ", ") + "]"
		}
		parts = append(parts, addrs)
	}
	return dash(strings.Join(parts, "; "))
}

// persistence summarizes a registry's storage work.
func persistence(s *persist.Stats) string {
	if s == nil {
		return "off"
	}
	return fmt.Sprintf("%d writes, %d failures, %d unwritten, %d dropped, %d loaded, %d bad", s.Writes, s.Failures, s.Unwritten, s.Dropped, s.Loaded, s.Bad)
}

// dash stands for an empty cell.
func dash(s string) string { return cmp.Or(s, "-") }
