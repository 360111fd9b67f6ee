package integration

// The transport_*_test.go files take a transport alone, with no Caddy
// around it, round a tool loop against a strict mock.

// message is a Messages answer as the tests read it.
type message struct {
	Content    []contentBlock `json:"content"`
	StopReason string         `json:"stop_reason"`
	Model      string         `json:"model"`
}
