package messagesapi

import "regexp"

// addressPattern matches an IP address, with its port when it has one:
// IPv4, and IPv6 as Go's errors write it with a port, in brackets.
var addressPattern = regexp.MustCompile(`\b(?:\d{1,3}\.){3}\d{1,3}\b(?::\d{1,5}\b)?|\[[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(?:%[0-9A-Za-z._-]+)?\](?::\d{1,5}\b)?`)

// Scrub returns msg with every IP address (and its port) replaced by
// "[address]". Every error a translating transport gives the client (an
// envelope, an error event) goes through it (see AppendError): Go's
// network errors name both ends of the gateway's connection to the
// upstream ("read tcp 127.0.0.1:45096->127.0.0.1:14006: read: connection
// reset by peer"), and a server behind another gateway may name its own
// upstream. What failed stays; where, in the gateway's network, does not.
func Scrub(msg string) string {
	if !addressPattern.MatchString(msg) {
		return msg
	}
	return addressPattern.ReplaceAllLiteralString(msg, "[address]")
}
