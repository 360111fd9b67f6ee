package gemini

import (
	"strconv"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// tools writes the client tools as function declarations, each schema as
// parametersJsonSchema without $schema (Gemini takes JSON Schema there);
// server tools have no Gemini form (see messagesapi.ClientTools).
func (w *requestWriter) tools(tools jsonscan.Value) {
	list := jsonout.List{Open: `,"tools":[{"functionDeclarations":[`, Close: "]}]"}
	for t := range messagesapi.ClientTools(tools) {
		w.Next(&list)
		w.Raw(`{"name":`)
		w.Str(t.Name)
		if t.Description.Exists() {
			w.Raw(`,"description":`)
			w.Str(t.Description)
		}
		w.Raw(`,"parametersJsonSchema":{`)
		first := true
		for name, v := range t.InputSchema.Members() {
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
		w.Raw("}}")
	}
	w.End(&list)
}

// toolConfig writes the function calling mode tool_choice asks for: auto,
// any (a call is forced), a named tool (forced, and only it), or none.
func (w *requestWriter) toolConfig(tc messagesapi.ToolChoice) {
	switch tc.Type {
	case messagesapi.ChoiceAuto:
		w.Raw(`,"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}`)
	case messagesapi.ChoiceAny:
		w.Raw(`,"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}`)
	case messagesapi.ChoiceNone:
		w.Raw(`,"toolConfig":{"functionCallingConfig":{"mode":"NONE"}}`)
	case messagesapi.ChoiceTool:
		w.Raw(`,"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":[`)
		w.Str(tc.Name)
		w.Raw("]}}")
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
