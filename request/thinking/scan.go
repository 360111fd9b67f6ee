package thinking

import "github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"

// The request is walked with internal/jsonscan, which follows the structure
// without decoding what it skips; jsonscan.Valid checks the whole body, and
// only when it is about to be edited.

// span is a half-open byte range of the body; block.Span converts to it.
type span struct{ Start, End int }

func (s span) Of(b []byte) []byte { return b[s.Start:s.End] }

func syntaxError(offset int, want string) error {
	return &jsonscan.SyntaxError{Offset: offset, Want: want}
}

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) (int, error) {
	end, ok := jsonscan.SkipValue(b, i)
	if !ok {
		return 0, syntaxError(i, "a value")
	}
	return end, nil
}

// finish returns where the container an iterator walked ends, or why it
// could not be walked.
func finish(it *jsonscan.Iter) (int, error) {
	if err := it.Err(); err != nil {
		return 0, err
	}
	return it.End(), nil
}
