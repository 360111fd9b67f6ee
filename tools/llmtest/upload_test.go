package llmtest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// An upload that stops midway (the sender closes its side of the
// connection before the body's Content-Length arrived) is no request: every
// mock drops the connection without an answer and records nothing, and the
// next request, whole, is recorded as it came.
func TestMocksIgnoreUploadsThatDidNotArriveWhole(t *testing.T) {
	type recorder interface {
		HostPort() string
		Requests() []Received
		Close()
	}
	mocks := []struct {
		name string
		mock recorder
		path string
	}{
		{"anthropic", NewUpstream("anthropic", Strict), "/v1/messages"},
		{"chat", NewChatUpstream("chat", DeepSeekStyle), "/v1/chat/completions"},
		{"responses", NewResponsesUpstream("responses"), "/v1/responses"},
		{"gemini", NewGeminiUpstream("gemini"), "/v1beta/models/gemini-2.5-pro:generateContent"},
	}
	const whole = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	for _, m := range mocks {
		t.Run(m.name, func(t *testing.T) {
			defer m.mock.Close()
			conn, err := net.Dial("tcp", m.mock.HostPort())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			part := whole[:20]
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
				m.path, m.mock.HostPort(), len(whole), part)
			if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
				t.Fatal(err)
			}
			// The mock closes the connection once its handler is done: what
			// it recorded is settled when the read ends.
			answer, err := io.ReadAll(conn)
			if err != nil && !strings.Contains(err.Error(), "connection reset") {
				t.Fatal(err)
			}
			if len(answer) != 0 {
				t.Errorf("answered a cut upload: %q", answer)
			}
			if got := m.mock.Requests(); len(got) != 0 {
				t.Fatalf("recorded a cut upload: %q", got[0].Body)
			}

			resp, err := http.Post("http://"+m.mock.HostPort()+m.path, "application/json", strings.NewReader(whole))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if got := m.mock.Requests(); len(got) != 1 || string(got[0].Body) != whole {
				t.Fatalf("recorded %d requests after a whole one, want it alone", len(got))
			}
		})
	}
}
