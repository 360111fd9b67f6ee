package toolcall

import (
	"iter"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// PartsWith is Parts with the choice of what of the results not marked
// follows them in the message: each block of their content that after
// takes (Parts takes their images). A translation whose API carries some
// media inside the result itself (Gemini 3's function responses) leaves
// those out here.
func (o *Orphans) PartsWith(content jsonscan.Value, after func(b jsonscan.Value) bool) iter.Seq[jsonscan.Value] {
	return func(yield func(jsonscan.Value) bool) {
		k := -1
		for b := range content.Elements() {
			k++
			if !b.Get("type").Is("tool_result") {
				if !yield(b) {
					return
				}
				continue
			}
			if o.Has(k) {
				continue
			}
			for c := range b.Get("content").Elements() {
				if after(c) && !yield(c) {
					return
				}
			}
		}
	}
}

// isImage reports whether a block is an image.
func isImage(b jsonscan.Value) bool { return b.Get("type").Is("image") }
