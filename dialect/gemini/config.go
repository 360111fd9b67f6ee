package gemini

import (
	"strconv"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// The client tools go as function declarations, each schema as
// parametersJsonSchema without $schema (Gemini takes JSON Schema there:
// see schemaMembers); server tools have no Gemini form (see
// messagesapi.ClientTools). tool_choice is the function calling mode:
// auto, any (a call is forced), a named tool (forced, and only it), or
// none; Gemini has no switch for parallel calls.
var (
	toolForm = messagesapi.ToolForm{Open: `,"tools":[{"functionDeclarations":[`, Close: "]}]",
		Name: `{"name":`, Schema: `,"parametersJsonSchema":{`, End: "}}"}
	choiceForm = messagesapi.ChoiceForm{
		Auto: `,"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}`,
		Any:  `,"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}`,
		None: `,"toolConfig":{"functionCallingConfig":{"mode":"NONE"}}`,
		Tool: `,"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":[`, ToolEnd: "]}}"}
)

// schemaMembers writes the members of a tool's input schema but $schema.
func (w *requestWriter) schemaMembers(schema jsonscan.Value) {
	first := true
	for name, v := range schema.Members() {
		if name == "$schema" {
			continue
		}
		if !first {
			w.Raw(",")
		}
		first = false
		w.Quote([]byte(name))
		w.Raw(":")
		w.RawBytes(v)
	}
}

// generationConfig writes what the generation config takes of the
// request: max_tokens (capped by the option, and to MaxOutputTokens),
// temperature, top_p, top_k, stop_sequences and the thinking config.
func (w *requestWriter) generationConfig(r *messagesapi.Request, upstream string) {
	cfg := jsonout.List{Open: `,"generationConfig":{`, Close: "}"}
	field := func(name string) {
		w.Next(&cfg)
		w.Raw(`"` + name + `":`)
	}
	if r.MaxTokens.Kind() == jsonscan.Number {
		field("maxOutputTokens")
		w.Raw(strconv.FormatInt(min(max(r.CappedMaxTokens(w.opts.MaxTokens), 1), MaxOutputTokens), 10))
	}
	for _, f := range []struct {
		name string
		v    jsonscan.Value
	}{{"temperature", r.Temperature}, {"topP", r.TopP}, {"topK", r.TopK}} {
		if f.v.Kind() == jsonscan.Number {
			field(f.name)
			w.RawBytes(f.v)
		}
	}
	if v := r.StopSequences; v.Kind() == jsonscan.Array && v.Len() > 0 {
		field("stopSequences")
		w.RawBytes(v)
	}
	if thinking := thinkingConfig(r.Thinking, r.OutputConfig, w.byLevel, upstream); thinking != "" {
		field("thinkingConfig")
		w.Raw(thinking)
	}
	w.End(&cfg)
}

// thinkingConfig returns the thinkingConfig a request's thinking config
// asks for, "" for none. A model that thinks by level (Gemini 3) cannot
// stop thinking: an enabled budget up to 4096 tokens, or the effort low,
// is "low", anything more "high"; disabled leaves the model's default.
// Models that think by budget (Gemini 2.5, Gemma, one that refused a
// level) take enabled's, clamped to the model's range, dynamic (-1) for
// adaptive, 0 for disabled (Pro cannot go below 128). Thoughts are included whenever
// thinking is on: they come back as thinking blocks.
func thinkingConfig(cfg, outputConfig jsonscan.Value, byLevel bool, model string) string {
	if cfg.Kind() != jsonscan.Object {
		return ""
	}
	var name [32]byte
	typ := string(cfg.Get("type").Name(&name))
	budget := cfg.Get("budget_tokens").Int()
	if byLevel {
		level := "high"
		switch typ {
		case "enabled":
			if budget > 0 && budget <= 4096 {
				level = "low"
			}
		case "adaptive":
			if outputConfig.Get("effort").Is("low") {
				level = "low"
			}
		default:
			return ""
		}
		return `{"includeThoughts":true,"thinkingLevel":"` + level + `"}`
	}
	pro := strings.Contains(model, "pro")
	switch typ {
	case "enabled":
		if pro {
			budget = min(max(budget, 128), 32768)
		} else {
			budget = min(max(budget, 0), 24576)
		}
		return `{"includeThoughts":true,"thinkingBudget":` + strconv.FormatInt(budget, 10) + "}"
	case "adaptive":
		return `{"includeThoughts":true,"thinkingBudget":-1}`
	case "disabled":
		if pro {
			return `{"thinkingBudget":128}`
		}
		return `{"thinkingBudget":0}`
	}
	return ""
}
