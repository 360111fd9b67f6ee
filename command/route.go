package command

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/transport"
)

// handlerName is the name of the module's handler in JSON configs.
const handlerName = "llm_thinking"

// route is the unit that status reports and switch changes: the outermost
// route that holds one llm_thinking handler and no other. A Caddyfile site
// block becomes one route of its server, which holds the handler, the vars
// handler that names the backend and the reverse_proxy handlers (each
// directive in a route of its own, inside a subroute); a site with several
// handle blocks, each with its llm_thinking, gives one route per block.
//
// Its maps point into the decoded config: changing them changes the config
// that is written back.
type route struct {
	// path is the route's config path, what --route takes.
	path string
	// node is the route object itself.
	node map[string]any
	// handler is its llm_thinking handler.
	handler map[string]any
	// backendVar is NAME when the handler's backend is {vars.NAME} or
	// {http.vars.NAME}.
	backendVar string
	// setters are the route's vars handlers that set backendVar.
	setters []map[string]any
	// proxies are the route's reverse_proxy handlers, in config order.
	proxies []proxy
}

// proxy is a reverse_proxy handler of a route.
type proxy struct {
	handler map[string]any
	// selectedBy holds the values of the backend variable that select this
	// proxy through a vars matcher; nil when no vars matcher on that
	// variable guards it.
	selectedBy []string
}

// routes returns the routes in n (at config path path) that hold one
// llm_thinking handler each, in config order. isRoute says that n itself
// is a route, as a route named by --route is.
func routes(n any, path string, isRoute bool) []*route {
	count := countHandlers(n)
	obj, _ := n.(map[string]any)
	switch {
	case count == 0:
		return nil
	case count == 1 && isRoute && obj != nil:
		return []*route{newRoute(path, obj)}
	case obj != nil && obj["handler"] == handlerName:
		// A handler beside others in one route: nothing but the handler
		// itself holds it alone.
		return []*route{newRoute(path, obj)}
	}
	var out []*route
	switch v := n.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if list, ok := v[k].([]any); ok && k == "routes" {
				for i, e := range list {
					out = append(out, routes(e, path+"/routes/"+strconv.Itoa(i), true)...)
				}
				continue
			}
			out = append(out, routes(v[k], path+"/"+k, false)...)
		}
	case []any:
		for i, e := range v {
			out = append(out, routes(e, path+"/"+strconv.Itoa(i), false)...)
		}
	}
	return out
}

// countHandlers counts the llm_thinking handlers in n.
func countHandlers(n any) int {
	count := 0
	walk(n, "", nil, func(obj map[string]any, _ string, _ []map[string]any) bool {
		if obj["handler"] == handlerName {
			count++
		}
		return true
	})
	return count
}

// newRoute reads the route at path, which holds one llm_thinking handler.
func newRoute(path string, node map[string]any) *route {
	r := &route{path: path, node: node}
	walk(node, path, nil, func(obj map[string]any, _ string, _ []map[string]any) bool {
		if r.handler == nil && obj["handler"] == handlerName {
			r.handler = obj
		}
		return r.handler == nil
	})
	r.backendVar = varOf(str(r.handler, "backend"))
	walk(node, path, nil, func(obj map[string]any, _ string, outer []map[string]any) bool {
		switch obj["handler"] {
		case "vars":
			if _, ok := obj[r.backendVar]; ok && r.backendVar != "" {
				r.setters = append(r.setters, obj)
			}
		case "reverse_proxy":
			r.proxies = append(r.proxies, proxy{handler: obj, selectedBy: selection(outer, r.backendVar)})
			return false
		}
		return true
	})
	return r
}

// varOf returns NAME when backend is exactly {vars.NAME} or
// {http.vars.NAME}, the placeholders of a variable a vars handler sets.
func varOf(backend string) string {
	for _, prefix := range []string{"{vars.", "{http.vars."} {
		if name, ok := strings.CutPrefix(backend, prefix); ok && strings.HasSuffix(name, "}") && len(name) > 1 {
			return strings.TrimSuffix(name, "}")
		}
	}
	return ""
}

// selection returns the values of the variable name that the vars
// matchers of the innermost route among outer that has one on it accept,
// or nil when none has.
func selection(outer []map[string]any, name string) []string {
	if name == "" {
		return nil
	}
	for _, obj := range slices.Backward(outer) {
		sets, _ := obj["match"].([]any)
		var values []string
		found := false
		for _, set := range sets {
			matchers, _ := set.(map[string]any)
			vars, _ := matchers["vars"].(map[string]any)
			for key, accepted := range vars {
				if key != name && key != "{vars."+name+"}" && key != "{http.vars."+name+"}" {
					continue
				}
				found = true
				list, _ := accepted.([]any)
				for _, v := range list {
					if s, ok := v.(string); ok && !slices.Contains(values, s) {
						values = append(values, s)
					}
				}
			}
		}
		if found {
			return append([]string{}, values...)
		}
	}
	return nil
}

// selective reports whether the route picks its reverse_proxy by the
// backend variable, as Caddyfile.example does.
func (r *route) selective() bool {
	return slices.ContainsFunc(r.proxies, func(p proxy) bool { return p.selectedBy != nil })
}

// serving returns the reverse_proxy handlers that serve the backend name:
// in a selective route, those its vars matchers select for name, else
// those no vars matcher on the variable guards; in any other route, all.
func (r *route) serving(name string) []proxy {
	if !r.selective() {
		return r.proxies
	}
	var selected, open []proxy
	for _, p := range r.proxies {
		switch {
		case slices.Contains(p.selectedBy, name):
			selected = append(selected, p)
		case p.selectedBy == nil:
			open = append(open, p)
		}
	}
	if len(selected) > 0 {
		return selected
	}
	return open
}

// known returns the backend names the route's vars matchers select a
// reverse_proxy for, in config order.
func (r *route) known() []string {
	var names []string
	for _, p := range r.proxies {
		for _, v := range p.selectedBy {
			if !slices.Contains(names, v) {
				names = append(names, v)
			}
		}
	}
	return names
}

// server returns the name of the HTTP server the route belongs to, or ""
// when it is not under apps/http/servers.
func (r *route) server() string {
	rest, ok := strings.CutPrefix(r.path, configRoot+"/apps/http/servers/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}

// id returns the route's @id, or "".
func (r *route) id() string { return str(r.node, "@id") }

// String names the route in messages: its path, and its @id if any.
func (r *route) String() string {
	if id := r.id(); id != "" {
		return r.path + " (@id " + id + ")"
	}
	return r.path
}

// backendValue returns the backend name the config sets for the route,
// and whether it can tell: the literal backend, or the value its one vars
// handler gives the variable.
func (r *route) backendValue() (string, bool) {
	switch configured := str(r.handler, "backend"); {
	case r.backendVar != "":
		if len(r.setters) != 1 {
			return "", false
		}
		v, ok := r.setters[0][r.backendVar].(string)
		return v, ok
	case configured == "" || strings.Contains(configured, "{"):
		return "", false
	default:
		return configured, true
	}
}

// dials returns the dial addresses of a reverse_proxy handler's upstreams.
func dials(p proxy) []string {
	list, _ := p.handler["upstreams"].([]any)
	out := []string{}
	for _, u := range list {
		if obj, ok := u.(map[string]any); ok {
			out = append(out, str(obj, "dial"))
		}
	}
	return out
}

// transportOf returns a reverse_proxy handler's transport protocol ("http"
// when it names none) and its model map, in order.
func transportOf(p proxy) (string, transport.Models) {
	t, _ := p.handler["transport"].(map[string]any)
	protocol := cmp.Or(str(t, "protocol"), "http")
	list, _ := t["models"].([]any)
	var models transport.Models
	for _, m := range list {
		if obj, ok := m.(map[string]any); ok {
			models = append(models, transport.ModelMap{Match: str(obj, "match"), Model: str(obj, "model")})
		}
	}
	return protocol, models
}
