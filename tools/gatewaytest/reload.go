package gatewaytest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// A config change through the admin API (POST /load, a PATCH) returns once
// the new servers run and the old ones have been told to shut down, not
// once they have. Until the old server has closed its listener, it may
// still accept a connection and serve it with the old config; a connection
// it kept alive may carry one more request to it. So a change is followed
// by a wait on something observable: an idle kept-alive connection held on
// the old server before the change. net/http's Shutdown closes the
// listeners first and idle connections next, so once that connection is
// closed the old server accepts no more.

// oldServerTimeout bounds the wait for the old server to close the held
// connection; a reload under the race detector on a loaded machine is slow.
const oldServerTimeout = 15 * time.Second

// changeAt runs change, a config change through the admin API, and returns
// once the server that served siteURL before it (if any did) has stopped
// accepting connections.
func changeAt(siteURL string, change func() error) error {
	held := holdIdle(siteURL)
	if err := change(); err != nil {
		if held != nil {
			held.Close()
		}
		return err
	}
	if held == nil {
		return nil
	}
	return awaitClosed(held)
}

// holdIdle opens a connection to the server at siteURL, sends one request
// on it and reads the answer, leaving the connection idle and open. It
// returns nil when nothing serves there or the server does not keep the
// connection alive: there is then no old server to wait for.
func holdIdle(siteURL string) net.Conn {
	u, err := url.Parse(siteURL)
	if err != nil {
		return nil
	}
	conn, err := net.DialTimeout("tcp", u.Host, time.Second)
	if err != nil {
		return nil
	}
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	req, _ := http.NewRequest(http.MethodGet, siteURL+"/__gatewaytest/generation", nil)
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		conn.Close()
		return nil
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.Close {
		conn.Close()
		return nil
	}
	conn.SetDeadline(time.Time{})
	return conn
}

// awaitClosed waits until the server closes conn, and closes it.
func awaitClosed(conn net.Conn) error {
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(oldServerTimeout))
	var b [1]byte
	_, err := conn.Read(b[:])
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("the old server still kept its connections open %v after the config change", oldServerTimeout)
	}
	// EOF or a reset: the old server let go of the connection. A byte the
	// server sent unasked would be a broken server, which the test's own
	// requests will show.
	return nil
}
