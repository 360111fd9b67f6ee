package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"time"
)

// requestTimeout bounds every request, streams included.
const requestTimeout = 30 * time.Second

// A client sends requests to one gateway, one at a time over a kept-alive
// connection, and checks that every answer arrives whole.
type client struct {
	http    *http.Client
	site    string // the gateway's base URL
	gateway gateway
	buf     []byte
	sent    int // requests sent, to cycle over a load's sessions
}

// newClient returns a client of the gateway g serving at site. It asks for
// no compression, so that it receives the upstream's bytes as they are.
func newClient(site string, g gateway) *client {
	return &client{
		http:    &http.Client{Timeout: requestTimeout, Transport: &http.Transport{DisableCompression: true}},
		site:    site,
		gateway: g,
		buf:     make([]byte, 32<<10),
	}
}

// close closes the client's idle connection.
func (c *client) close() { c.http.CloseIdleConnections() }

// post sends body to path with the headers Claude Code sends, the session
// header only when session is not "".
func (c *client) post(path, session string, body []byte) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, c.site+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if session != "" {
		req.Header.Set("X-Claude-Code-Session-Id", session)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		return nil, fmt.Errorf("%s answered %d: %s", path, resp.StatusCode, bytes.TrimSpace(msg))
	}
	return resp, nil
}

// send posts the load through the gateway, checks that the answer is the
// upstream's reply, whole and unchanged, and returns the time from sending
// to the answer's first byte.
func (c *client) send(l *load) (time.Duration, error) {
	path := loadPath(c.gateway, l)
	start := time.Now()
	resp, err := c.post(path, l.session(c.sent), l.body)
	c.sent++
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	h := sha256.New()
	var n int
	var first time.Duration
	for {
		m, err := resp.Body.Read(c.buf)
		if m > 0 && n == 0 {
			first = time.Since(start)
		}
		h.Write(c.buf[:m])
		n += m
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("%s: read the answer after %d bytes: %w", path, n, err)
		}
	}
	want := l.answer(c.gateway)
	if n != len(want.body) || !bytes.Equal(h.Sum(nil), want.sum[:]) {
		return 0, fmt.Errorf("%s: the answer arrived incomplete or changed: %d bytes, want %d", path, n, len(want.body))
	}
	return first, nil
}
