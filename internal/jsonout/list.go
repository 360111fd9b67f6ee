package jsonout

// List is a JSON array or object that may get no element: its first
// element opens it, and it is closed only when one did, so that an empty
// one writes nothing at all (an API may refuse "tools":[]).
type List struct {
	// Open is written before the first element (`,"tools":[`, say), Close
	// after the last.
	Open, Close string
	n           int
}

// Next starts an element of l: Open before the first, a comma before
// the others.
func (w *Writer) Next(l *List) {
	if l.n == 0 {
		w.Raw(l.Open)
	} else {
		w.Raw(",")
	}
	l.n++
}

// End closes l when an element opened it.
func (w *Writer) End(l *List) {
	if l.n > 0 {
		w.Raw(l.Close)
	}
}

// Len returns how many elements l has.
func (l *List) Len() int { return l.n }
