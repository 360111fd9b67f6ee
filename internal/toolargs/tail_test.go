package toolargs

import (
	"encoding/json"
	"testing"
)

func TestJSONTailRepairs(t *testing.T) {
	for _, in := range []string{`{`, `{"a`, `{"a"`, `{"a":`, `{"a":1,`, `{"a":tr`, `{"a":-`, `{"a":1.`, `{"a":"x\`, `{"a":"\u00`, `{"a":[1,`, `{"a":[{"b":null`, `{"a":"}"`} {
		var tail jsonTail
		tail.feed([]byte(in))
		fixed := tail.appendRepair([]byte(in))
		if !json.Valid(fixed) {
			t.Errorf("%s repaired to %s, not JSON", in, fixed)
		}
	}
	// Arguments that stop being JSON keep the part before the first byte
	// that is not, and that part is completed.
	for _, tt := range []struct{ in, want string }{
		{`{0`, `{}`},
		{`{"a":1.x`, `{"a":1.0}`},
		{`{"a":01}`, `{"a":0}`},
		{`{"a":--1`, `{"a":-0}`},
		{`{"a":1e}`, `{"a":1e0}`},
		{`{"a":tx`, `{"a":true}`},
		{`{"a":"x\q"}`, `{"a":"x\\"}`},
		{`{"a":"\u00zz"}`, `{"a":"\u0000"}`},
		{"{\"a\":\"x\ny\"}", `{"a":"x"}`},
		{`{"a":1}}`, `{"a":1}`},
		{`{"a" 1}`, `{"a" :null}`},
	} {
		var tail jsonTail
		n := tail.feed([]byte(tt.in))
		if got := string(tail.appendRepair([]byte(tt.in[:n]))); got != tt.want {
			t.Errorf("%s: kept and repaired to %s, want %s", tt.in, got, tt.want)
		}
		if tail.feed([]byte(`"b"}`)) != 0 {
			t.Errorf("%s: the tail followed bytes after it stopped", tt.in)
		}
	}
	var whole jsonTail
	whole.feed([]byte(`{"a":[1,{"b":"c"}]}`))
	if !whole.complete() || len(whole.appendRepair(nil)) != 0 {
		t.Error("a whole object needs no repair")
	}
}
