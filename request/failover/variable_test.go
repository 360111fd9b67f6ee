package failover

import "testing"

func TestVariableOf(t *testing.T) {
	for backend, want := range map[string]string{
		"{http.vars.llm_backend}": "vars llm_backend",
		"{vars.llm_backend}":      "vars llm_backend",
		"{backend}":               "placeholder backend",
		"anthropic":               "error",
		"{a}-{b}":                 "error",
		"{http.request.header.X}": "error",
		"{}":                      "error",
	} {
		v, err := VariableOf(backend)
		got := "error"
		switch {
		case err == nil && v.IsVar:
			got = "vars " + v.Name
		case err == nil:
			got = "placeholder " + v.Name
		}
		if got != want {
			t.Errorf("%q: %s, want %s", backend, got, want)
		}
	}
}
