module github.com/caddy-llm-thinking/caddy-llm-thinking

go 1.26.8

require github.com/hashicorp/golang-lru/v2 v2.0.7
