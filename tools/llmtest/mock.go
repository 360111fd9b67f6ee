package llmtest

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// mock is what the mock servers of other APIs share: a server on
// 127.0.0.1, the requests it received, scripted failures, the key and the
// model it wants. Its lock also guards the fields of the mock that embeds
// it.
type mock struct {
	srv *httptest.Server

	mu       sync.Mutex
	received []*Received
	fail     []scriptedFailure
	key      string
	model    string
}

// setLocked sets *field to v with mu held: the mocks' settings, which
// tests change while the server runs.
func setLocked[T any](mu *sync.Mutex, field *T, v T) {
	mu.Lock()
	defer mu.Unlock()
	*field = v
}

// copyLocked returns a copy of *m taken with mu held.
func copyLocked[K comparable, V any](mu *sync.Mutex, m *map[K]V) map[K]V {
	mu.Lock()
	defer mu.Unlock()
	out := make(map[K]V, len(*m))
	maps.Copy(out, *m)
	return out
}

// putLocked sets (*m)[k] to v for each of keys with mu held, making the
// map first when there is none.
func putLocked[V any](mu *sync.Mutex, m *map[string]V, v V, keys ...string) {
	mu.Lock()
	defer mu.Unlock()
	if *m == nil {
		*m = make(map[string]V)
	}
	for _, k := range keys {
		(*m)[k] = v
	}
}

// start serves h on 127.0.0.1.
func (m *mock) start(h http.HandlerFunc) { m.srv = startLocal(h) }

// HostPort returns the listening address, "127.0.0.1:PORT".
func (m *mock) HostPort() string { return strings.TrimPrefix(m.srv.URL, "http://") }

// URL returns the base URL, "http://127.0.0.1:PORT".
func (m *mock) URL() string { return m.srv.URL }

// Close stops the server.
func (m *mock) Close() { m.srv.Close() }

// RequireKey makes every request without the key answer as the API
// answers a wrong key.
func (m *mock) RequireKey(key string) { setLocked(&m.mu, &m.key, key) }

// ServeModel makes every request for another model answer 404, as a
// server that serves one model does; "" serves any.
func (m *mock) ServeModel(model string) { setLocked(&m.mu, &m.model, model) }

// FailNext makes the next request get status with body as it is.
func (m *mock) FailNext(status int, body string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fail = append(m.fail, scriptedFailure{status, body})
}

// Requests returns a copy of every request received, in order.
func (m *mock) Requests() []Received { return copyReceived(&m.mu, &m.received) }

// copyReceived returns a copy of the requests *rs, taken with mu held.
func copyReceived(mu *sync.Mutex, rs *[]*Received) []Received {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Received, len(*rs))
	for i, r := range *rs {
		out[i] = r.clone()
	}
	return out
}

// streamEvent writes one event of a 200 event stream and flushes it:
// recorded first, so that a client that read it finds it in Requests.
func (m *mock) streamEvent(w http.ResponseWriter, rec *Received, event []byte) {
	m.mu.Lock()
	rec.Status, rec.Response = http.StatusOK, append(rec.Response, event...)
	m.mu.Unlock()
	w.Write(event)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// receive records a request, and returns it with the failure scripted
// for it, if any, and the key and model wanted.
func (m *mock) receive(r *http.Request, body []byte) (rec *Received, failure *scriptedFailure, key, model string) {
	rec = &Received{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.received = append(m.received, rec)
	if len(m.fail) > 0 {
		failure = &m.fail[0]
		m.fail = m.fail[1:]
	}
	return rec, failure, m.key, m.model
}

// reply records an answer and writes it: recorded first, so that a
// client that read it finds it in Requests.
func (m *mock) reply(w http.ResponseWriter, rec *Received, status int, ctype string, b []byte) {
	m.mu.Lock()
	rec.Status, rec.Response = status, append(rec.Response, b...)
	m.mu.Unlock()
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(status)
	w.Write(b)
}
