package messagesapi

import "testing"

func TestScrub(t *testing.T) {
	for in, want := range map[string]string{
		"reading the upstream's stream failed: read tcp 127.0.0.1:45096->127.0.0.1:14006: read: connection reset by peer": "reading the upstream's stream failed: read tcp [address]->[address]: read: connection reset by peer",
		"dial tcp [::1]:8080: connect: connection refused":                                                                "dial tcp [address]: connect: connection refused",
		"dial tcp [fe80::1%eth0]:443: i/o timeout":                                                                        "dial tcp [address]: i/o timeout",
		"upstream connect error to 10.2.3.4 (reset)":                                                                      "upstream connect error to [address] (reset)",
		"Thinking level is not supported for this model.":                                                                 "Thinking level is not supported for this model.",
		"models/gemini-2.5-flash is not found for API version v1beta":                                                     "models/gemini-2.5-flash is not found for API version v1beta",
		"maxOutputTokens value of 65536 but the supported range is [1, 2)":                                                "maxOutputTokens value of 65536 but the supported range is [1, 2)",
		"at 12:30:45, [see docs]":                                                                                         "at 12:30:45, [see docs]",
	} {
		if got := Scrub(in); got != want {
			t.Errorf("Scrub(%q)\n got %q\nwant %q", in, got, want)
		}
	}
	if got := string(AppendErrorEvent(nil, "api_error", "read tcp 127.0.0.1:1->127.0.0.1:2: EOF")); got !=
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"read tcp [address]->[address]: EOF\"}}\n\n" {
		t.Errorf("event %q", got)
	}
}
