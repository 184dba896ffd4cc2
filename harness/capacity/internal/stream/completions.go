package stream

import (
	"github.com/anvilbench/anvilbench/internal/wire"
)

// APICompletions is the legacy /v1/completions: a plain prompt, no conversation.
const APICompletions API = "completions"

func init() { register(APICompletions, completions{}, 1) }

// completions is the legacy completions API: a plain prompt in, chat's chunks out (text
// in place of a delta).
type completions struct{ chat }

func (completions) path() string { return "/completions" }
func (completions) supports() Support {
	return Support{ReasoningEffort: true, Priority: true, ProbeTokens: 1}
}

func (completions) body(r ChatRequest, dst []byte) ([]byte, error) {
	if r.Prompt != "" {
		dst = append(dst, `,"prompt":`...)
		dst = wire.AppendString(dst, r.Prompt)
	}
	return r.appendChatTail(dst)
}
