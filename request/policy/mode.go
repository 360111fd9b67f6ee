package policy

import (
	"fmt"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
)

// Modes name what becomes of blocks the target backend did not produce.
const (
	ModeStrip         = "strip"
	ModeConvertToText = "convert_to_text"
	ModeConvertToTags = "convert_to_tags"
	ModeDropSignature = "drop_signature"
)

var modeActions = map[string]thinking.Action{
	ModeStrip:         thinking.Strip,
	ModeConvertToText: thinking.ConvertToText,
	ModeConvertToTags: thinking.ConvertToTags,
	ModeDropSignature: thinking.DropSignature,
}

// ParseMode returns the action a mode names; "" is ModeStrip.
func ParseMode(mode string) (thinking.Action, error) {
	if mode == "" {
		return thinking.Strip, nil
	}
	a, ok := modeActions[mode]
	if !ok {
		return 0, fmt.Errorf("unknown mode %q (want %s, %s, %s or %s)", mode, ModeStrip, ModeConvertToText, ModeConvertToTags, ModeDropSignature)
	}
	return a, nil
}
