package transport

import "testing"

// BenchmarkFirstByteGemini: transport gemini translating a stream whose
// first event is the whole answer's first chunk; the transport reads that
// chunk before the client's first byte, to retry an answer the model
// failed to produce (see retry.go).
func BenchmarkFirstByteGemini(b *testing.B) {
	g := &Gemini{SigningKey: "bench"}
	provisioned(b, g)
	benchmarkFirstByte(b, g, "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hello\"}]},\"index\":0}],\"responseId\":\"r1\"}\r\n\r\n"+
		"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\" there\"}]},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":3,\"candidatesTokenCount\":2},\"responseId\":\"r1\"}\r\n\r\n")
}
