package jsonscan

// Iter walks the members of a JSON object or the elements of an array. For
// each item, Next gives the key (for members) and where the value starts;
// the caller then either calls Skip, or walks the value itself and reports
// where it ended with SetEnd. Item does both at once.
//
//	it := jsonscan.Members(b, i)
//	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
//		... it.Skip() or it.SetEnd(end)
//	}
//	if err := it.Err(); err != nil { ... }
type Iter struct {
	b       []byte
	i       int  // where the next item (or separator) is looked for
	closing byte // '}' or ']'
	n       int  // items returned so far
	pending int  // start of the value not yet skipped or ended, or -1
	key     int  // where the current member's key starts
	end     int  // index just past the container, once done
	done    bool
	err     *SyntaxError
}

// Members returns an iterator over the object that starts at b[i].
func Members(b []byte, i int) Iter { return open(b, i, '{', '}', "an object") }

// Elements returns an iterator over the array that starts at b[i].
func Elements(b []byte, i int) Iter { return open(b, i, '[', ']', "an array") }

// MembersAfter returns an iterator over an object whose first n members
// (n > 0) were read by other means, the last of them ending at b[i]: it
// goes on with the member after it.
func MembersAfter(b []byte, i, n int) Iter {
	return Iter{b: b, i: i, closing: '}', n: n, pending: -1}
}

func open(b []byte, i int, opening, closing byte, want string) Iter {
	it := Iter{b: b, closing: closing, pending: -1}
	if i >= len(b) || b[i] != opening {
		it.fail(i, want)
		return it
	}
	it.i = i + 1
	return it
}

// Next moves to the next item. It returns the key literal of a member (nil
// for an array element) and the index where the value starts, or false at
// the end of the container or at malformed input (see Err).
func (it *Iter) Next() (key []byte, value int, ok bool) {
	if it.pending >= 0 {
		it.Skip()
	}
	if it.done {
		return nil, 0, false
	}
	b := it.b
	i := SkipSpace(b, it.i)
	if it.n == 0 && i < len(b) && b[i] == it.closing {
		it.done, it.end = true, i+1
		return nil, 0, false
	}
	if it.n > 0 {
		switch {
		case i < len(b) && b[i] == it.closing:
			it.done, it.end = true, i+1
			return nil, 0, false
		case i < len(b) && b[i] == ',':
			i = SkipSpace(b, i+1)
		default:
			it.fail(i, "a comma or the end of the container")
			return nil, 0, false
		}
	}
	if it.closing == '}' {
		end, ok := SkipString(b, i)
		if !ok {
			it.fail(i, "a key")
			return nil, 0, false
		}
		key, it.key = b[i:end], i
		i = SkipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			it.fail(i, "a colon")
			return nil, 0, false
		}
		i = SkipSpace(b, i+1)
	}
	if i >= len(b) {
		it.fail(i, "a value")
		return nil, 0, false
	}
	it.n++
	it.pending = i
	return key, i, true
}

// Skip passes over the value of the current item and returns where it ends.
func (it *Iter) Skip() (int, bool) {
	if it.pending < 0 {
		return it.i, it.err == nil
	}
	end, ok := SkipValue(it.b, it.pending)
	if !ok {
		it.fail(it.pending, "a value")
		return 0, false
	}
	it.SetEnd(end)
	return end, true
}

// SetEnd tells the iterator that the current item's value, walked by the
// caller, ends just before end.
func (it *Iter) SetEnd(end int) {
	it.i, it.pending = end, -1
}

// Item moves to the next item and skips its value, returning the key
// literal (nil for elements) and the value's bytes.
func (it *Iter) Item() (key, value []byte, ok bool) {
	key, start, ok := it.Next()
	if !ok {
		return nil, nil, false
	}
	end, ok := it.Skip()
	if !ok {
		return nil, nil, false
	}
	return key, it.b[start:end], true
}

// KeyOffset returns where the current member's key literal starts.
func (it *Iter) KeyOffset() int { return it.key }

// End returns the index just past the container; valid once Next has
// returned false without an error.
func (it *Iter) End() int { return it.end }

// Err returns the syntax error that stopped the iteration, if any.
func (it *Iter) Err() error {
	if it.err == nil {
		return nil
	}
	return it.err
}

func (it *Iter) fail(offset int, want string) {
	if it.err == nil {
		it.err = &SyntaxError{Offset: offset, Want: want}
	}
	it.done, it.pending = true, -1
}

// ResumeElements returns an iterator over an array whose first n elements
// the caller already walked, resuming at b[i], just past the n-th value.
func ResumeElements(b []byte, i, n int) Iter {
	return Iter{b: b, i: i, closing: ']', n: n, pending: -1}
}
