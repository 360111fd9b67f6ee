// Package scancompare measures llm_thinking's request scanner against
// gjson, the library the project's design first named for reading request
// bodies, on the same job: find every thinking and redacted_thinking block
// of a Claude Code session's assistant messages, with the strings a block's
// key is made of. It lives in the tools module so that the plugin itself
// does not depend on gjson.
//
//	go -C tools test -run '^$' -bench . -benchmem ./scancompare/
package scancompare
