// Package option reads the values of configuration options the same way
// for the llm_thinking handler and the transports: sizes with or without a
// unit, durations as Caddy writes them, on and off, counts, and a word out
// of a list. Each error names the option and the value it got.
package option

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/dustin/go-humanize"
)

// Size reads a size in bytes, with a unit or without: "32MiB", "8MB",
// "1048576".
func Size(name, val string) (int64, error) {
	n, err := humanize.ParseBytes(val)
	if err != nil || n > math.MaxInt64 {
		return 0, fmt.Errorf("%s must be a size such as 32MiB, got %q", name, val)
	}
	return int64(n), nil
}

// Duration reads a duration as Caddy does: "5m", "500ms", "1d".
func Duration(name, val string) (time.Duration, error) {
	d, err := caddy.ParseDuration(val)
	if err != nil {
		return 0, fmt.Errorf("%s must be a duration such as 5m, got %q", name, val)
	}
	return d, nil
}

// OnOff reads "on" or "off".
func OnOff(name, val string) (bool, error) {
	switch val {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, fmt.Errorf("%s takes on or off, got %q", name, val)
}

// Count reads a positive integer.
func Count(name, val string) (int, error) {
	n, err := strconv.Atoi(val)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s must be a positive number, got %q", name, val)
	}
	return n, nil
}

// OneOf checks that val, unless it is empty, is one of words.
func OneOf(name, val string, words ...string) error {
	if val == "" || slices.Contains(words, val) {
		return nil
	}
	last := len(words) - 1
	return fmt.Errorf("%s must be %s or %s, got %q", name, strings.Join(words[:last], ", "), words[last], val)
}
