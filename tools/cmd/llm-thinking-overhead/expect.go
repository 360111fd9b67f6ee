package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
)

// An expectation checks a body the upstream received.
type expectation interface {
	// check returns what is wrong with body, or nil.
	check(body []byte) error
}

// sameBytes expects the body the client sent, byte for byte.
type sameBytes struct {
	size int
	sum  [sha256.Size]byte
}

// newSameBytes returns an expectation of exactly body.
func newSameBytes(body []byte) sameBytes {
	return sameBytes{size: len(body), sum: sha256.Sum256(body)}
}

// check compares body's length and digest with the one sent.
func (e sameBytes) check(body []byte) error {
	if len(body) != e.size || sha256.Sum256(body) != e.sum {
		return fmt.Errorf("received a body of %d bytes that differs from the %d bytes sent", len(body), e.size)
	}
	return nil
}

// withoutBlocks expects the body with some thinking blocks removed: what
// remains must be exactly the kept blocks, in order, byte for byte.
type withoutBlocks struct {
	kept    []json.RawMessage
	removed int

	// verified holds the digests of bodies that passed. llm_thinking
	// rewrites a body the same way every time, and reading one costs
	// milliseconds at 1 MiB, which would slow the upstream down.
	mu       sync.Mutex
	verified map[[sha256.Size]byte]bool
}

// newWithoutBlocks returns an expectation of a body whose thinking blocks
// are exactly kept, removed others having gone.
func newWithoutBlocks(kept []json.RawMessage, removed int) *withoutBlocks {
	return &withoutBlocks{kept: kept, removed: removed, verified: make(map[[sha256.Size]byte]bool)}
}

// check compares the thinking blocks of body with the kept ones.
func (e *withoutBlocks) check(body []byte) error {
	sum := sha256.Sum256(body)
	e.mu.Lock()
	known := e.verified[sum]
	e.mu.Unlock()
	if known {
		return nil
	}
	blocks, err := thinkingBlocks(body)
	if err != nil {
		return fmt.Errorf("read the thinking blocks received: %w", err)
	}
	if len(blocks) != len(e.kept) {
		return fmt.Errorf("received %d thinking blocks, want %d: all %d sent but the %d foreign ones",
			len(blocks), len(e.kept), len(e.kept)+e.removed, e.removed)
	}
	for i, b := range blocks {
		if !bytes.Equal(b, e.kept[i]) {
			return fmt.Errorf("thinking block %d of the %d kept differs from the one sent: %.80s", i, len(e.kept), b)
		}
	}
	e.mu.Lock()
	e.verified[sum] = true
	e.mu.Unlock()
	return nil
}
