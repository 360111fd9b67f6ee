package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// configRoot is the path of the whole config in the admin API.
const configRoot = "/config"

// decodeConfig decodes JSON as served by the admin API. Numbers stay
// json.Number, so that writing a part back changes no value.
func decodeConfig(body []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("decoding the config: %w", err)
	}
	return v, nil
}

// walk calls fn for every JSON object in n, depth first in config order
// (object keys sorted), with its config path and the objects that hold it,
// outermost first. fn returns false to skip what the object holds.
func walk(n any, path string, outer []map[string]any, fn func(obj map[string]any, path string, outer []map[string]any) bool) {
	switch v := n.(type) {
	case map[string]any:
		if !fn(v, path, outer) {
			return
		}
		outer = append(outer, v)
		for _, k := range slices.Sorted(maps.Keys(v)) {
			walk(v[k], path+"/"+k, outer, fn)
		}
	case []any:
		for i, e := range v {
			walk(e, path+"/"+strconv.Itoa(i), outer, fn)
		}
	}
}

// lookup returns the value at a config path ("/config/apps/http/..."), or
// false when there is none.
func lookup(config any, path string) (any, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSuffix(path, "/"), configRoot)
	if !ok || (rest != "" && rest[0] != '/') {
		return nil, false
	}
	n := config
	for seg := range strings.SplitSeq(strings.TrimPrefix(rest, "/"), "/") {
		if seg == "" {
			continue
		}
		switch v := n.(type) {
		case map[string]any:
			if n, ok = v[seg]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			n = v[i]
		default:
			return nil, false
		}
	}
	return n, true
}

// findID returns the config path of the object whose "@id" is id: the
// admin API refuses configs where two objects share one.
func findID(config any, id string) (string, bool) {
	var found string
	walk(config, configRoot, nil, func(obj map[string]any, path string, _ []map[string]any) bool {
		if found == "" && obj["@id"] == id {
			found = path
		}
		return found == ""
	})
	return found, found != ""
}

// str returns the string at key in obj, or "" when it is not a string.
func str(obj map[string]any, key string) string {
	s, _ := obj[key].(string)
	return s
}
