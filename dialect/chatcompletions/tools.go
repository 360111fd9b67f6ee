package chatcompletions

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// maxToolName is the longest tool name OpenAI accepts.
const maxToolName = 64

// toolNames maps each tool name too long for the server to a shortened
// one: its first 55 characters, '_' and 8 hex digits of its SHA-256, the
// same for every request.
func (w *requestWriter) toolNames(tools jsonscan.Value) map[string]string {
	var names map[string]string
	held := 0
	for t := range tools.Elements() {
		lit := t.Get("name")
		if len(lit) <= maxToolName+2 {
			continue // its value is no longer
		}
		name := lit.Str()
		if len(name) <= maxToolName {
			continue
		}
		if names == nil {
			names = make(map[string]string)
		}
		sum := sha256.Sum256([]byte(name))
		names[name] = name[:maxToolName-9] + "_" + hex.EncodeToString(sum[:4])
		held += len(name) + maxToolName + 64
		w.Held(held)
	}
	return names
}

// toolName writes the name the server knows a tool by, from the client's
// name literal.
func (w *requestWriter) toolName(lit jsonscan.Value) {
	if len(w.names) > 0 && len(lit) > maxToolName+2 {
		var ok bool
		var name []byte
		name, w.scratch, ok = jsonstr.Value(w.scratch[:0], lit)
		if short, found := w.names[string(name)]; ok && found {
			w.Quote([]byte(short))
			return
		}
	}
	w.Str(lit)
}

// The client tools go as functions under the names the server knows them
// by (see toolName); server tools have no chat-completions form (see
// messagesapi.ClientTools). tool_choice: auto, any (required), a named
// tool, or none; disable_parallel_tool_use turns parallel calls off.
var (
	toolForm   = messagesapi.ToolForm{Open: `,"tools":[`, Close: "]", Name: `{"type":"function","function":{"name":`, Schema: `,"parameters":`, End: "}}"}
	choiceForm = messagesapi.ChoiceForm{Auto: `,"tool_choice":"auto"`, Any: `,"tool_choice":"required"`, None: `,"tool_choice":"none"`,
		Tool: `,"tool_choice":{"type":"function","function":{"name":`, ToolEnd: "}}", Serial: `,"parallel_tool_calls":false`}
)

// toolsAndChoice writes the tools and tool_choice. Without tools it
// writes no tool_choice: OpenAI refuses one then ("'tool_choice' is only
// allowed when 'tools' are specified"), and with no tool to call, none is
// what the client asked for anyway.
func (w *requestWriter) toolsAndChoice(r *messagesapi.Request) {
	if messagesapi.WriteTools(&w.Writer, r.Tools, &toolForm, w.toolName, nil) > 0 {
		messagesapi.ReadToolChoice(r.ToolChoice).Write(&w.Writer, &choiceForm, w.toolName)
	}
}

// thinkingSwitch appends what tells the server to think or not, as the
// request's thinking config says. A model that always thinks is never told
// not to: asked for no thinking, or for nothing, it gets the least effort
// every such server takes ("low": OpenAI's and Kimi Code's lists run
// minimal, low, medium, high; GLM-5.3's low, high, max), or no switch.
func thinkingSwitch(out []byte, sw ThinkingSwitch, cfg, outputConfig jsonscan.Value, alwaysThinks bool) []byte {
	on := cfg.Kind() == jsonscan.Object && !cfg.Get("type").Is("disabled")
	if alwaysThinks && !on {
		if sw == SwitchReasoningEffort {
			return append(out, `,"reasoning_effort":"low"`...)
		}
		return out
	}
	if sw == SwitchNone || cfg.Kind() != jsonscan.Object {
		return out
	}
	switch sw {
	case SwitchReasoningEffort:
		return append(out, `,"reasoning_effort":"`+effort(on, cfg, outputConfig)+`"`...)
	case SwitchChatTemplateKwargs:
		b := strconv.FormatBool(on)
		return append(out, `,"chat_template_kwargs":{"enable_thinking":`+b+`,"thinking":`+b+`}`...)
	case SwitchThinking:
		if on {
			return append(out, `,"thinking":{"type":"enabled"}`...)
		}
		return append(out, `,"thinking":{"type":"disabled"}`...)
	}
	return out
}

// effort returns the reasoning_effort for a thinking config: "none" when
// off, else the request's effort.
func effort(on bool, cfg, outputConfig jsonscan.Value) string {
	if !on {
		return "none"
	}
	return messagesapi.Effort(cfg, outputConfig)
}

func appendIntMember(out []byte, name string, n int64) []byte {
	return strconv.AppendInt(append(out, `,"`+name+`":`...), n, 10)
}
