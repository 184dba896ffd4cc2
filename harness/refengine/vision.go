package refengine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"image"
	_ "image/jpeg" // DecodeConfig reads JPEG
	_ "image/png"  // and PNG
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
