package persist

// version is the format of every file a Store writes. A file of a later
// version is skipped: an older gateway never misreads a newer one's files.
// Version 1 files (a JSON object per change, hex keys) are skipped too;
// their block keys were computed another way, so none of them could match
// anyway. Version 2 files are read: version 3 only adds changes to them.
//
// Versions 2 and 3 are a JSON object: the header, the changes, then the
// table of the names they use (backends, conversations and models), each
// name once per file. A snapshot folded by instance 3f2a9c01b7de:
//
//	{"version":3,"writer":"3f2a9c01b7de","generation":3,"folded":["llm_thinking/registries/default/journal/01795433588000000000-3f2a9c01b7de-000064.json"],"changes":[
//	[1,"9XTfL0mee7wqAtsov5h_tQ",0,-1,1795433589123456789],
//	[1,"fpZt_W5j6I5mUoKDenaOGA",1,-1,1795433589123458289],
//	[2,"fpZt_W5j6I5mUoKDenaOGA",0,-1,1795433589123458289],
//	[3,"",0,2,0],
//	[3,"",1,2,1795433589123458789],
//	[4,"",3,4,1795433589123459000,2]
//	],
//	"names":["anthropic","glm","sess-1","ollama","llama3.2"]}
//
// A change is [op, key, backend, conversation, at]: op is a registry.Op
// value (1 produced, 2 refused, 3 served, 4 learned, 5 forgot: the numbers
// are stable), key the block key in unpadded base64url (22 characters; ""
// for none, as in a served change), backend and conversation indexes into
// names (conversation -1 for none), at the time in Unix nanoseconds (0 for
// none). A learned or forgot change (version 3) names the model in place of
// the conversation (-1 for every model of the backend), and a learned
// change has a sixth field: the registry.Capability learned, as a number.
// A segment has no generation nor folded. That is about 55 bytes a change
// where the first format took 120, and a reader needs no string per change.
//
// The names come last because the writer streams the changes out before it
// knows every name; the reader looks for them first. A reader takes the
// members in any order, with any spacing, and skips members it does not
// know; anything else it does not expect makes the file bad.
const version = 3

// oldestVersion is the oldest version this gateway reads.
const oldestVersion = 2

// fileHeader is what a segment or a snapshot says besides its changes.
type fileHeader struct {
	Writer string
	// Generation and Folded are a snapshot's: its number, and the journal
	// segments it covers.
	Generation uint64
	Folded     []string
}

// batchSize is how many decoded changes readFile hands over at once.
const batchSize = 512
