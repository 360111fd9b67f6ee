package command

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
)

// admin is Caddy's admin API at one address. Requests go through
// caddycmd.AdminAPIRequest, as those of `caddy stop` and `caddy reload` do,
// so every address those accept (host:port, unix sockets) works here too.
type admin struct {
	addr string
}

// errConflict is what a change conditioned on an ETag gets when the config
// changed after it was read.
var errConflict = errors.New("the config changed while switching (another change came between reading and writing it): nothing was changed; run the command again")

// get returns the body of GET uri and its ETag.
func (a admin) get(uri string) ([]byte, string, error) {
	resp, err := a.do(http.MethodGet, uri, nil, nil)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", a.failed(http.MethodGet, uri, err)
	}
	return body, resp.Header.Get("Etag"), nil
}

// post sends body to uri and returns the answer's body.
func (a admin) post(uri string, body []byte) ([]byte, error) {
	resp, err := a.do(http.MethodPost, uri, http.Header{"Content-Type": {"application/json"}}, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, a.failed(http.MethodPost, uri, err)
	}
	return answer, nil
}

// patch replaces the config at uri with body, only if the config still
// hashes to etag: the admin API checks and changes under one lock, so a
// change made meanwhile by anyone else is never overwritten.
func (a admin) patch(uri, etag string, body []byte) error {
	resp, err := a.do(http.MethodPatch, uri, http.Header{"If-Match": {etag}}, body)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// attempts bounds the requests sent for one call. Caddy replaces its admin
// server on every config change (a switch is one), and a connection that
// reaches the old one as it closes is dropped unanswered: sending again
// reaches the new one. Sending a change again is safe: were the first one
// applied after all, If-Match would refuse the second.
const attempts = 3

// do sends a request until Caddy answers it, at most attempts times, and
// returns the answer when its status is below 400.
func (a admin) do(method, uri string, header http.Header, body []byte) (*http.Response, error) {
	var err error
	for range attempts {
		var r io.Reader
		if body != nil {
			r = bytes.NewReader(body)
		}
		var resp *http.Response
		if resp, err = caddycmd.AdminAPIRequest(a.addr, method, uri, header, r); err == nil {
			return resp, nil
		}
		if strings.HasPrefix(err.Error(), answered) {
			break
		}
	}
	return nil, a.failed(method, uri, err)
}

// answered prefixes the error caddycmd.AdminAPIRequest returns for an
// answer of 400 or more. It returns every other failure (no connection, a
// broken one, a bad address) as other text: the prefix is the only way to
// tell that Caddy answered.
const answered = "caddy responded with error: HTTP "

// failed explains a failed request to the admin API.
func (a admin) failed(method, uri string, err error) error {
	rest, ok := strings.CutPrefix(err.Error(), answered)
	if !ok {
		return fmt.Errorf("cannot reach Caddy's admin API at %s: %v (is Caddy running? use --address)", a.addr, err)
	}
	code, body, _ := strings.Cut(rest, ": ")
	status, _ := strconv.Atoi(code)
	if status == http.StatusPreconditionFailed {
		return errConflict
	}
	var apiErr struct {
		Error string `json:"error"`
	}
	if json.Unmarshal([]byte(body), &apiErr) == nil && apiErr.Error != "" {
		body = apiErr.Error
	}
	return fmt.Errorf("the admin API at %s answered %s %s with HTTP %d: %s", a.addr, method, uri, status, strings.TrimSpace(body))
}

// config returns the running config, decoded, and its ETag.
func (a admin) config() (any, string, error) {
	body, etag, err := a.get(configRoot + "/")
	if err != nil {
		return nil, "", err
	}
	config, err := decodeConfig(body)
	return config, etag, err
}
