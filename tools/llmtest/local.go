package llmtest

import (
	"net"
	"net/http"
	"net/http/httptest"
)

// startLocal serves h on a free port of 127.0.0.1 (httptest alone may pick
// [::1], which a config naming 127.0.0.1 would not reach).
func startLocal(h http.Handler) *httptest.Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("llmtest: listening on 127.0.0.1: " + err.Error())
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	return srv
}

// clone returns a copy of r that shares no memory with it, for a caller
// outside the lock that guards r.
func (r *Received) clone() Received {
	c := *r
	c.Header = r.Header.Clone()
	c.Body = append([]byte(nil), r.Body...)
	c.Response = append([]byte(nil), r.Response...)
	return c
}
