package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"time"
)

// loadPath is the route of load l through gateway g. It ends in
// /v1/messages, as the paths llm_thinking handles do.
func loadPath(g gateway, l *load) string {
	return "/" + g.slug + "/" + l.slug + "/v1/messages"
}

// A route is what the upstream expects and answers on one path.
type route struct {
	query  string // the query it must come with
	expect expectation
	reply  *reply
	// pacer, when set, holds each event of the reply back until the client
	// read the one before; with firstOnly, only the first one.
	pacer     *pacer
	firstOnly bool
}

// routes returns the upstream's routes: one per load and gateway, and per
// probed stream and gateway the lockstep check's and the first-byte
// probe's.
func routes(ls loads, p *pacer) map[string]route {
	rs := make(map[string]route)
	add := func(g gateway, l *load, path string, rt route) {
		path, rt.query = l.upstreamPath(g, path)
		rt.expect, rt.reply = l.expectation(g), l.reply
		rs[path] = rt
	}
	for _, g := range gateways {
		for _, l := range ls.all() {
			add(g, l, loadPath(g, l), route{})
		}
		for _, l := range ls.probed() {
			add(g, l, lockstepPath(l), route{pacer: p})
			add(g, l, firstBytePath(l), route{pacer: p, firstOnly: true})
		}
	}
	return rs
}

// An upstream plays the backend behind both gateways. It checks every body
// it receives against its route's expectation and answers one that differs
// with status 500 and what differs, which fails the client's request and
// so the run.
type upstream struct {
	addr   string
	routes map[string]route
	server *http.Server
}

// startUpstream serves routes on a free port of 127.0.0.1.
func startUpstream(routes map[string]route) (*upstream, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the upstream: %w", err)
	}
	u := &upstream{addr: l.Addr().String(), routes: routes}
	u.server = &http.Server{Handler: u, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := u.server.Serve(l); !errors.Is(err, http.ErrServerClosed) {
			log.Printf("upstream stopped serving: %v", err)
		}
	}()
	return u, nil
}

// close stops the upstream.
func (u *upstream) close() { u.server.Close() }

// ServeHTTP checks the request's body and answers it.
func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, ok := u.routes[r.URL.Path]
	if !ok {
		http.Error(w, "upstream: no route "+r.URL.Path, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err == nil && r.URL.RawQuery != rt.query {
		err = fmt.Errorf("received the query %q, want %q", r.URL.RawQuery, rt.query)
	}
	if err == nil {
		err = rt.expect.check(body)
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("upstream: %s: %v", r.URL.Path, err), http.StatusInternalServerError)
		return
	}
	if err := rt.answer(w); err != nil {
		log.Printf("upstream: %s: answer cut short: %v", r.URL.Path, err)
	}
}

// answer writes the route's reply: a message whole, a stream event by
// event, flushing each, paced if the route says so.
func (rt route) answer(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", rt.reply.contentType)
	if !rt.reply.stream() {
		w.Header().Set("Content-Length", strconv.Itoa(len(rt.reply.body)))
		_, err := w.Write(rt.reply.body)
		return err
	}
	rc := http.NewResponseController(w)
	for i, event := range rt.reply.events {
		if _, err := w.Write(event); err != nil {
			return err
		}
		if err := rc.Flush(); err != nil {
			return err
		}
		if rt.pacer != nil && (i == 0 || !rt.firstOnly) {
			if err := rt.pacer.awaitRead(i); err != nil {
				return err
			}
		}
	}
	return nil
}
