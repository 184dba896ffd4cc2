package refengine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig reads JPEG
	_ "image/png"  // and PNG
	"strconv"
	"strings"
)

// ImageSeen is one image a request carried, as the engine read it: its size, its format and
// the SHA-256 of its bytes (so a test can count distinct images).
type ImageSeen struct {
	Width, Height int
	Format        string
	SHA256        string
}

// readImages reads the images of a request's messages and what they cost in prompt tokens
// by the ImagePatch rule. A text model (ImagePatch 0) refuses any image, as vLLM refuses one
// for a model that is not multimodal. Errors are *apiError.
func (s *Server) readImages(model string, msgs []chatMessage) ([]ImageSeen, int, error) {
	var seen []ImageSeen
	tokens := 0
	for _, m := range msgs {
		images, err := m.images()
		if err != nil {
			return nil, 0, err
		}
		for _, data := range images {
			if s.opts.ImagePatch == 0 {
				return nil, 0, errBadRequest("%s is not a multimodal model: it does not take image input.", model)
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
			if err != nil {
				return nil, 0, errBadRequest("image %d is not a PNG or JPEG image: %v", len(seen), err)
			}
			sum := sha256.Sum256(data)
			seen = append(seen, ImageSeen{Width: cfg.Width, Height: cfg.Height, Format: format, SHA256: hex.EncodeToString(sum[:])})
			p := s.opts.ImagePatch
			tokens += ((cfg.Width + p - 1) / p) * ((cfg.Height + p - 1) / p)
		}
	}
	return seen, tokens, nil
}

// parseAdapters reads "name:slowdown,..." (a name alone is 1: as fast as the base model).
func parseAdapters(v string) (map[string]float64, error) {
	out := map[string]float64{}
	for term := range strings.SplitSeq(v, ",") {
		name, factor, ok := strings.Cut(strings.TrimSpace(term), ":")
		f := 1.0
		if ok {
			var err error
			if f, err = strconv.ParseFloat(factor, 64); err != nil || !(f > 0) {
				return nil, fmt.Errorf("adapter %q: the slowdown must be a number above 0", term)
			}
		}
		if name == "" {
			return nil, fmt.Errorf("adapter %q: no name", term)
		}
		out[name] = f
	}
	return out, nil
}

// adapter is the slowdown of the adapter model names, and whether it is one.
func (s *Server) adapter(model string) (float64, bool) {
	f, ok := s.opts.Adapters[model]
	return f, ok
}
