// Package thinktags turns reasoning that a backend writes inside the text of
// an Anthropic Messages response, between <think> and </think> (llama.cpp
// with --reasoning-format none, some vLLM, SGLang and LM Studio set-ups,
// locally deployed GLM), into thinking blocks followed by the text, in a
// stream (SSE) as it passes and in a whole JSON body.
//
// It owns the tag Splitter, the SSE and JSON rewriters and the signature
// that marks a thinking block as synthesized here for one backend. It
// reports the key of every block it synthesizes, computed with block.Hasher
// exactly as the response observer computes the key of a genuine block, so
// the caller can register them.
//
// It never touches a response without think tags: such a stream leaves the
// SSE rewriter byte for byte and such a body is returned as it came. It never
// holds back thinking until its closing tag: it waits only for a tag that may
// still be completing (the events that carry it) and, at a text block's
// start, for the block's first text. It never splits a UTF-8 character,
// never imitates a provider's signature format, never opens a block it does
// not close, and never buffers more than its fixed bounds. It knows nothing
// of HTTP or Caddy.
//
// Rules for the tags, the same streaming and not:
//   - Each text block is split on its own; a think section still open when
//     its block ends is closed there.
//   - <think> opens a section; </think> closes it. Sections do not nest: a
//     <think> inside a section is thinking text, except right at the start
//     of a section (before any thinking byte), where it is a redundant
//     opening tag and is dropped. A </think> outside a section is text.
//   - Whitespace right after either tag is dropped, as Ollama's parser drops
//     it: the model writes "<think>\n" and "</think>\n\n" around its
//     reasoning. Whitespace before a tag cannot be dropped without holding
//     it, so a thinking text may end in a newline.
//   - A section with no thinking text gives no thinking block; sections with
//     nothing but whitespace between them give one. A text block that gives
//     no block at all (nothing but empty sections, say
//     "<think>\n\n</think>\n\n" before a tool call) is dropped, every later
//     index moving down by one.
//   - DeepSeek-R1-style output omits the opening tag. A stream cannot know
//     that a </think> will come, so Options.AssumeOpen says so up front: the
//     first content block of a response, when it is text, then starts inside
//     a section. Without AssumeOpen such output stays text.
//   - At most 256 sections open in one response; past that, tags are text,
//     so the blocks to register stay bounded.
package thinktags
