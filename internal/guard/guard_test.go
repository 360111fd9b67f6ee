package guard

import (
	"net/http"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestRecover(t *testing.T) {
	core, logs := observer.New(zap.ErrorLevel)
	fellBack := false
	func() {
		defer Recover(zap.New(core), "handler", "anthropic", func() { fellBack = true })
		panic("a bug")
	}()
	entries := logs.All()
	if !fellBack || len(entries) != 1 || entries[0].Message != Event {
		t.Fatalf("fell back %v, logged %+v", fellBack, entries)
	}
	fields := entries[0].ContextMap()
	if fields["panic"] != "a bug" || fields["where"] != "handler" || fields["backend"] != "anthropic" || fields["stack"] == "" {
		t.Fatalf("fields %v", fields)
	}
}

func TestRecoverLetsAbortsThrough(t *testing.T) {
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Fatalf("recovered %v, want http.ErrAbortHandler", v)
		}
	}()
	defer Recover(zap.NewNop(), "handler", "", func() { t.Error("fell back on an abort") })
	panic(http.ErrAbortHandler)
}

func TestRecoverWithoutPanic(t *testing.T) {
	func() {
		defer Recover(zap.NewNop(), "handler", "", func() { t.Error("fell back without a panic") })
	}()
}
