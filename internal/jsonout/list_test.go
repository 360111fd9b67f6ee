package jsonout

import "testing"

// TestList: no element writes nothing; the first opens, the others follow
// a comma, End closes.
func TestList(t *testing.T) {
	for n, want := range []string{``, `,"tools":[0]`, `,"tools":[0,1]`, `,"tools":[0,1,2]`} {
		var w Writer
		l := List{Open: `,"tools":[`, Close: "]"}
		for i := range n {
			w.Next(&l)
			w.Raw(string(rune('0' + i)))
		}
		w.End(&l)
		if string(w.Out) != want || l.Len() != n {
			t.Errorf("%d elements: %s (Len %d), want %s", n, w.Out, l.Len(), want)
		}
	}
}
