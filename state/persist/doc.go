// Package persist keeps a registry in a key-value storage, so that what it
// learned survives restarts and is shared by every gateway that uses the
// same storage.
//
// A Store writes what its registry learns (registry.Change) in small
// journal segments, at most Interval after it was learned and once more at
// Close; it never makes a request wait for a write. It loads the snapshot
// and every segment once, at Open. Refresh reads the segments other
// instances wrote since, which a request whose blocks are unknown does
// before calling them unknown. Now and then one instance, holding the
// storage lock, folds the journal into a bounded snapshot and deletes the
// folded segments.
//
// Files are versioned JSON, compact and read without a string per change
// (see version). A file that is corrupt or of an unknown version is
// skipped with a warning: a bad file never fails a start, it only leaves
// what it held unknown. Storage is whatever implements Storage; Caddy's
// certmagic.Storage modules (file system, Redis, Consul, S3) all do. The
// package imports nothing of Caddy.
package persist
