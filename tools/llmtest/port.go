package llmtest

import "net"

// FreePort returns a port on 127.0.0.1 that was free a moment ago, for a
// server the caller is about to start.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
