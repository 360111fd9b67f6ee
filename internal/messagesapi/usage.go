package messagesapi

import "strconv"

// Usage is the usage of a Messages answer.
type Usage struct {
	// Input counts the input tokens not read from a cache.
	Input int
	// Output counts the output tokens, thinking included.
	Output int
	// CacheRead counts the input tokens read from a cache.
	CacheRead int
}

// AppendJSON appends the usage object.
func (u Usage) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"input_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.Input), 10)
	dst = append(dst, `,"output_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.Output), 10)
	if u.CacheRead > 0 {
		dst = append(dst, `,"cache_read_input_tokens":`...)
		dst = strconv.AppendInt(dst, int64(u.CacheRead), 10)
	}
	return append(dst, '}')
}
