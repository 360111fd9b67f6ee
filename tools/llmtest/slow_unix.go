//go:build unix

package llmtest

import "syscall"

// smallReceiveBuffer returns a listener control that gives its sockets a
// receive buffer of size bytes, which the accepted connections inherit.
func smallReceiveBuffer(size int) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, c syscall.RawConn) error {
		var err error
		if cerr := c.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, size)
		}); cerr != nil {
			return cerr
		}
		return err
	}
}
