// Package block is the vocabulary both sides of the gateway share for
// thinking blocks: their Kind, the fields of a content block object that
// identify one, and the Key that names it by its whole content.
//
// The request side reads every block a client replays; the response side
// reads every block a backend produces, whole in a JSON answer or in pieces
// as a stream goes by. Both read block objects with ReadFields, decode their
// strings with AppendString and hash them with the one Hasher, so a block gets
// the same key whichever way it was seen. Keys are stable across releases and
// processes: a persisted registry depends on it.
//
// The package knows nothing of HTTP or Caddy.
package block
