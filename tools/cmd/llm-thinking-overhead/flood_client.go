package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// floodCounts is what the clients of a flood got.
type floodCounts struct {
	answers, tooLarge, overloaded, failures atomic.Int64
}

// send sends body to url until it is answered: 200, or 413 when tooLarge
// is expected; after Retry-After when answered 529 and after a second
// when the connection failed.
func (c *floodCounts) send(ctx context.Context, client *http.Client, url string, body []byte, tooLarge bool) error {
	for {
		wait, err := attempt(ctx, client, url, body, tooLarge)
		switch {
		case err != nil:
			return err
		case wait == 0:
			c.answers.Add(1)
			return nil
		case wait == answeredTooLarge:
			c.tooLarge.Add(1)
			return nil
		case wait < 0:
			c.failures.Add(1)
			wait = time.Second
		default:
			c.overloaded.Add(1)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the flood did not get through within %v", floodDeadline)
		case <-time.After(wait):
		}
	}
}

// answeredTooLarge is what attempt returns for an expected 413.
const answeredTooLarge = -2

// attempt sends body once. It returns 0 when it was answered (the slow
// upstream's "read N bytes", or a count of tokens), answeredTooLarge for
// a 413 request_too_large when tooLarge is expected, the Retry-After of a
// 529, -1 when the connection failed, or an error for anything a client
// would not try again.
func attempt(ctx context.Context, client *http.Client, url string, body []byte, tooLarge bool) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, fmt.Errorf("the flood did not get through within %v", floodDeadline)
		}
		return -1, nil
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return -1, nil
	case resp.StatusCode == http.StatusOK && (bytes.Contains(answer, []byte(`"read `)) || bytes.HasPrefix(answer, []byte(`{"input_tokens":`))):
		return 0, nil
	case resp.StatusCode == http.StatusRequestEntityTooLarge && tooLarge && bytes.Contains(answer, []byte(`"type":"request_too_large"`)):
		return answeredTooLarge, nil
	case resp.StatusCode == 529:
		seconds, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if err != nil || seconds < 1 {
			return 0, fmt.Errorf("a 529 without a usable Retry-After: %q", resp.Header.Get("Retry-After"))
		}
		return time.Duration(seconds) * time.Second, nil
	}
	return 0, fmt.Errorf("answered %d: %.200s", resp.StatusCode, answer)
}
