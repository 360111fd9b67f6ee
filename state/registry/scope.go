package registry

import "time"

// scopeID numbers a live scope, for Snapshot; 0 is none.
type scopeID uint32

// scope is what the registry knows of one conversation scope: a session, a
// subagent, or the global scope of clients that name neither. It says which
// backends served the scope; the blocks its threads replay are kept by
// thread (see thread).
type scope struct {
	id      scopeID
	name    string    // how requests name it
	last    string    // backend of its latest answer
	lastAt  time.Time // when last was learned
	seen    []string  // backends that served it
	crowded bool      // more backends than seen can hold
}

// scope returns the scope called name, creating it when new.
func (r *Registry) scope(name string) *scope {
	if s, ok := r.scopes.Get(name); ok {
		return s
	}
	s := &scope{name: name}
	s.id = r.scopeIDs.add(s)
	r.scopes.Add(name, s)
	return s
}

// evictScope runs when a scope leaves the LRU: only which backends served
// it is forgotten.
func (r *Registry) evictScope(_ string, s *scope) {
	r.scopeIDs.remove(s.id)
}

// Served records that backend answered conversation conv, for requests
// whose backend was not known before the response named it. It reports
// whether the conversation switched backends, and from which.
func (r *Registry) Served(conv, backend string) (switched bool, previous string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.serve(r.scope(conv), backend)
}

// serve moves s to backend, counting a switch.
func (r *Registry) serve(s *scope, backend string) (switched bool, previous string) {
	now := r.now()
	if s.last != "" && s.last != backend {
		switched, previous = true, s.last
		r.switches++
	}
	s.last, s.lastAt = backend, now
	s.remember(backend)
	r.journal.add(Change{Op: Served, Conversation: s.name, Backend: backend, At: now})
	return switched, previous
}

// Last returns the backend that last answered conversation conv, or "".
func (r *Registry) Last(conv string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.scopes.Peek(conv); ok {
		return s.last
	}
	return ""
}

// servedOtherThan reports whether a backend other than b served s.
func (s *scope) servedOtherThan(b string) bool {
	if s.crowded {
		return true
	}
	for _, x := range s.seen {
		if x != b {
			return true
		}
	}
	return false
}

// remember adds b to the backends that served s.
func (s *scope) remember(b string) {
	for _, x := range s.seen {
		if x == b {
			return
		}
	}
	if len(s.seen) == maxSeenBackends {
		s.crowded = true
		return
	}
	s.seen = append(s.seen, b)
}
