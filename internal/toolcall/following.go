package toolcall

import (
	"iter"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// Following is Parts for a translation that chooses what of the results
// not marked follows them in the message (Gemini 3 carries some media
// inside the result itself): it yields the content's blocks other than
// tool results, with false, and every block of the content of the results
// not marked, with true, in order.
func (o *Orphans) Following(content jsonscan.Value) iter.Seq2[jsonscan.Value, bool] {
	return func(yield func(jsonscan.Value, bool) bool) {
		k := -1
		for b := range content.Elements() {
			k++
			if !b.Get("type").Is("tool_result") {
				if !yield(b, false) {
					return
				}
				continue
			}
			if o.Has(k) {
				continue
			}
			for c := range b.Get("content").Elements() {
				if !yield(c, true) {
					return
				}
			}
		}
	}
}
