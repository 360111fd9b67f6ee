package option

import (
	"testing"
	"time"
)

func TestValues(t *testing.T) {
	if n, err := Size("max_body_size", "32MiB"); err != nil || n != 32<<20 {
		t.Errorf("32MiB: %d %v", n, err)
	}
	if n, err := Size("max_response_size", "1048576"); err != nil || n != 1<<20 {
		t.Errorf("bytes: %d %v", n, err)
	}
	if d, err := Duration("memory_wait", "1d"); err != nil || d != 24*time.Hour {
		t.Errorf("1d: %v %v", d, err)
	}
	if on, err := OnOff("persist", "off"); err != nil || on {
		t.Errorf("off: %v %v", on, err)
	}
	if n, err := Count("max_tokens", "8192"); err != nil || n != 8192 {
		t.Errorf("8192: %d %v", n, err)
	}
	if err := OneOf("mode", "", "a", "b"); err != nil {
		t.Errorf("empty: %v", err)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{second(Size("max_body_size", "lots")), `max_body_size must be a size such as 32MiB, got "lots"`},
		{second(Duration("orphan_ttl", "soon")), `orphan_ttl must be a duration such as 5m, got "soon"`},
		{second(OnOff("persist", "yes")), `persist takes on or off, got "yes"`},
		{second(Count("max_tokens", "-1")), `max_tokens must be a positive number, got "-1"`},
		{OneOf("think_tags", "maybe", "off", "on", "open"), `think_tags must be off, on or open, got "maybe"`},
	} {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("got %v, want %s", tc.err, tc.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }
