package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// GGUF v3, the file format llama.cpp and Ollama load: a header, typed metadata, tensor
// descriptions, then the tensors' data, each at an offset aligned to ggufAlignment.
const (
	ggufMagic     = "GGUF"
	ggufVersion   = 3
	ggufAlignment = 32
)

// Metadata value types of GGUF v3.
const (
	ggufUint32  uint32 = 4
	ggufInt32   uint32 = 5
	ggufFloat32 uint32 = 6
	ggufBool    uint32 = 7
	ggufString  uint32 = 8
	ggufArray   uint32 = 9
)

// Tensor element types of ggml.
const (
	ggmlF32 uint32 = 0
	ggmlF16 uint32 = 1
)

// meta is one metadata entry; its value is a uint32, int32, float32, bool, string,
// []string or []int32.
type meta struct {
	key   string
	value any
}

// tensor is one weight: dims innermost first (ggml's ne0 is the contiguous one).
type tensor struct {
	name   string
	dims   []uint64
	kind   uint32
	values []float32
}

func (t tensor) size() uint64 {
	if t.kind == ggmlF16 {
		return 2 * uint64(len(t.values))
	}
	return 4 * uint64(len(t.values))
}

// ggufWriter writes little-endian values and counts the bytes, for the alignment; the
// first error sticks and ends all writing.
type ggufWriter struct {
	w   *bufio.Writer
	n   uint64
	err error
}

func (g *ggufWriter) bytes(b []byte) {
	if g.err != nil {
		return
	}
	var n int
	n, g.err = g.w.Write(b)
	g.n += uint64(n)
}

func (g *ggufWriter) u32(v uint32) { g.bytes(binary.LittleEndian.AppendUint32(nil, v)) }
func (g *ggufWriter) u64(v uint64) { g.bytes(binary.LittleEndian.AppendUint64(nil, v)) }

func (g *ggufWriter) str(s string) {
	g.u64(uint64(len(s)))
	g.bytes([]byte(s))
}

func (g *ggufWriter) pad() {
	if rest := g.n % ggufAlignment; rest != 0 {
		g.bytes(make([]byte, ggufAlignment-rest))
	}
}

func (g *ggufWriter) value(v any) error {
	switch v := v.(type) {
	case uint32:
		g.u32(ggufUint32)
		g.u32(v)
	case int32:
		g.u32(ggufInt32)
		g.u32(uint32(v))
	case float32:
		g.u32(ggufFloat32)
		g.u32(math.Float32bits(v))
	case bool:
		g.u32(ggufBool)
		b := byte(0)
		if v {
			b = 1
		}
		g.bytes([]byte{b})
	case string:
		g.u32(ggufString)
		g.str(v)
	case []string:
		g.u32(ggufArray)
		g.u32(ggufString)
		g.u64(uint64(len(v)))
		for _, s := range v {
			g.str(s)
		}
	case []int32:
		g.u32(ggufArray)
		g.u32(ggufInt32)
		g.u64(uint64(len(v)))
		for _, x := range v {
			g.u32(uint32(x))
		}
	default:
		return fmt.Errorf("gguf: no metadata type for %T", v)
	}
	return nil
}

// writeGGUF writes a GGUF v3 file of metas and tensors to w.
func writeGGUF(w io.Writer, metas []meta, tensors []tensor) error {
	g := &ggufWriter{w: bufio.NewWriterSize(w, 1<<20)}
	g.bytes([]byte(ggufMagic))
	g.u32(ggufVersion)
	g.u64(uint64(len(tensors)))
	g.u64(uint64(len(metas)))
	for _, m := range metas {
		g.str(m.key)
		if err := g.value(m.value); err != nil {
			return fmt.Errorf("%s: %w", m.key, err)
		}
	}
	var offset uint64
	for _, t := range tensors {
		g.str(t.name)
		g.u32(uint32(len(t.dims)))
		for _, d := range t.dims {
			g.u64(d)
		}
		g.u32(t.kind)
		g.u64(offset)
		offset += t.size()
		offset += (ggufAlignment - offset%ggufAlignment) % ggufAlignment
	}
	g.pad()
	buf := make([]byte, 0, 1<<16)
	for _, t := range tensors {
		for i, v := range t.values {
			if t.kind == ggmlF16 {
				buf = binary.LittleEndian.AppendUint16(buf, halfOf(v))
			} else {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			}
			if len(buf) >= 1<<16-4 || i == len(t.values)-1 {
				g.bytes(buf)
				buf = buf[:0]
			}
		}
		g.pad()
	}
	if g.err != nil {
		return g.err
	}
	return g.w.Flush()
}

// halfOf is f as an IEEE 754 half-precision float, rounded to nearest, ties to even;
// values past the half range become infinities, tiny ones subnormals or zero.
func halfOf(f float32) uint16 {
	bits := math.Float32bits(f)
	sign := uint16(bits>>16) & 0x8000
	exp := int(bits>>23) & 0xff
	frac := bits & 0x7fffff
	if exp == 0xff { // infinity or NaN
		if frac != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15 // the half's biased exponent
	if e >= 0x1f {
		return sign | 0x7c00
	}
	var mant uint32 // the significand with its implicit bit, and the bits to drop
	var drop uint
	if e <= 0 {
		if e < -10 {
			return sign // under half the smallest subnormal
		}
		mant, drop = frac|0x800000, uint(14-e)
		e = 0
	} else {
		mant, drop = frac, 13
	}
	half := mant >> drop
	rest := mant & (1<<drop - 1)
	tie := uint32(1) << (drop - 1)
	if rest > tie || rest == tie && half&1 == 1 {
		half++ // a carry out of the significand steps the exponent, as it should
	}
	return sign | (uint16(e)<<10 + uint16(half))
}
