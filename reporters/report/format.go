package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/units"
)

// Number formatting: every figure carries its unit.

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// fmtMs prints a duration in milliseconds: "6.31 ms", "123.4 ms", "12.03 s".
func fmtMs(v float64) string {
	switch a := math.Abs(v); {
	case !isFinite(v):
		return "—"
	case a >= 1000:
		return strconv.FormatFloat(v/1000, 'f', 2, 64) + " s"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64) + " ms"
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64) + " ms"
	default:
		return strconv.FormatFloat(v, 'f', 3, 64) + " ms"
	}
}

// fmtRate prints tokens per second: "167.2 tok/s", "12,345 tok/s".
func fmtRate(v float64) string {
	if !isFinite(v) {
		return "—"
	}
	if math.Abs(v) >= 1000 {
		return fmtInt(int(math.Round(v))) + " tok/s"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " tok/s"
}

// fmtTokens prints a token count, rounded: "64,000 tok".
func fmtTokens(v float64) string {
	if !isFinite(v) {
		return "—"
	}
	return fmtInt(int(math.Round(v))) + " tok"
}

// fmtInt prints an integer with thousands separators.
func fmtInt(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// fmtNumber prints v with at most prec decimals and no trailing zeros.
func fmtNumber(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// fmtMetric prints a value of a v1 metrics key in that key's unit.
func fmtMetric(v float64, key string) string {
	switch units.Of(key) {
	case "ms":
		return fmtMs(v)
	case "tok/s":
		return fmtRate(v)
	case "chunks/s":
		return fmtNumber(v, 1) + " chunks/s"
	}
	if strings.Contains(key, "tokens") {
		return fmtTokens(v)
	}
	return fmtNumber(v, 3)
}

// fmtPtr prints an optional figure with f, "—" when absent.
func fmtPtr(v *artifact.Float, f func(float64) string) string {
	if v == nil {
		return "—"
	}
	return f(float64(*v))
}

// describeMetric names a metrics key for people: "tpot p95", "throughput".
func describeMetric(key string) string {
	if f, ok := artifact.LookupFigure(key); ok && f.Stat != "" {
		return f.Label()
	}
	if key == "throughput_tok_s" {
		return "throughput"
	}
	return strings.ReplaceAll(key, "_", " ")
}

// signedPct prints a relative change: "+3.2%", "−0.4%".
func signedPct(f float64) string {
	s := strconv.FormatFloat(100*f, 'f', 1, 64) + "%"
	if f >= 0 {
		return "+" + s
	}
	return "−" + strings.TrimPrefix(s, "-")
}

// naturalLess orders strings with their digit runs compared as numbers, so
// "concurrency-2" comes before "concurrency-16" and "context-8k" before "context-32k".
func naturalLess(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) - len(nb)
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digitRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// stem is a name with its digit runs replaced by "N": the runs of one ladder share it
// ("concurrency-N", "context-Nk").
func stem(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); {
		if n := digitRun(name[i:]); n > 0 {
			b.WriteString("N")
			i += n
			continue
		}
		b.WriteByte(name[i])
		i++
	}
	return b.String()
}
