package workload

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// ImageSize is an image's width and height in pixels.
type ImageSize struct{ W, H int }

// String writes the size as "512x512".
func (s ImageSize) String() string { return strconv.Itoa(s.W) + "x" + strconv.Itoa(s.H) }

// maxImageSide bounds a side: larger than any engine's vision input takes whole.
const maxImageSide = 8192

// ImageSizes is a weighted set of image sizes, written "512x512" or "3:512x512,1:1024x768":
// each image of a request takes one of them, in proportion to its weight.
type ImageSizes []WeightedSize

// WeightedSize is one size of an ImageSizes and its weight.
type WeightedSize struct {
	Weight float64
	Size   ImageSize
}

// String writes the set as UnmarshalText reads it (a lone size without its weight).
func (s ImageSizes) String() string {
	if len(s) == 1 {
		return s[0].Size.String()
	}
	parts := make([]string, len(s))
	for i, w := range s {
		parts[i] = strconv.FormatFloat(w.Weight, 'g', -1, 64) + ":" + w.Size.String()
	}
	return strings.Join(parts, ",")
}

// MarshalText writes s as String does.
func (s ImageSizes) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads "WxH" or "weight:WxH,...": sides 1..8192, weights above 0.
func (s *ImageSizes) UnmarshalText(text []byte) error {
	var out ImageSizes
	for term := range strings.SplitSeq(string(text), ",") {
		term = strings.TrimSpace(term)
		w := WeightedSize{Weight: 1}
		if weight, size, ok := strings.Cut(term, ":"); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(weight), 64)
			if err != nil || !(f > 0) || f > 1e9 {
				return fmt.Errorf("image size %q: the weight must be a number above 0", term)
			}
			w.Weight, term = f, strings.TrimSpace(size)
		}
		ws, hs, ok := strings.Cut(strings.ToLower(term), "x")
		wi, err1 := strconv.Atoi(ws)
		hi, err2 := strconv.Atoi(hs)
		if !ok || err1 != nil || err2 != nil || wi < 1 || hi < 1 || wi > maxImageSide || hi > maxImageSide {
			return fmt.Errorf("image size %q: want WIDTHxHEIGHT in pixels, each 1..%d (512x512)", term, maxImageSide)
		}
		w.Size = ImageSize{wi, hi}
		out = append(out, w)
	}
	*s = out
	return nil
}

// Pick is the size a uniform draw u in [0, 1) falls on.
func (s ImageSizes) Pick(u float64) ImageSize {
	total := 0.0
	for _, w := range s {
		total += w.Weight
	}
	at := u * total
	for _, w := range s {
		if at < w.Weight {
			return w.Size
		}
		at -= w.Weight
	}
	return s[len(s)-1].Size
}

// Sizes are the distinct sizes of the set, in its order.
func (s ImageSizes) Sizes() []ImageSize {
	var out []ImageSize
	for _, w := range s {
		if !slices.Contains(out, w.Size) {
			out = append(out, w.Size)
		}
	}
	return out
}

// ImageFormat is how an image is encoded: png or jpeg.
type ImageFormat string

// The image formats.
const (
	PNG  ImageFormat = "png"
	JPEG ImageFormat = "jpeg"
)

// Choices lists the formats.
func (ImageFormat) Choices() []string { return []string{string(PNG), string(JPEG)} }

// Valid reports whether f is one of Choices.
func (f ImageFormat) Valid() bool { return slices.Contains(f.Choices(), string(f)) }

// MediaType is the format's MIME type.
func (f ImageFormat) MediaType() string { return "image/" + string(f) }

// Image is an encoded image of size, a function of seed alone: a smooth field of colour
// (gradients, as a photograph's regions are, so it encodes to a photograph's few bytes a
// pixel rather than noise's three) with the seed written into its first row, so images of
// different seeds differ byte for byte and pixel for pixel and no engine's image cache can
// serve one for another.
func Image(seed uint64, size ImageSize, format ImageFormat) ([]byte, error) {
	rng := rand.New(rand.NewPCG(seed, 0x1a6e))
	img := image.NewNRGBA(image.Rect(0, 0, size.W, size.H))
	var base, dx, dy [3]float64
	for c := range 3 {
		base[c] = rng.Float64() * 255
		dx[c] = (rng.Float64()*2 - 1) * 255 / float64(size.W)
		dy[c] = (rng.Float64()*2 - 1) * 255 / float64(size.H)
	}
	for y := range size.H {
		row := img.Pix[y*img.Stride:]
		for x := range size.W {
			for c := range 3 {
				v := base[c] + dx[c]*float64(x) + dy[c]*float64(y)
				row[4*x+c] = uint8(int(v) & 0xff)
			}
			row[4*x+3] = 0xff
		}
	}
	// The seed, a byte a pixel on the first row's red channel, then a mark of its end: a
	// lossy encoding keeps it apart too, since the gradients around it differ as well.
	for k := range min(8, size.W) {
		img.SetNRGBA(k, 0, color.NRGBA{R: byte(seed >> (8 * k)), G: byte(k * 31), B: 0x7f, A: 0xff})
	}
	var buf bytes.Buffer
	var err error
	switch format {
	case JPEG:
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
	default:
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	}
	if err != nil {
		return nil, fmt.Errorf("encode %s image %s: %w", format, size, err)
	}
	return buf.Bytes(), nil
}
