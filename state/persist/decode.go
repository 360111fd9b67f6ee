package persist

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// keyEncoding writes block keys; strict, so that a key has one spelling.
var keyEncoding = base64.RawURLEncoding.Strict()

// keyLiteral is the length of a key as a JSON string: 22 characters of
// unpadded base64 for 16 bytes, and the quotes.
const keyLiteral = 2 + 22

// readKey reads a key literal: "" for none (the zero key), or base64.
func readKey(k *block.Key, lit []byte) error {
	if string(lit) == `""` {
		*k = block.Key{}
		return nil
	}
	if len(lit) != keyLiteral || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return fmt.Errorf("key %.40s: want \"\" or %d characters of base64", lit, keyLiteral-2)
	}
	if n, err := keyEncoding.Decode(k[:], lit[1:len(lit)-1]); err != nil || n != len(k) {
		return fmt.Errorf("key %s: not base64 of %d bytes", lit, len(k))
	}
	return nil
}

// readFile reads a segment or a snapshot (see version), handing its changes
// to apply in batches as they are decoded: a snapshot of a large registry
// never sits in memory decoded whole, and reading it allocates the names
// table and one batch, nothing per change. The file is walked twice: once
// to find its members, so that its version is checked before anything of
// it is applied and its names are known wherever they are, then along the
// changes. Malformed input of any kind is an error; the batches before the
// change that could not be read were applied.
func readFile(data []byte, apply func([]registry.Change)) (fileHeader, error) {
	var h fileHeader
	m, err := splitFile(data)
	if err != nil {
		return h, err
	}
	if m.version == nil {
		return h, errors.New("no version")
	}
	v, ok := parseInt(m.version)
	if !ok || v < oldestVersion || v > version {
		return h, fmt.Errorf("unknown version %.20s (this gateway reads %d to %d)", m.version, oldestVersion, version)
	}
	if m.changes == nil || m.names == nil {
		return h, errors.New("no changes or no names")
	}
	var scratch []byte
	if m.writer != nil {
		if h.Writer, scratch, err = decodeString(scratch, m.writer); err != nil {
			return h, fmt.Errorf("writer: %w", err)
		}
	}
	if m.generation != nil {
		var ok bool
		if h.Generation, ok = parseUint(m.generation); !ok {
			return h, fmt.Errorf("generation %.20s: not a number", m.generation)
		}
	}
	if m.folded != nil {
		if h.Folded, scratch, err = decodeStrings(scratch, m.folded); err != nil {
			return h, fmt.Errorf("folded: %w", err)
		}
	}
	names, _, err := decodeStrings(scratch, m.names)
	if err != nil {
		return h, fmt.Errorf("names: %w", err)
	}
	last := registry.Served
	if v >= 3 {
		last = registry.Forgot
	}
	return h, readChanges(m.changes, names, last, apply)
}

// members holds the values of a file's known members, as bytes.
type members struct {
	version, writer, generation, folded, changes, names []byte
}

// splitFile finds the members of the object that data holds, which must
// hold nothing else. A member twice is an error: the file could mean
// either.
func splitFile(data []byte) (members, error) {
	var m members
	var buf [32]byte
	it := jsonscan.Members(data, jsonscan.SkipSpace(data, 0))
	for k, v, ok := it.Item(); ok; k, v, ok = it.Item() {
		var field *[]byte
		switch string(jsonscan.Name(k, &buf)) {
		case "version":
			field = &m.version
		case "writer":
			field = &m.writer
		case "generation":
			field = &m.generation
		case "folded":
			field = &m.folded
		case "changes":
			field = &m.changes
		case "names":
			field = &m.names
		default:
			continue // a later version's addition
		}
		if *field != nil {
			return m, fmt.Errorf("member %s twice", k)
		}
		*field = v
	}
	if err := it.Err(); err != nil {
		return m, err
	}
	if jsonscan.SkipSpace(data, it.End()) != len(data) {
		return m, errors.New("data after the object")
	}
	return m, nil
}

// decodeString returns the value of the JSON string literal lit, decoding
// it in scratch, which it returns for reuse.
func decodeString(scratch, lit []byte) (string, []byte, error) {
	v, ok := jsonstr.Append(scratch[:0], lit)
	if !ok {
		return "", scratch, fmt.Errorf("%.40s is not a string", lit)
	}
	return string(v), v, nil
}

// decodeStrings returns the values of the JSON array of strings v.
func decodeStrings(scratch, v []byte) ([]string, []byte, error) {
	var out []string
	it := jsonscan.Elements(v, 0)
	for _, lit, ok := it.Item(); ok; _, lit, ok = it.Item() {
		var s string
		var err error
		if s, scratch, err = decodeString(scratch, lit); err != nil {
			return nil, scratch, fmt.Errorf("element %d: %w", len(out), err)
		}
		out = append(out, s)
	}
	if err := it.Err(); err != nil {
		return nil, scratch, err
	}
	if it.End() != len(v) {
		return nil, scratch, errors.New("malformed array")
	}
	return out, scratch, nil
}

// readChanges reads the changes array v element by element, handing them
// to apply in batches; last is the last op the file's version knows.
func readChanges(v []byte, names []string, last registry.Op, apply func([]registry.Change)) error {
	batch := make([]registry.Change, 0, batchSize)
	it := jsonscan.Elements(v, 0)
	for i := 0; ; i++ {
		_, start, ok := it.Next()
		if !ok {
			break
		}
		c, end, err := readChange(v, start, names, last)
		if err != nil {
			return fmt.Errorf("change %d: %w", i, err)
		}
		it.SetEnd(end)
		if batch = append(batch, c); len(batch) == batchSize {
			apply(batch)
			batch = batch[:0]
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("changes: %w", err)
	}
	if it.End() != len(v) {
		return errors.New("changes: malformed array")
	}
	if len(batch) > 0 {
		apply(batch)
	}
	return nil
}

// readChange reads the change [op, key, backend, conversation, at] (with
// the facts after them for a learned change) that starts at b[start], of
// an op up to last, and returns where it ends.
func readChange(b []byte, start int, names []string, last registry.Op) (registry.Change, int, error) {
	var c registry.Change
	var f [6][]byte
	it := jsonscan.Elements(b, start)
	n := 0
	for ; n < len(f); n++ {
		_, v, ok := it.Item()
		if !ok {
			break
		}
		f[n] = v
	}
	if err := it.Err(); err != nil {
		return c, 0, err
	}
	if _, _, ok := it.Next(); ok {
		return c, 0, fmt.Errorf("more than %d fields", len(f))
	}
	op, ok := parseInt(f[0])
	if n == 0 || !ok || op < int64(registry.Produced) || op > int64(last) {
		return c, 0, fmt.Errorf("unknown op %.20s", f[0])
	}
	c.Op = registry.Op(op)
	if want := fieldsOf(c.Op); n != want {
		return c, 0, fmt.Errorf("%d fields, want %d", n, want)
	}
	if err := readKey(&c.Key, f[1]); err != nil {
		return c, 0, err
	}
	backend, ok := parseInt(f[2])
	if !ok || backend < 0 || backend >= int64(len(names)) {
		return c, 0, fmt.Errorf("backend %.20s: not a name's index", f[2])
	}
	c.Backend = names[backend]
	conv, ok := parseInt(f[3])
	if !ok || conv < -1 || conv >= int64(len(names)) {
		return c, 0, fmt.Errorf("conversation %.20s: not a name's index, nor -1", f[3])
	}
	if conv >= 0 {
		if c.Op == registry.Learned || c.Op == registry.Forgot {
			c.Model = names[conv]
		} else {
			c.Conversation = names[conv]
		}
	}
	at, ok := parseInt(f[4])
	if !ok {
		return c, 0, fmt.Errorf("time %.20s: not a number", f[4])
	}
	if at != 0 {
		c.At = time.Unix(0, at)
	}
	if c.Op == registry.Learned {
		facts, ok := parseInt(f[5])
		if !ok || facts <= 0 || facts > math.MaxUint16 {
			return c, 0, fmt.Errorf("facts %.20s: not a capability", f[5])
		}
		c.Facts = registry.Capability(facts)
	}
	return c, it.End(), nil
}

// fieldsOf returns how many fields a change of op has.
func fieldsOf(op registry.Op) int {
	if op == registry.Learned {
		return 6
	}
	return 5
}
