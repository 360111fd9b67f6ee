package thinking

import "testing"

// benchmarkRewrite parses a body and rewrites it with every block given the
// same action, as the request path does.
func benchmarkRewrite(b *testing.B, size int, a Action) {
	body := fixtureOfSize(b, size)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		req, err := Parse(body)
		if err != nil {
			b.Fatal(err)
		}
		actions := make([]Action, len(req.Blocks()))
		for i := range actions {
			actions[i] = a
		}
		if _, _, err := req.Rewrite(actions); err != nil {
			b.Fatal(err)
		}
		req.Release() // the request path recycles parse state too
	}
}

// BenchmarkRewrite256KiBNothingToChange is the steady state: every replayed
// block belongs to the target.
func BenchmarkRewrite256KiBNothingToChange(b *testing.B) { benchmarkRewrite(b, 256<<10, Keep) }

// BenchmarkRewrite1MiB strips every block, as after a switch.
func BenchmarkRewrite1MiB(b *testing.B) { benchmarkRewrite(b, 1<<20, Strip) }

// BenchmarkRewrite1MiBNothingToChange is the steady state on a long session.
func BenchmarkRewrite1MiBNothingToChange(b *testing.B) { benchmarkRewrite(b, 1<<20, Keep) }
