package gatewaytest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestChangeAtWaitsForTheOldServer plays a reload whose old server shuts
// down some time after the change returned, as Caddy's may: changeAt must
// not return before, and once it has, the old server accepts nothing more.
func TestChangeAtWaitsForTheOldServer(t *testing.T) {
	old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer old.Close()
	changed := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- changeAt(old.URL, func() error { close(changed); return nil }) }()
	<-changed
	// Nothing can make a correct changeAt return here; a wrong one returns
	// at once, well within this bound.
	select {
	case err := <-done:
		t.Fatalf("changeAt returned (%v) while the old server still served", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := old.Config.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if conn, err := net.DialTimeout("tcp", old.Listener.Addr().String(), time.Second); err == nil {
		conn.Close()
		t.Fatal("the old server still accepted a connection after changeAt returned")
	}
}

func TestChangeAtWithNothingServing(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ran := false
	if err := changeAt("http://"+addr, func() error { ran = true; return nil }); err != nil || !ran {
		t.Fatalf("changeAt = %v, change ran: %v", err, ran)
	}
	failed := errors.New("refused")
	if err := changeAt("http://"+addr, func() error { return failed }); !errors.Is(err, failed) {
		t.Fatalf("changeAt = %v, want the change's error", err)
	}
}
