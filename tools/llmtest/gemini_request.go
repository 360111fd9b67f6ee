package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The request of the Gemini API as a GeminiUpstream reads it: the fields
// of google.golang.org/genai's wire types (GenerateContentRequest,
// Content, Part, Tool, ...) that the transport may send. A field of no
// such type is refused as Gemini refuses it.

type gemRequest struct {
	Contents          []gemContent     `json:"contents"`
	SystemInstruction *gemContent      `json:"systemInstruction,omitempty"`
	Tools             []gemTool        `json:"tools,omitempty"`
	ToolConfig        *gemToolConfig   `json:"toolConfig,omitempty"`
	GenerationConfig  *gemGenConfig    `json:"generationConfig,omitempty"`
	SafetySettings    []map[string]any `json:"safetySettings,omitempty"`
}

type gemContent struct {
	Role  string    `json:"role,omitempty"`
	Parts []gemPart `json:"parts"`
}

type gemPart struct {
	Text             *string            `json:"text,omitempty"`
	Thought          bool               `json:"thought,omitempty"`
	ThoughtSignature string             `json:"thoughtSignature,omitempty"`
	InlineData       *gemBlob           `json:"inlineData,omitempty"`
	FileData         *gemFileData       `json:"fileData,omitempty"`
	FunctionCall     *gemFunctionCall   `json:"functionCall,omitempty"`
	FunctionResponse *gemFunctionAnswer `json:"functionResponse,omitempty"`
}

type gemBlob struct {
	MimeType    string `json:"mimeType"`
	Data        string `json:"data"`
	DisplayName string `json:"displayName,omitempty"`
}

type gemFileData struct {
	FileURI     string `json:"fileUri"`
	MimeType    string `json:"mimeType,omitempty"`
	DisplayName string `json:"displayName,omitempty"`
}

type gemFunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type gemFunctionAnswer struct {
	ID       string            `json:"id,omitempty"`
	Name     string            `json:"name"`
	Response json.RawMessage   `json:"response"`
	Parts    []gemResponsePart `json:"parts,omitempty"`
}

// gemResponsePart is a FunctionResponsePart: media a tool returned, which
// Gemini 3 takes inside the function response.
type gemResponsePart struct {
	InlineData *gemBlob     `json:"inlineData,omitempty"`
	FileData   *gemFileData `json:"fileData,omitempty"`
}

type gemTool struct {
	FunctionDeclarations []struct {
		Name                 string          `json:"name"`
		Description          string          `json:"description,omitempty"`
		Parameters           json.RawMessage `json:"parameters,omitempty"`
		ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
	} `json:"functionDeclarations"`
}

type gemToolConfig struct {
	FunctionCallingConfig struct {
		Mode                 string   `json:"mode"`
		AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
	} `json:"functionCallingConfig"`
}

type gemGenConfig struct {
	MaxOutputTokens *int     `json:"maxOutputTokens,omitempty"`
	Temperature     *float64 `json:"temperature,omitempty"`
	TopP            *float64 `json:"topP,omitempty"`
	TopK            *float64 `json:"topK,omitempty"`
	StopSequences   []string `json:"stopSequences,omitempty"`
	ThinkingConfig  *struct {
		IncludeThoughts bool   `json:"includeThoughts,omitempty"`
		ThinkingBudget  *int   `json:"thinkingBudget,omitempty"`
		ThinkingLevel   string `json:"thinkingLevel,omitempty"`
	} `json:"thinkingConfig,omitempty"`
}

// parseGemRequest reads a body strictly; it returns Google's message for
// a body it refuses.
func parseGemRequest(body []byte) (*gemRequest, string) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var req gemRequest
	if err := dec.Decode(&req); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return nil, fmt.Sprintf("Invalid JSON payload received. Unknown name %s: Cannot find field.", name)
		}
		return nil, "Invalid JSON payload received. " + err.Error()
	}
	if len(req.Contents) == 0 {
		return nil, "* GenerateContentRequest.contents: contents is not specified"
	}
	for i, c := range req.Contents {
		if c.Role != "" && c.Role != "user" && c.Role != "model" {
			return nil, fmt.Sprintf("Please use a valid role: user, model. (contents[%d])", i)
		}
		if len(c.Parts) == 0 {
			return nil, fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.", i)
		}
		for j, p := range c.Parts {
			if p.data() != 1 {
				return nil, fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d].data: required oneof field 'data' must have one initialized field", i, j)
			}
		}
	}
	return &req, ""
}

// data counts the data fields of a part: Gemini wants one.
func (p gemPart) data() int {
	n := 0
	for _, set := range []bool{p.Text != nil, p.InlineData != nil, p.FileData != nil, p.FunctionCall != nil, p.FunctionResponse != nil} {
		if set {
			n++
		}
	}
	if n == 0 && p.ThoughtSignature != "" {
		return 1 // an empty text part that only carries a signature
	}
	return n
}

// lastText returns the text of the last content, when it is the user's.
func (r *gemRequest) lastText() string {
	c := r.Contents[len(r.Contents)-1]
	if c.Role == "model" {
		return ""
	}
	var text strings.Builder
	for _, p := range c.Parts {
		if p.Text != nil {
			text.WriteString(*p.Text)
		}
	}
	return text.String()
}

// currentTurn returns the index of the last user content with parts of
// its own (not only function responses): the calls after it are checked.
func (r *gemRequest) currentTurn() int {
	last := -1
	for i, c := range r.Contents {
		if c.Role == "model" {
			continue
		}
		for _, p := range c.Parts {
			if p.FunctionResponse == nil {
				last = i
				break
			}
		}
	}
	return last
}
