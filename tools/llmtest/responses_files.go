package llmtest

import (
	"fmt"
	"net/http"
	"strings"
)

// The Responses API's rules on what a function_call_output may carry and
// on files, as a ResponsesUpstream applies them.

// readOutputParts checks the output of a function_call_output given as an
// array: each element is an input_text, input_image or input_file part,
// read as a user message's parts are (ResponseFunctionCallOutputItemList
// in the API reference and the official SDKs).
func readOutputParts(o object) *respErr {
	if kindOf(o.m["output"]) != "an array" {
		return nil
	}
	parts, e := o.array("output")
	if e != nil {
		return e
	}
	for j, raw := range parts {
		if _, e := readPart(raw, fmt.Sprintf("%s[%d]", o.at("output"), j), false); e != nil {
			return e
		}
	}
	return nil
}

// readFilePart checks an input_file part at path: it names its file
// (file_id, file_data or file_url); inline data comes with a filename and
// as a base64 data URL of a type the API reads.
func readFilePart(p object, path string) *respErr {
	var v [4]string
	for i, name := range []string{"file_id", "file_data", "file_url", "filename"} {
		var e *respErr
		if v[i], e = p.str(name, false); e != nil {
			return e
		}
	}
	id, data, url, filename := v[0], v[1], v[2], v[3]
	// Without a file, or with inline data but no filename, the API names
	// the part and nothing more: "Missing required parameter:
	// 'input[1].content[1]'." (laravel/ai #321; openai-agents-js #88: "the
	// Responses API does not give a detailed error message if the filename
	// property is missing").
	if id == "" && data == "" && url == "" || data != "" && filename == "" {
		return missingParameter(path)
	}
	if data != "" {
		if e := fileData(p.at("file_data"), data); e != nil {
			return e
		}
	}
	if d, _ := p.str("detail", false); !oneOf(d, "", "auto", "low", "high") {
		return invalidValue(p.at("detail"), d, "auto", "low", "high")
	}
	return nil
}

// fileData refuses inline file data that is not a base64 data URL of a
// type the API reads. The message begins and, for a type it does not
// read, ends as the API's ("Invalid file data:
// 'input[113].output[0].file_data' ... unsupported MIME type
// 'application/octet-stream'", reported of the Responses API; the chat
// completions API's whole message, for a PDF it wants there, is "Invalid
// file data: 'messages[1].content[1].file.file_data'. Expected a
// base64-encoded data URL with an application/pdf MIME type (e.g.
// 'data:application/pdf;base64,SGVsbG8sIFdvcmxkIQ=='), but got
// unsupported MIME type 'text/plain'."); the middle is the chat
// completions API's, for every type.
func fileData(path, data string) *respErr {
	got := "a value that is not a base64 data URL"
	if rest, ok := strings.CutPrefix(data, "data:"); ok {
		mime, _, isBase64 := strings.Cut(rest, ";base64,")
		switch {
		case !isBase64 || mime == "":
		case mime == "application/octet-stream":
			got = fmt.Sprintf("unsupported MIME type '%s'", mime)
		default:
			return nil
		}
	}
	return &respErr{status: http.StatusBadRequest, code: "invalid_value", param: path,
		msg: fmt.Sprintf("Invalid file data: '%s'. Expected a base64-encoded data URL with a supported MIME type "+
			"(e.g. 'data:application/pdf;base64,SGVsbG8sIFdvcmxkIQ=='), but got %s.", path, got)}
}
