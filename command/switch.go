package command

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"
)

// switchRequest is what `switch` was asked for.
type switchRequest struct {
	// route names the route to switch: an @id ("gateway", "@gateway" or
	// "/id/gateway") or a config path ("/config/apps/http/servers/srv0/routes/0");
	// empty for the one route of the config that holds an llm_thinking
	// handler.
	route string
	// backend is the backend to switch to.
	backend string
	// upstreams, when given, replace the upstreams of the reverse_proxy
	// handler that serves the backend, as dial addresses.
	upstreams []string
}

// switchBackend switches one route to another backend, and to other
// upstreams when given, with one change through the admin API: the config
// is read with its ETag, the route changed in memory and written back with
// PATCH and If-Match, so that every handler sees either the old route or
// the new one, and a change someone made meanwhile is never overwritten.
//
// The backend changes where the handler's backend comes from: when it is
// {vars.NAME} (or {http.vars.NAME}) and a vars handler of the route sets
// NAME, as in Caddyfile.example, that value changes, so that the
// reverse_proxy matchers reading it follow; a literal or unset backend
// becomes the new literal. Any other placeholder is chosen per request and
// cannot be switched. When the route picks its reverse_proxy by vars
// matchers on that variable, a backend none of them selects is unknown.
func switchBackend(out io.Writer, a admin, req switchRequest) error {
	if req.backend == "" {
		return errors.New("the backend to switch to is empty")
	}
	for _, u := range req.upstreams {
		if err := checkDial(u); err != nil {
			return err
		}
	}
	config, etag, err := a.config()
	if err != nil {
		return err
	}
	r, err := pick(config, req.route, a.addr)
	if err != nil {
		return err
	}
	s, err := apply(r, req.backend, req.upstreams)
	if err != nil {
		return err
	}
	if !s.changes() {
		return s.print(out, "nothing to switch in "+r.String())
	}
	body, err := json.Marshal(r.node)
	if err != nil {
		return err
	}
	if err := a.patch(r.path, etag, body); err != nil {
		return err
	}
	return s.print(out, "switched "+r.String())
}

// checkDial checks an upstream given on the command line. The admin API
// takes any dial address and only fails requests later, when it does not
// parse.
func checkDial(u string) error {
	if strings.Contains(u, "://") {
		return fmt.Errorf("upstream %q: give the address to dial, host:port (the transport, TLS included, stays as configured)", u)
	}
	addr, err := caddy.ParseNetworkAddress(u)
	switch {
	case err != nil:
		return fmt.Errorf("upstream %q: %v", u, err)
	case !addr.IsUnixNetwork() && (addr.StartPort == 0 || addr.PortRangeSize() != 1):
		return fmt.Errorf("upstream %q: give host:port, with one port", u)
	}
	return nil
}

// pick returns the route named name, or the config's one route that holds
// an llm_thinking handler when name is empty.
func pick(config any, name, addr string) (*route, error) {
	if name == "" {
		found := routes(config, configRoot, false)
		switch len(found) {
		case 0:
			return nil, fmt.Errorf("no llm_thinking handler in the config of the Caddy at %s", addr)
		case 1:
			return found[0], nil
		}
		return nil, fmt.Errorf("%d routes have an llm_thinking handler, name one with --route: %s", len(found), list(found))
	}
	path, err := resolve(config, name)
	if err != nil {
		return nil, err
	}
	n, _ := lookup(config, path)
	found := routes(n, path, true)
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("no llm_thinking handler in %s", path)
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("%s holds %d llm_thinking handlers, name one with --route: %s", path, len(found), list(found))
}

// resolve returns the config path that --route names.
func resolve(config any, name string) (string, error) {
	if name == configRoot || strings.HasPrefix(name, configRoot+"/") {
		path := strings.TrimSuffix(name, "/")
		if _, ok := lookup(config, path); !ok {
			return "", fmt.Errorf("--route %s: no such path in the config", name)
		}
		return path, nil
	}
	id := strings.TrimPrefix(strings.TrimPrefix(name, "/id/"), "@")
	path, ok := findID(config, id)
	if !ok {
		return "", fmt.Errorf("--route %s: no @id %q in the config", name, id)
	}
	return path, nil
}

// list names routes for a message.
func list(found []*route) string {
	names := make([]string, len(found))
	for i, r := range found {
		names[i] = r.String()
	}
	return strings.Join(names, ", ")
}

// change is one value before and after a switch.
type change struct {
	old, new string
	// via says where the value is set, when not in the obvious place.
	via string
}

// String says what happened to the value.
func (c change) String() string {
	var notes []string
	if c.via != "" {
		notes = append(notes, c.via)
	}
	s := c.old + " -> " + c.new
	if c.old == c.new {
		s = c.new
		notes = append(notes, "unchanged")
	}
	if len(notes) == 0 {
		return s
	}
	return s + " (" + strings.Join(notes, ", ") + ")"
}

// switched is what a switch changes in a route.
type switched struct {
	backend change
	// backendVar is the variable that names the backend, when a vars
	// handler of the route sets it; the change is made there.
	backendVar string
	// upstreams is nil when no one reverse_proxy handler serves the
	// backend.
	upstreams *change
}

// apply switches the route to backend, and its reverse_proxy that serves
// backend to upstreams when given, in the decoded config.
func apply(r *route, backend string, upstreams []string) (switched, error) {
	var s switched
	configured := str(r.handler, "backend")
	switch {
	case r.backendVar != "" && len(r.setters) == 1:
		s.backendVar = r.backendVar
		s.backend = change{old: fmt.Sprint(r.setters[0][r.backendVar]), new: backend, via: "vars " + r.backendVar}
	case len(r.setters) > 1:
		return s, fmt.Errorf("%s sets %s in %d vars handlers: cannot tell which one to change", r, r.backendVar, len(r.setters))
	case r.backendVar != "":
		return s, fmt.Errorf("the backend of %s is %s, which no vars handler of the route sets: change what sets it", r, configured)
	case strings.Contains(configured, "{"):
		return s, fmt.Errorf("%s chooses its backend per request (%s): there is no one backend to switch", r, configured)
	default:
		s.backend = change{old: configured, new: backend}
		if configured == "" {
			s.backend.old = "(upstream dialed)"
		}
	}
	serving := r.serving(backend)
	if r.selective() && len(serving) == 0 {
		return s, fmt.Errorf("unknown backend %q for %s: its reverse_proxy handlers serve %s (chosen by vars %s)", backend, r, strings.Join(r.known(), ", "), r.backendVar)
	}
	if len(upstreams) > 0 {
		switch {
		case len(serving) == 0:
			return s, fmt.Errorf("%s has no reverse_proxy handler to give the upstreams to", r)
		case len(serving) > 1 && r.selective():
			return s, fmt.Errorf("%d reverse_proxy handlers of %s serve %s: cannot tell which one gets the upstreams", len(serving), r, backend)
		case len(serving) > 1:
			return s, fmt.Errorf("%s has %d reverse_proxy handlers and none is selected by the backend: cannot tell which one gets the upstreams", r, len(serving))
		}
	}

	if s.backendVar != "" {
		r.setters[0][s.backendVar] = backend
	} else {
		r.handler["backend"] = backend
	}
	if len(serving) == 1 {
		old := dials(serving[0])
		s.upstreams = &change{old: strings.Join(old, ", "), new: strings.Join(old, ", ")}
		if len(upstreams) > 0 && !slices.Equal(old, upstreams) {
			list := make([]any, len(upstreams))
			for i, u := range upstreams {
				list[i] = map[string]any{"dial": u}
			}
			serving[0].handler["upstreams"] = list
			s.upstreams.new = strings.Join(upstreams, ", ")
		}
	}
	return s, nil
}

// changes reports whether the switch changes anything.
func (s switched) changes() bool {
	return s.backend.old != s.backend.new || (s.upstreams != nil && s.upstreams.old != s.upstreams.new)
}

// print reports the switch under the headline.
func (s switched) print(out io.Writer, headline string) error {
	var b strings.Builder
	b.WriteString(headline + "\n")
	b.WriteString("  backend:   " + s.backend.String() + "\n")
	if s.upstreams != nil {
		b.WriteString("  upstreams: " + s.upstreams.String() + "\n")
	}
	_, err := io.WriteString(out, b.String())
	return err
}
