package artifact

// Images is what a run that sent images planned and sent: PerRequest images of Sizes (a
// size or a weighted set) in Format, each request's own or drawn from a pool of Pool; how
// many the measured requests sent and how many of those were distinct; and, by size
// ("512x512"), the prompt tokens the engine counted for one image (its probe before the run:
// with the image less without; a size is absent when it reported no usage) beside those of
// the rule of Patch-pixel patches (0: none configured). The means are per request: tokens
// counted (usage less the planned text) and planned.
type Images struct {
	PerRequest            int            `json:"per_request"`
	Sizes                 string         `json:"sizes"`
	Format                string         `json:"format"`
	Pool                  int            `json:"pool"`
	Patch                 int            `json:"patch"`
	Sent                  int            `json:"sent"`
	Distinct              int            `json:"distinct"`
	EngineTokens          map[string]int `json:"engine_tokens_per_image"`
	RuleTokens            map[string]int `json:"rule_tokens_per_image"`
	CountedPerRequestMean *Float         `json:"counted_tokens_per_request_mean"`
	PlannedPerRequestMean *Float         `json:"planned_tokens_per_request_mean"`
}

// TokensOf is what an image of size costs: the engine's count, else the rule's.
func (im *Images) TokensOf(size string) (int, bool) {
	if n, ok := im.EngineTokens[size]; ok {
		return n, true
	}
	n, ok := im.RuleTokens[size]
	return n, ok
}
