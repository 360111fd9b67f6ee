package failover

import (
	"fmt"
	"strings"
)

// Variable is how a handler's backend is set for a failover: the name of
// a request variable ({vars.NAME}) or of a placeholder ({NAME}, which a
// map sets).
type Variable struct {
	Name  string
	IsVar bool // a request variable, not a placeholder
}

// VariableOf reads a handler's configured backend as one variable, or says
// why it is none: failing over sets it to each backend tried.
func VariableOf(backend string) (Variable, error) {
	inner, ok := strings.CutPrefix(backend, "{")
	if inner, ok = strings.CutSuffix(inner, "}"); !ok || inner == "" || strings.ContainsAny(inner, "{}") {
		return Variable{}, fmt.Errorf("failover needs backend to be one variable, {vars.NAME} or a map's placeholder, got %q", backend)
	}
	for _, prefix := range []string{"http.vars.", "vars."} {
		if name, ok := strings.CutPrefix(inner, prefix); ok && name != "" {
			return Variable{Name: name, IsVar: true}, nil
		}
	}
	if strings.HasPrefix(inner, "http.") {
		return Variable{}, fmt.Errorf("failover needs backend to be one variable it can set, {vars.NAME} or a map's placeholder, got %q", backend)
	}
	return Variable{Name: inner}, nil
}
