package refengine

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// maxBodyBytes bounds a request body: a 1M-token prompt is about 4 MiB of text.
const maxBodyBytes = 64 << 20

// legacyDefaultMaxTokens is max_tokens of a /v1/completions request that sets none, as in
// the OpenAI API and vLLM.
const legacyDefaultMaxTokens = 16

// Chat-template overhead of prompt_tokens, like real templates: role markers around each
// message plus the assistant prompt at the end.
const (
	templateTokensPerMessage = 4
	templateTokensPerPrompt  = 3
)

// genRequest is the subset of the OpenAI chat/completions and completions bodies that
// matters; unknown fields are ignored.
type genRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Prompt              json.RawMessage `json:"prompt"` // /v1/completions only
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"` // vLLM: usage on every chunk
	} `json:"stream_options"`
	// IncludeMetrics asks for vLLM's per-request metrics object in the last chunk.
	IncludeMetrics     bool            `json:"include_metrics"`
	ChatTemplateKwargs map[string]any  `json:"chat_template_kwargs"` // enable_thinking
	ReasoningEffort    json.RawMessage `json:"reasoning_effort"`
	Tools              []chatTool      `json:"tools"`
	ToolChoice         json.RawMessage `json:"tool_choice"`
	ResponseFormat     *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	// Priority is vLLM's and SGLang's request priority (lower first); an engine that
	// schedules first come first served reads and ignores it.
	Priority *int `json:"priority"`
}

// chatTool is a tool in chat's form (Ollama's native API writes it the same): what the
// engine reads of it is its function's name.
type chatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

type chatMessage struct {
	Role    string         `json:"role"`
	Content messageContent `json:"content"`
	// Images are Ollama's: base64 beside the text.
	Images []string `json:"images"`
}

// images are the message's images, in every API's form, decoded from base64.
func (m chatMessage) images() ([][]byte, error) {
	out := slices.Clone(m.Content.images)
	for k, b64 := range m.Images {
		data, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, errBadRequest("images[%d] is not base64: %v", k, err)
		}
		out = append(out, data)
	}
	return out, nil
}

// messageContent is a message's text: a JSON string, null, or an array of content parts whose
// "text" members are concatenated; image parts (chat's image_url, the Responses API's
// input_image, the Messages API's image with a base64 source) are kept apart.
type messageContent struct {
	text   string
	images [][]byte
}

// contentPart is one part of a content array, in any API's form.
type contentPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	ImageURL json.RawMessage `json:"image_url"` // chat: {"url": ...}; Responses: the URL
	Source   *struct {
		Type string `json:"type"`
		Data string `json:"data"`
	} `json:"source"` // Messages: base64
}

// image is the part's image, decoded; nil for a part that holds none.
func (p contentPart) image() ([]byte, error) {
	var url string
	switch {
	case p.Source != nil:
		if p.Source.Type != "base64" {
			return nil, fmt.Errorf("image source type %q is not supported (base64 only)", p.Source.Type)
		}
		return base64.StdEncoding.DecodeString(p.Source.Data)
	case len(p.ImageURL) == 0:
		return nil, nil
	case p.ImageURL[0] == '"':
		_ = json.Unmarshal(p.ImageURL, &url)
	default:
		var u struct {
			URL string `json:"url"`
		}
		_ = json.Unmarshal(p.ImageURL, &u)
		url = u.URL
	}
	_, data, ok := strings.Cut(url, ";base64,")
	if !strings.HasPrefix(url, "data:image/") || !ok {
		return nil, fmt.Errorf("image_url must be a data:image/...;base64, URL (this engine fetches nothing)")
	}
	return base64.StdEncoding.DecodeString(data)
}

func (c *messageContent) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '[' {
		var parts []contentPart
		if err := json.Unmarshal(b, &parts); err != nil {
			return fmt.Errorf("message content: %w", err)
		}
		var sb strings.Builder
		for k, p := range parts {
			sb.WriteString(p.Text)
			img, err := p.image()
			if err != nil {
				return fmt.Errorf("message content part %d: %w", k, err)
			}
			if img != nil {
				c.images = append(c.images, img)
			}
		}
		c.text = sb.String()
		return nil
	}
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("message content: %w", err)
	}
	if s != nil {
		c.text = *s
	}
	return nil
}

// job is a validated generation request, ready to simulate.
type job struct {
	api             surface
	legacy          bool // /v1/completions
	stream          bool
	includeUsage    bool // stream_options.include_usage: a final usage chunk
	includeMetrics  bool // include_metrics: vLLM's per-request metrics in the usage chunk
	continuousUsage bool // stream_options.continuous_usage_stats: usage on every chunk
	promptTokens    int
	promptHead      string // the instruction's first line, for joining traces with clients
	maxTokens       int
	think           bool
	plan            plan
	faults          Faults
	segments        []segment // what the prefix cache keys (PrefixCache only)
	tool            string    // the function the reply calls; "" answers in text
	json            bool      // the reply is a JSON object (response_format)
	leave           func()    // takes the request's marker out of the in-flight record
	model           string    // the model the request named, its adapter's, or the served one
	slowdown        float64   // its adapter's decode slowdown (1 without)
	priority        *int      // the priority it sent; nil none
	images          []ImageSeen
}

// requestFaults is the faults of r: its FaultsHeader, else Options.Faults.
func (s *Server) requestFaults(r *http.Request) (Faults, *apiError) {
	h := r.Header.Get(FaultsHeader)
	if h == "" {
		return s.opts.Faults, nil
	}
	f, err := parseFaults(h)
	if err != nil {
		return Faults{}, errBadRequest("Invalid %s header: %v", FaultsHeader, err)
	}
	return f, nil
}

// readRequest reads a JSON request body into v and checks the model it names (*model after
// decoding): empty or the served one. The body is read whole, not stream-decoded, so the
// server sees its EOF and starts watching the connection: that is what cancels the context
// when the client goes away.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request, v any, model *string) *apiError {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errBadRequest("Request body exceeds %d bytes.", tooBig.Limit)
		}
		return errBadRequest("Could not read the request body: %v", err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return errBadRequest("Invalid JSON body: %v", err)
	}
	if _, adapter := s.adapter(*model); *model != "" && *model != s.opts.Model && !slices.Contains(s.opts.Aliases, *model) && !adapter {
		return errModelNotFound(*model)
	}
	return nil
}

// parseJob reads, decodes and validates a generation request. Errors are *apiError. On
// success the caller must call job.leave when done.
func (s *Server) parseJob(w http.ResponseWriter, r *http.Request, api surface, faults Faults) (*job, error) {
	req, err := s.readGeneration(w, r, api)
	if err != nil {
		return nil, err
	}

	legacy := surfaces[api].legacy
	j := &job{api: api, legacy: legacy, stream: req.Stream, faults: faults, leave: func() {}, includeMetrics: req.IncludeMetrics,
		model: s.opts.Model, slowdown: 1, priority: req.Priority}
	if f, ok := s.adapter(req.Model); ok {
		j.model, j.slowdown = req.Model, f
	}
	if so := req.StreamOptions; req.Stream && so != nil {
		j.includeUsage, j.continuousUsage = so.IncludeUsage, so.ContinuousUsageStats
	}
	var instruction, prompt string
	if legacy {
		p, err := decodePrompt(req.Prompt)
		if err != nil {
			return nil, err
		}
		instruction, prompt = p, p
		j.promptTokens = s.opts.Tokenizer(prompt)
	} else {
		if len(req.Messages) == 0 {
			return nil, errBadRequest("messages must contain at least one message.")
		}
		if faults.DropHistory {
			req.Messages = req.Messages[len(req.Messages)-1:]
		}
		prompt, instruction = joinMessages(req.Messages)
		j.promptTokens = chatPromptTokens(s.opts.Tokenizer, req.Messages)
		images, tokens, err := s.readImages(j.model, req.Messages)
		if err != nil {
			return nil, err
		}
		j.images, j.promptTokens = images, j.promptTokens+tokens
		if err := j.structured(&req, instruction, s.opts.Tokenizer); err != nil {
			return nil, err
		}
		think, err := s.thinks(&req)
		if err != nil {
			return nil, err
		}
		j.think = think
	}

	j.promptHead = firstLine(instruction)

	if err := validateSampling(req.Temperature, req.TopP); err != nil {
		return nil, err
	}
	maxTokens := req.MaxTokens
	if req.MaxCompletionTokens != nil { // vLLM: max_completion_tokens wins over max_tokens
		maxTokens = req.MaxCompletionTokens
	}
	if legacy && maxTokens == nil {
		n := legacyDefaultMaxTokens
		maxTokens = &n
	}
	limit := s.opts.MaxModelLen
	truncate := s.opts.TruncatePrompts
	if truncate && j.promptTokens > limit {
		j.promptTokens = limit // silently, as llama.cpp and Ollama do
	}
	switch {
	case maxTokens != nil && *maxTokens < 1:
		return nil, errBadRequest("max_tokens must be at least 1, got %d.", *maxTokens)
	case truncate && maxTokens != nil:
		j.maxTokens = *maxTokens
	case maxTokens != nil && j.promptTokens+*maxTokens > limit:
		return nil, errBadRequest("This model's maximum context length is %d tokens. However, you "+
			"requested %d tokens (%d in the messages, %d in the completion). Please reduce the "+
			"length of the messages or completion.",
			limit, j.promptTokens+*maxTokens, j.promptTokens, *maxTokens)
	case !truncate && maxTokens == nil && j.promptTokens >= limit:
		return nil, errBadRequest("This model's maximum context length is %d tokens. However, your "+
			"request has %d input tokens. Please reduce the length of the input messages.",
			limit, j.promptTokens)
	case maxTokens != nil:
		j.maxTokens = *maxTokens
	default:
		j.maxTokens = max(limit-j.promptTokens, 1)
	}
	sp := planSpec{instruction: instruction, own: requestMarker(instruction), faults: faults, maxTokens: j.maxTokens, other: s.markers.other}
	switch {
	case !legacy && faults.ReasoningOnly:
		j.think, sp.reasoning = true, j.maxTokens
	case j.think:
		sp.reasoning = s.opts.ReasoningTokens
	}
	sp.json = j.tool != "" || j.json
	j.plan = buildPlan(sp)
	switch {
	case s.cache == nil:
	case legacy:
		j.segments = textSegments(s.seed, s.opts.Tokenizer, prompt)
	default:
		j.segments = chatSegments(s.seed, s.opts.Tokenizer, req.Messages)
	}
	if sp.own != "" {
		j.leave = s.markers.enter(sp.own)
	}
	return j, nil
}

// toolInstruction finds the function an instruction asks to call.
var toolInstruction = regexp.MustCompile(`Call the function ([A-Za-z0-9_-]+)`)

// structured decides whether the reply calls a tool or is a JSON object: a tool the
// tool_choice names, or, when tools are offered and the choice is not "none", the one the
// instruction asks for (the first tool under "required"); a response_format of json_schema
// or json_object. The tools' definitions count as prompt tokens, as a template puts them
// in the prompt.
func (j *job) structured(req *genRequest, instruction string, tokenize func(string) int) error {
	if rf := req.ResponseFormat; rf != nil {
		switch rf.Type {
		case "json_schema", "json_object":
			j.json = true
		case "text", "":
		default:
			return errBadRequest("response_format type %q is not supported.", rf.Type)
		}
	}
	if len(req.Tools) == 0 {
		return nil
	}
	offered := make([]string, len(req.Tools))
	for k, t := range req.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return errBadRequest("tools[%d] must be a function with a name.", k)
		}
		offered[k] = t.Function.Name
	}
	raw, _ := json.Marshal(req.Tools)
	j.promptTokens += tokenize(string(raw)) + templateTokensPerMessage
	var choice string
	var named struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	switch {
	case len(req.ToolChoice) == 0 || string(req.ToolChoice) == "null":
		choice = "auto"
	case json.Unmarshal(req.ToolChoice, &choice) == nil:
	case json.Unmarshal(req.ToolChoice, &named) == nil && named.Function.Name != "":
		if !slices.Contains(offered, named.Function.Name) {
			return errBadRequest("tool_choice names %q, which is not among the tools.", named.Function.Name)
		}
		j.tool = named.Function.Name
		return nil
	default:
		return errBadRequest("tool_choice must be \"none\", \"auto\", \"required\" or a named function.")
	}
	switch choice {
	case "none":
	case "auto", "required":
		if m := toolInstruction.FindStringSubmatch(instruction); m != nil && slices.Contains(offered, m[1]) {
			j.tool = m[1]
		} else if choice == "required" {
			j.tool = offered[0]
		}
	default:
		return errBadRequest("tool_choice %q is not one of none, auto, required.", choice)
	}
	return nil
}

// joinMessages returns the prompt text of a chat request (every message's content,
// concatenated) and its instruction (the last user message).
func joinMessages(msgs []chatMessage) (prompt, instruction string) {
	var all strings.Builder
	for _, m := range msgs {
		all.WriteString(m.Content.text)
		if m.Role == "user" {
			instruction = m.Content.text
		}
	}
	return all.String(), instruction
}

// chatPromptTokens is prompt_tokens of a chat request: the tokens of each message's text
// plus the chat template's overhead.
func chatPromptTokens(tokenizer func(string) int, msgs []chatMessage) int {
	n := templateTokensPerPrompt
	for _, m := range msgs {
		n += tokenizer(m.Content.text) + templateTokensPerMessage
	}
	return n
}

// decodePrompt accepts a /v1/completions prompt: a string or an array of exactly one string.
func decodePrompt(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", errBadRequest("prompt is required.")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil || len(list) != 1 {
		return "", errBadRequest("prompt must be a string or an array of one string.")
	}
	return list[0], nil
}

func validateSampling(temperature, topP *float64) error {
	if temperature != nil && *temperature < 0 {
		return errBadRequest("temperature must be non-negative, got %g.", *temperature)
	}
	if topP != nil && (*topP <= 0 || *topP > 1) {
		return errBadRequest("top_p must be in (0, 1], got %g.", *topP)
	}
	return nil
}

// firstLine is s up to its first newline, at most 128 bytes.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 128 {
		s = s[:128]
	}
	return strings.Clone(s)
}
