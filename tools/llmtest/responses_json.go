package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// How a ResponsesUpstream reads JSON strictly and says what it refuses in
// OpenAI's words, each naming the parameter by its path
// ("input[2].content[0].type"), and how it writes objects with their
// members in OpenAI's order ("type" first).

// respErr is a refusal: its status, code and param ("" is null) and
// message, the type always "invalid_request_error".
type respErr struct {
	status           int
	code, param, msg string
}

func unknownParameter(path string) *respErr {
	return &respErr{http.StatusBadRequest, "unknown_parameter", path, fmt.Sprintf("Unknown parameter: '%s'.", path)}
}

func missingParameter(path string) *respErr {
	return &respErr{http.StatusBadRequest, "missing_required_parameter", path, fmt.Sprintf("Missing required parameter: '%s'.", path)}
}

// invalidType names what was expected ("a string", "one of a string or
// array of objects") and what came.
func invalidType(path, want string, got json.RawMessage) *respErr {
	return &respErr{http.StatusBadRequest, "invalid_type", path,
		fmt.Sprintf("Invalid type for '%s': expected %s, but got %s instead.", path, want, kindOf(got))}
}

func invalidValue(path, got string, supported ...string) *respErr {
	quoted := make([]string, len(supported))
	for i, s := range supported {
		quoted[i] = "'" + s + "'"
	}
	list := strings.Join(quoted, ", ")
	switch n := len(quoted); {
	case n == 2:
		list = quoted[0] + " and " + quoted[1]
	case n > 2:
		list = strings.Join(quoted[:n-1], ", ") + ", and " + quoted[n-1]
	}
	return &respErr{http.StatusBadRequest, "invalid_value", path, fmt.Sprintf("Invalid value: '%s'. Supported values are: %s.", got, list)}
}

// kindOf names a JSON value's kind as OpenAI's messages do.
func kindOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	if bytes.ContainsAny(raw, ".eE") {
		return "a decimal number"
	}
	return "an integer"
}

// isNull reports a member that is absent or null: optional parameters may
// be either.
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// object is a JSON object read strictly: its members, and their names in
// the order they came.
type object struct {
	path  string
	names []string
	m     map[string]json.RawMessage
}

// readObject reads raw, the value at path, as an object.
func readObject(raw json.RawMessage, path string) (object, *respErr) {
	o := object{path: path, m: make(map[string]json.RawMessage)}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return o, invalidType(path, "an object", raw)
	}
	for dec.More() {
		t, err := dec.Token()
		name, ok := t.(string)
		var v json.RawMessage
		if err != nil || !ok || dec.Decode(&v) != nil {
			return o, invalidType(path, "an object", raw)
		}
		if _, dup := o.m[name]; !dup {
			o.names = append(o.names, name)
		}
		o.m[name] = v
	}
	return o, nil
}

// readObjectOf reads raw, the value at path, as an object of no members
// but known: the first other one is refused.
func readObjectOf(raw json.RawMessage, path string, known ...string) (object, *respErr) {
	o, e := readObject(raw, path)
	if e != nil {
		return o, e
	}
	return o, o.only(known...)
}

// at returns the path of member name.
func (o object) at(name string) string {
	if o.path == "" {
		return name
	}
	return o.path + "." + name
}

// only refuses the first member not in known.
func (o object) only(known ...string) *respErr {
	for _, n := range o.names {
		found := false
		for _, k := range known {
			found = found || n == k
		}
		if !found {
			return unknownParameter(o.at(n))
		}
	}
	return nil
}

// str returns member name as a string: "" when it is absent or null,
// refused then when required.
func (o object) str(name string, required bool) (string, *respErr) {
	raw := o.m[name]
	if isNull(raw) {
		if required {
			return "", missingParameter(o.at(name))
		}
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", invalidType(o.at(name), "a string", raw)
	}
	return s, nil
}

// kind checks that member name, when set, is of kind want: "string",
// "boolean", "integer", "number", "object" or "array".
func (o object) kind(name, want string) *respErr {
	raw := o.m[name]
	if isNull(raw) {
		return nil
	}
	got := kindOf(raw)
	ok := map[string]bool{
		"string": got == "a string", "boolean": got == "a boolean", "object": got == "an object", "array": got == "an array",
		"integer": got == "an integer", "number": got == "an integer" || got == "a decimal number",
	}[want]
	if !ok {
		article := "a "
		if want == "integer" || want == "object" || want == "array" {
			article = "an "
		}
		return invalidType(o.at(name), article+want, raw)
	}
	return nil
}

// array returns member name, when set, as an array, with the path of its
// elements' parent.
func (o object) array(name string) ([]json.RawMessage, *respErr) {
	raw := o.m[name]
	if isNull(raw) {
		return nil, nil
	}
	var a []json.RawMessage
	if json.Unmarshal(raw, &a) != nil {
		return nil, invalidType(o.at(name), "an array", raw)
	}
	return a, nil
}

// jobj is a JSON object whose members keep their order.
type jobj []kv

type kv struct {
	k string
	v any
}

// get returns the value of member k, nil when there is none.
func (o jobj) get(k string) any {
	for _, m := range o {
		if m.k == k {
			return m.v
		}
	}
	return nil
}

// MarshalJSON writes the members in order.
func (o jobj) MarshalJSON() ([]byte, error) {
	buf := []byte{'{'}
	for i, m := range o {
		if i > 0 {
			buf = append(buf, ',')
		}
		k, _ := json.Marshal(m.k)
		v, err := json.Marshal(m.v)
		if err != nil {
			return nil, err
		}
		buf = append(append(append(buf, k...), ':'), v...)
	}
	return append(buf, '}'), nil
}
