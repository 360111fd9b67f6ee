package transport

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

// adapt adapts a Caddyfile and returns the first reverse_proxy's
// transport as JSON.
func adapt(t *testing.T, cf string) (map[string]any, error) {
	t.Helper()
	out, _, err := caddyfile.Adapter{ServerType: httpcaddyfile.ServerType{}}.Adapt([]byte(cf), nil)
	if err != nil {
		return nil, err
	}
	var cfg struct {
		Apps struct {
			HTTP struct {
				Servers map[string]struct {
					Routes []struct {
						Handle []struct {
							Routes []struct {
								Handle []map[string]any `json:"handle"`
							} `json:"routes"`
							Transport map[string]any `json:"transport"`
						} `json:"handle"`
					} `json:"routes"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, s := range cfg.Apps.HTTP.Servers {
		for _, r := range s.Routes {
			for _, h := range r.Handle {
				if h.Transport != nil {
					return h.Transport, nil
				}
				for _, sr := range h.Routes {
					for _, hh := range sr.Handle {
						if tr, ok := hh["transport"].(map[string]any); ok {
							return tr, nil
						}
					}
				}
			}
		}
	}
	t.Fatalf("no transport in %s", out)
	return nil, nil
}

func TestCaddyfile(t *testing.T) {
	tests := []struct{ name, block, want, err string }{
		{"openai with http options", `transport openai {
			model claude-* Qwen/Qwen3-32B
			model * other
			reasoning reasoning
			thinking_switch chat_template_kwargs
			think_tags open
			max_tokens 8192
			dial_timeout 3s
			versions 1.1
		}`, `{"dial_timeout":3000000000,"max_tokens":8192,"models":[{"match":"claude-*","model":"Qwen/Qwen3-32B"},{"match":"*","model":"other"}],"protocol":"openai","reasoning":"reasoning","think_tags":"open","thinking_switch":"chat_template_kwargs","versions":["1.1"]}`, ""},
		{"openai alone", `transport openai`, `{"protocol":"openai"}`, ""},
		{"openai for OpenRouter and OpenAI's reasoning models", `transport openai {
			reasoning reasoning_details
			signing_key {env.SIGNING_KEY}
			max_tokens_field max_completion_tokens
		}`, `{"max_tokens_field":"max_completion_tokens","protocol":"openai","reasoning":"reasoning_details","signing_key":"{env.SIGNING_KEY}"}`, ""},
		{"sizes as the handler writes them, think tags off", `transport openai {
			think_tags off
			max_response_size 16MiB
		}`, `{"max_response_size":16777216,"protocol":"openai","think_tags":"off"}`, ""},
		{"anthropic", `transport anthropic {
			model * qwen3-coder
			keepalive 30s
		}`, `{"keep_alive":{"idle_timeout":30000000000},"models":[{"match":"*","model":"qwen3-coder"}],"protocol":"anthropic"}`, ""},
		{"gemini", `transport gemini {
			model claude-* gemini-3-pro-preview
			api_key {env.GEMINI_API_KEY}
			api_version v1
			signing_key {env.SIGNING_KEY}
			max_response_size 4MiB
			dial_timeout 2s
		}`, `{"api_key":"{env.GEMINI_API_KEY}","api_version":"v1","dial_timeout":2000000000,"max_response_size":4194304,"models":[{"match":"claude-*","model":"gemini-3-pro-preview"}],"protocol":"gemini","signing_key":"{env.SIGNING_KEY}"}`, ""},
		{"gemini thinking by budget, capped", `transport gemini {
			model * gemini-flash-latest
			thinking budget
			max_tokens 16384
		}`, `{"max_tokens":16384,"models":[{"match":"*","model":"gemini-flash-latest"}],"protocol":"gemini","thinking":"budget"}`, ""},
		{"gemini thinking twice", `transport gemini {
			thinking level
			thinking budget
		}`, "", "given twice"},
		{"responses", `transport responses {
			model claude-* gpt-5
			api_key {env.OPENAI_API_KEY}
			reasoning_summary detailed
			max_tokens 16384
			signing_key s
			max_response_size 2MiB
			read_timeout 5m
		}`, `{"api_key":"{env.OPENAI_API_KEY}","max_response_size":2097152,"max_tokens":16384,"models":[{"match":"claude-*","model":"gpt-5"}],"protocol":"responses","read_timeout":300000000000,"reasoning_summary":"detailed","signing_key":"s"}`, ""},
		{"responses summary twice", `transport responses {
			reasoning_summary auto
			reasoning_summary none
		}`, "", "given twice"},
		{"gemini api_key twice", `transport gemini {
			api_key a
			api_key b
		}`, "", "given twice"},
		{"model with one argument", `transport openai {
			model claude-*
		}`, "", "model: want a pattern and a model name"},
		{"unknown subdirective", `transport openai {
			bogus 1
		}`, "", "unrecognized subdirective bogus"},
		{"reasoning twice", `transport openai {
			reasoning reasoning
			reasoning none
		}`, "", "given twice"},
		{"max_tokens not a number", `transport openai {
			max_tokens lots
		}`, "", "positive number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := adapt(t, ":8080 {\n\treverse_proxy 127.0.0.1:8000 {\n\t\t"+tt.block+"\n\t}\n}\n")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(got)
			if string(b) != tt.want {
				t.Errorf("\n got %s\nwant %s", b, tt.want)
			}
		})
	}
}

// TestCaddyfileHTTPSUpstream: an https upstream turns TLS on, as with the
// http transport.
func TestCaddyfileHTTPSUpstream(t *testing.T) {
	got, err := adapt(t, ":8080 {\n\treverse_proxy https://api.deepseek.com {\n\t\ttransport openai\n\t}\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["tls"]; !ok {
		t.Errorf("no tls: %v", got)
	}
}

func TestValidate(t *testing.T) {
	for _, o := range []OpenAI{{Reasoning: "bogus"}, {ThinkingSwitch: "on"}, {ThinkTags: "maybe"}, {MaxTokens: -1}, {Models: Models{{Match: "", Model: "x"}}},
		{MaxTokensField: "max_output_tokens"}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v validated", o)
		}
	}
	if err := (&OpenAI{Reasoning: "think_tags", ThinkingSwitch: "thinking"}).Validate(); err != nil {
		t.Error(err)
	}
	if err := (&Anthropic{Models: Models{{Match: "*", Model: ""}}}).Validate(); err == nil {
		t.Error("an empty model validated")
	}
	for _, g := range []Gemini{{APIVersion: "v1/../x"}, {MaxResponseSize: -1}, {MaxTokens: -1}, {Thinking: "high"}, {Models: Models{{Match: "", Model: "x"}}}} {
		if err := g.Validate(); err == nil {
			t.Errorf("%+v validated", g)
		}
	}
}

func TestModelsMap(t *testing.T) {
	m := Models{{"claude-haiku-*", "small"}, {"claude-*", "big"}}
	for asked, want := range map[string]string{"claude-haiku-4-5": "small", "claude-sonnet-4-5": "big", "gpt-4": "gpt-4"} {
		if got, _ := m.Map(asked); got != want {
			t.Errorf("%s -> %s, want %s", asked, got, want)
		}
	}
}
