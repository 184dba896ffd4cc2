package workload

import (
	"bytes"
	"image"
	"testing"
)

// Images of different seeds differ byte for byte; the same seed gives the same bytes; each
// decodes to its size in its format.
func TestImagesAreTheirSeedsAndSizes(t *testing.T) {
	for _, format := range []ImageFormat{PNG, JPEG} {
		seen := map[string]bool{}
		for seed := range uint64(20) {
			data, err := Image(seed, ImageSize{300, 200}, format)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := Image(seed, ImageSize{300, 200}, format)
			if !bytes.Equal(data, again) {
				t.Fatalf("%s seed %d: two encodings differ", format, seed)
			}
			cfg, got, err := image.DecodeConfig(bytes.NewReader(data))
			if err != nil || got != string(format) || cfg.Width != 300 || cfg.Height != 200 {
				t.Fatalf("%s seed %d: decodes as %s %dx%d (%v)", format, seed, got, cfg.Width, cfg.Height, err)
			}
			seen[string(data)] = true
		}
		if len(seen) != 20 {
			t.Errorf("%s: 20 seeds gave %d distinct images", format, len(seen))
		}
	}
}

func TestImageSizesParse(t *testing.T) {
	var s ImageSizes
	if err := s.UnmarshalText([]byte("3:512x512, 1:1024X768")); err != nil || len(s) != 2 || s[1].Size != (ImageSize{1024, 768}) {
		t.Fatalf("%v %v", s, err)
	}
	if got := s.Pick(0.74); got != (ImageSize{512, 512}) {
		t.Errorf("0.74 picks %v", got)
	}
	if got := s.Pick(0.76); got != (ImageSize{1024, 768}) {
		t.Errorf("0.76 picks %v", got)
	}
	for _, bad := range []string{"", "512", "0x5", "512x9000", "-1:5x5", "a:5x5"} {
		if err := new(ImageSizes).UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
