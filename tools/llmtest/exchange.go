package llmtest

import (
	"io"
	"net/http"
	"testing"
)

// Exchange sends req with c and returns the answer's status, header and
// body, read whole. It fails the test if the request or the read fails:
// the tests that use it judge answers, not transport errors.
func Exchange(t testing.TB, c *http.Client, req *http.Request) (int, http.Header, []byte) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}
