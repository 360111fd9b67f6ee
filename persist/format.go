package persist

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/registry"
)

// version is the format of every file a Store writes. A file of another
// version is skipped: an older gateway never misreads a newer one's files.
const version = 1

// segment is one journal file: the changes one instance learned between
// two writes.
type segment struct {
	Version int      `json:"version"`
	Writer  string   `json:"writer"`
	Changes []change `json:"changes"`
}

// snapshot is the folded journal: everything the folding instance knew,
// and the names of the segments it folded.
type snapshot struct {
	Version    int      `json:"version"`
	Generation uint64   `json:"generation"`
	Folded     []string `json:"folded"`
	Changes    []change `json:"changes"`
}

// change is a registry.Change as stored.
type change struct {
	Op           string `json:"op"`
	Key          string `json:"key,omitempty"`
	Conversation string `json:"conversation,omitempty"`
	Backend      string `json:"backend"`
	At           int64  `json:"at,omitempty"` // Unix nanoseconds
}

func encodeChanges(in []registry.Change) []change {
	out := make([]change, len(in))
	for i, c := range in {
		out[i] = change{Op: c.Op.String(), Conversation: c.Conversation, Backend: c.Backend}
		if c.Op != registry.Served {
			out[i].Key = c.Key.String()
		}
		if !c.At.IsZero() {
			out[i].At = c.At.UnixNano()
		}
	}
	return out
}

// decode reads one stored change.
func (c change) decode() (registry.Change, error) {
	ch := registry.Change{Conversation: c.Conversation, Backend: c.Backend}
	switch c.Op {
	case "produced":
		ch.Op = registry.Produced
	case "refused":
		ch.Op = registry.Refused
	case "served":
		ch.Op = registry.Served
	default:
		return ch, fmt.Errorf("unknown op %q", c.Op)
	}
	if ch.Op != registry.Served {
		k, err := parseKey(c.Key)
		if err != nil {
			return ch, err
		}
		ch.Key = k
	}
	if c.At != 0 {
		ch.At = time.Unix(0, c.At)
	}
	return ch, nil
}

// parseKey reads a key written by block.Key.String.
func parseKey(s string) (block.Key, error) {
	var k block.Key
	if hex.DecodedLen(len(s)) != len(k) {
		return k, fmt.Errorf("block key %q: want %d hex digits", s, 2*len(k))
	}
	if _, err := hex.Decode(k[:], []byte(s)); err != nil {
		return k, fmt.Errorf("block key %q: %w", s, err)
	}
	return k, nil
}

// fileHeader is what a segment or a snapshot says besides its changes.
type fileHeader struct {
	Writer     string
	Generation uint64
	Folded     []string
}

// batchSize is how many decoded changes readFile hands over at once.
const batchSize = 512

// readFile reads a segment or a snapshot, handing its changes to apply in
// batches as they are decoded: a snapshot of a large registry never sits in
// memory decoded whole. The version must come first, so that a file of
// another version is refused before anything of it is applied. A change
// that cannot be read stops the reading with an error; the batches before
// it were applied.
func readFile(data []byte, apply func([]registry.Change)) (fileHeader, error) {
	var h fileHeader
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := expectDelim(dec, '{'); err != nil {
		return h, err
	}
	var v int
	if key, err := dec.Token(); err != nil || key != "version" {
		return h, errors.New("the version does not come first")
	}
	if err := dec.Decode(&v); err != nil {
		return h, err
	}
	if v != version {
		return h, fmt.Errorf("unknown version %d (this gateway reads %d)", v, version)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return h, err
		}
		switch key {
		case "writer":
			err = dec.Decode(&h.Writer)
		case "generation":
			err = dec.Decode(&h.Generation)
		case "folded":
			err = dec.Decode(&h.Folded)
		case "changes":
			err = readChanges(dec, apply)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return h, fmt.Errorf("%v: %w", key, err)
		}
	}
	return h, expectDelim(dec, '}')
}

// readChanges reads the changes array element by element.
func readChanges(dec *json.Decoder, apply func([]registry.Change)) error {
	if err := expectDelim(dec, '['); err != nil {
		return err
	}
	batch := make([]registry.Change, 0, batchSize)
	for i := 0; dec.More(); i++ {
		var c change
		if err := dec.Decode(&c); err != nil {
			return err
		}
		ch, err := c.decode()
		if err != nil {
			return fmt.Errorf("change %d: %w", i, err)
		}
		if batch = append(batch, ch); len(batch) == batchSize {
			apply(batch)
			batch = batch[:0]
		}
	}
	if len(batch) > 0 {
		apply(batch)
	}
	return expectDelim(dec, ']')
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err == nil && t != d {
		err = fmt.Errorf("want %v, got %v", d, t)
	}
	return err
}
