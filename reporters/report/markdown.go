package report

// report.md: the verdict and the tables in GitHub-flavoured Markdown, for
// $GITHUB_STEP_SUMMARY. Its first line is the verdict. GitHub renders raw HTML inside
// Markdown, so every string taken from an artifact is escaped: HTML-significant
// characters become entities, Markdown punctuation is backslash-escaped, and a pipe or
// line break cannot leave its table cell.

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// WriteMarkdown writes the report as GitHub-flavoured Markdown; its first line says pass
// or fail and names the first failed check with its figure.
func (m *Model) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	icon := map[string]string{"pass": "✅", "fail": "❌", "ungated": "➖"}[m.Verdict.Class()]
	fmt.Fprintf(&b, "# %s %s\n\n", icon, mdText(m.Verdict.Headline()))
	fmt.Fprintf(&b, "**%s** · verdict from %s\n\n", mdText(m.Title), mdText(m.Verdict.Basis))
	for i, c := range m.Verdict.Failed {
		if i == maxFailuresMarkdown {
			fmt.Fprintf(&b, "- … and %d more failed checks (see report.html)\n", len(m.Verdict.Failed)-i)
			break
		}
		fmt.Fprintf(&b, "- ❌ %s: **%s**: %s\n", mdText(outcomeText(c.Outcome)), mdText(c.Name), mdText(c.FirstLine()))
	}
	for _, c := range m.Verdict.Noted {
		fmt.Fprintf(&b, "- ➖ **%s**: %s\n", mdText(c.Name), mdText(c.FirstLine()))
	}
	if len(m.Verdict.Failed)+len(m.Verdict.Noted) > 0 {
		b.WriteString("\n")
	}
	for _, f := range m.UnderTest {
		fmt.Fprintf(&b, "- **%s**: %s\n", mdText(f.Label), mdText(f.Value))
	}
	if m.Generated != "" {
		fmt.Fprintf(&b, "- **generated**: %s\n", mdText(m.Generated))
	}

	b.WriteString("\n## Scenarios of the endpoint under test\n\n")
	if len(m.Scenarios) == 0 && m.Conformance != nil {
		b.WriteString("No scenario ran: the conformance below asked the endpoint what it honours.\n")
	} else if len(m.Scenarios) == 0 {
		b.WriteString("No run of an endpoint under test was found.\n")
	} else {
		head := []string{"scenario", "requests × concurrency at context", "completed / failed"}
		align := []string{"l", "r", "r"}
		if m.Endpoints {
			head, align = slices.Insert(head, 1, "endpoint"), slices.Insert(align, 1, "l")
		}
		head = append(head, m.HeadlineNames()...)
		for range m.HeadlineNames() {
			align = append(align, "r")
		}
		mdRow(&b, mdTextAll(head)...)
		mdAlign(&b, align...)
		for _, r := range m.Scenarios {
			name := mdText(r.Name)
			if r.Interrupted {
				name += " (interrupted)"
			}
			cells := []string{name, mdText(r.Workload), fmt.Sprintf("%d / %d", r.B.Completed, r.B.Failed)}
			if m.Endpoints {
				cells = slices.Insert(cells, 1, mdText(r.Host()))
			}
			for _, f := range r.Figures {
				cell := mdText(f.Text)
				if f.Delta != "" {
					cell += " (" + mdText(f.Delta) + ")"
					if f.DeltaClass == "worse" {
						cell = "**" + cell + "**"
					}
				}
				cells = append(cells, cell)
			}
			mdRow(&b, cells...)
		}
		if m.Baselined {
			b.WriteString("\nIn parentheses: the change from the scenario's baseline; bold is worse by more than half its gate (2.5% at the default 5%), the size a significant change must pass to regress.\n")
		}
		writeStrayed(&b, m.Scenarios)
	}

	writeConformance(&b, m.Conformance)
	for _, r := range m.Scenarios {
		writeBudgets(&b, r)
		writeCapacity(&b, r)
		writeTurns(&b, r)
		writeReasoning(&b, r)
		writePhases(&b, r)
		writeGPUs(&b, r)
		writeBlocks(&b, r)
		writeHistory(&b, r)
	}
	var failed []*runView
	for _, r := range m.Scenarios {
		if len(r.B.Failures) > 0 {
			failed = append(failed, r)
		}
	}
	for _, r := range failed {
		fmt.Fprintf(&b, "\n### %s: %d of %d requests failed\n\n", mdText(r.Name), r.B.Failed, r.B.Requests)
		if r.MissedTimings != "" {
			fmt.Fprintf(&b, "%s.\n\n", mdText(r.MissedTimings))
		}
		mdRow(&b, mdTextAll([]string{"index", "error_type", "message"})...)
		mdAlign(&b, "r", "l", "l")
		for i, f := range r.B.Failures {
			if i == maxFailuresMarkdown {
				fmt.Fprintf(&b, "\n… and %d more failures (see report.html or the artifact).\n", len(r.B.Failures)-i)
				break
			}
			msg := f.ErrorMessage
			if len([]rune(msg)) > 300 {
				msg = string([]rune(msg)[:300]) + "…"
			} else if f.ErrorMessageTruncated {
				msg += " […truncated]"
			}
			mdRow(&b, fmt.Sprint(f.RequestIndex), mdText(f.ErrorType), mdText(msg))
		}
	}
	if n := len(m.Charts) + len(m.Curves); n > 0 {
		fmt.Fprintf(&b, "\n_%d charts of comparable sets are in report.html._\n", n)
	}
	if len(m.SelfTests) > 0 {
		fmt.Fprintf(&b, "\n<details><summary>Self-tests of the harness: %d runs against private engines</summary>\n\n", len(m.SelfTests))
		for _, r := range m.SelfTests {
			fmt.Fprintf(&b, "- %s: %d / %d completed\n", mdText(r.Name), r.B.Completed, r.B.Requests)
		}
		b.WriteString("\n</details>\n")
	}
	if len(m.Notes) > 0 {
		b.WriteString("\n## Files not included\n\n")
		for _, n := range m.Notes {
			fmt.Fprintf(&b, "- %s\n", mdText(n))
		}
	}
	_, err := io.WriteString(w, string(xmlSafe([]byte(b.String()))))
	return err
}

// writeConformance is the table of what the endpoint honoured, per API.
func writeConformance(b *strings.Builder, t *conformanceTable) {
	if t == nil {
		return
	}
	fmt.Fprintf(b, "\n## What the engine honoured (conformance of %s)\n\n", mdText(t.Model))
	mdRow(b, mdTextAll(append([]string{"asked"}, t.APIs...))...)
	align := []string{"l"}
	for range t.APIs {
		align = append(align, "l")
	}
	mdAlign(b, align...)
	icon := map[string]string{"yes": "✅", "no": "❌", "na": "➖"}
	for _, r := range t.Rows {
		cells := []string{mdText(r.Item)}
		for _, c := range r.Cells {
			detail := c.Detail
			if len([]rune(detail)) > 200 {
				detail = string([]rune(detail)[:200]) + "…"
			}
			text := detail
			if c.Status != "" {
				text = c.Status + ": " + detail
			}
			cells = append(cells, icon[c.Class]+" "+mdText(text))
		}
		mdRow(b, cells...)
	}
}

// writeBudgets is a scenario's budgets with their figures and margins.
func writeBudgets(b *strings.Builder, r *runView) {
	if len(r.Budgets) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### %s: budgets\n\n", mdText(r.Name))
	mdRow(b, mdTextAll([]string{"budget", "figure", "held", "margin"})...)
	mdAlign(b, "l", "r", "l", "l")
	for _, v := range r.Budgets {
		held := "yes"
		if !v.Held {
			held = "**no**"
		}
		mdRow(b, mdText(v.Budget), mdText(v.Figure), held, mdText(v.Margin))
	}
}

func writeBlocks(b *strings.Builder, r *runView) {
	rows := r.Blocks()
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### %s: %d blocks\n\n", mdText(r.Name), len(r.BlockNumbers()))
	head, align := []string{"figure"}, []string{"l"}
	for _, n := range r.BlockNumbers() {
		head, align = append(head, fmt.Sprintf("block %d", n)), append(align, "r")
	}
	mdRow(b, append(head, "mean", "SD", "CV", "95% CI of the mean")...)
	mdAlign(b, append(align, "r", "r", "r", "r")...)
	for _, row := range rows {
		mdRow(b, mdTextAll(append(append([]string{row.Name}, row.Values...), row.Mean, row.SD, row.CV, row.CI95))...)
	}
}

// writeHistory writes where a run sits against the history it was judged against.
func writeHistory(b *strings.Builder, r *runView) {
	x := r.B.Extension
	if x == nil || x.Baseline == nil || len(x.Baseline.History) == 0 {
		return
	}
	h := x.Baseline.History
	fmt.Fprintf(b, "\n### %s against a history of %d runs\n\n", mdText(r.Name), len(h))
	mdRow(b, "figure", "earliest run", "latest level", "this run", "changes of level")
	mdAlign(b, "l", "r", "r", "r", "l")
	for _, key := range []string{"tpot_p50_ms", "ttft_p50_ms"} {
		cur, _, ok := r.B.Metrics.Lookup(key)
		if !ok || cur == nil {
			continue
		}
		var changes []string
		for i := 1; i < len(h); i++ {
			if h[i].Levels[key] != h[i-1].Levels[key] {
				changes = append(changes, fmt.Sprintf("run %d (%s)", i+1, signedPct(h[i].Levels[key]/h[i-1].Levels[key]-1)))
			}
		}
		if len(changes) == 0 {
			changes = []string{"none"}
		}
		mdRow(b, mdTextAll([]string{describeMetric(key), fmtMetric(h[0].Metrics[key], key), fmtMetric(h[len(h)-1].Levels[key], key),
			fmtMetric(float64(*cur), key), strings.Join(changes, ", ")})...)
	}
}

// writeReasoning is what a thinking run's usage split of its completion tokens.
func writeReasoning(b *strings.Builder, r *runView) {
	x := r.B.Extension
	if x == nil || x.Reasoning == nil {
		return
	}
	rs := x.Reasoning
	fmt.Fprintf(b, "\n### %s: reasoning\n\n", mdText(r.Name))
	mdRow(b, "figure", "p50", "p95", "max", "requests")
	mdAlign(b, "l", "r", "r", "r", "r")
	for _, f := range x.Summaries() {
		if f.Group != "reasoning" {
			continue
		}
		cell := func(v artifact.Float) string {
			if f.Ms {
				return fmtMs(float64(v))
			}
			return fmtTokens(float64(v))
		}
		mdRow(b, mdText(f.Label), cell(f.P50), cell(f.P95), cell(f.Max), fmt.Sprint(f.Samples))
	}
	if rs.Requests == 0 {
		b.WriteString("\nThe engine's usage did not split reasoning from answer tokens (not every API reports the split): token figures are of the whole completion.\n")
	}
}

// writePhases is the engine's own account of the requests' time, beside the baseline's.
func writePhases(b *strings.Builder, r *runView) {
	if len(r.Phases) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### %s: the engine's phases (%s)\n\n", mdText(r.Name), mdText(r.PhasesSource))
	if r.PhasesBaseline == "" {
		mdRow(b, "phase", "p50", "p95")
		mdAlign(b, "l", "r", "r")
		for _, p := range r.Phases {
			mdRow(b, mdTextAll([]string{p.Phase, p.P50, p.P95})...)
		}
		return
	}
	mdRow(b, "phase", "p50", "p95", "baseline p50", "baseline p95", "p50 change")
	mdAlign(b, "l", "r", "r", "r", "r", "r")
	for _, p := range r.Phases {
		mdRow(b, mdTextAll([]string{p.Phase, p.P50, p.P95, p.BaseP50, p.BaseP95, p.Change})...)
	}
	fmt.Fprintf(b, "\nBaseline: %s.\n", mdText(r.PhasesBaseline))
}

// writeGPUs is what the run's GPU telemetry saw during the measured phase, GPU by GPU.
func writeGPUs(b *strings.Builder, r *runView) {
	x := r.B.Extension
	if x == nil || x.GPU == nil || len(x.GPU.GPUs) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### %s: GPUs (%s)\n\n", mdText(r.Name), mdText(x.GPU.Source))
	mdRow(b, "GPU", "model", "SM clock (MHz)", "memory clock (MHz)", "power max (W)", "temperature max (°C)", "clock events")
	mdAlign(b, "l", "l", "r", "r", "r", "r", "l")
	for _, g := range x.GPU.GPUs {
		var sm, mem, power, temp []float64
		events := map[string]bool{}
		for _, s := range g.Series {
			if !s.During {
				continue
			}
			for _, p := range []struct {
				v   *artifact.Float
				out *[]float64
			}{{s.SMClockMHz, &sm}, {s.MemClockMHz, &mem}, {s.PowerW, &power}, {s.TemperatureC, &temp}} {
				if p.v != nil {
					*p.out = append(*p.out, float64(*p.v))
				}
			}
			for _, n := range s.ReasonNames {
				events[n] = true
			}
		}
		span := func(vs []float64) string {
			if len(vs) == 0 {
				return "–"
			}
			lo, hi := slices.Min(vs), slices.Max(vs)
			if lo == hi {
				return fmt.Sprintf("%.0f", lo)
			}
			return fmt.Sprintf("%.0f–%.0f", lo, hi)
		}
		top := func(vs []float64) string {
			if len(vs) == 0 {
				return "–"
			}
			return fmt.Sprintf("%.0f", slices.Max(vs))
		}
		names := slices.Sorted(maps.Keys(events))
		if len(names) == 0 {
			names = []string{"none"}
		}
		mdRow(b, mdText(g.GPU), mdText(g.Model), span(sm), span(mem), top(power), top(temp), mdText(strings.Join(names, ", ")))
	}
}

// writeStrayed names the runs whose answers were not what they asked for, passed under
// the observe policy: the summary's pass must not read as one of the instruction.
func writeStrayed(b *strings.Builder, runs []*runView) {
	head := false
	for _, r := range runs {
		text, strayed := answers(r.B)
		if !strayed {
			continue
		}
		if !head {
			b.WriteString("\nAnswers not as asked, measured as served (controlled-output policy observe):\n\n")
			head = true
		}
		fmt.Fprintf(b, "- %s: %s\n", mdText(r.Name), mdText(text))
	}
}

// writeTurns writes a sessions run's figures by turn, when it has them.
func writeTurns(b *strings.Builder, r *runView) {
	x := r.B.Extension
	if x == nil || x.Sessions == nil {
		return
	}
	fmt.Fprintf(b, "\n### %s: TTFT by turn\n\n", mdText(r.Name))
	mdRow(b, "turn", "sessions", "ttft p50", "ttft p95", "cached", "expected cached")
	mdAlign(b, "r", "r", "r", "r", "r", "r")
	pct := func(p *artifact.Float) string {
		return fmtPtr(p, func(f float64) string { return fmtNumber(100*f, 0) + "%" })
	}
	for _, t := range x.Sessions.ByTurn {
		p50, p95 := "—", "—"
		if t.TTFTMs != nil {
			p50, p95 = fmtMs(float64(t.TTFTMs.P50)), fmtMs(float64(t.TTFTMs.P95))
		}
		mdRow(b, fmt.Sprint(t.Turn), fmt.Sprint(t.Requests-t.Failed), mdText(p50), mdText(p95), mdText(pct(t.CacheHitRate)), mdText(pct(t.ExpectedHitRate)))
	}
}

// mdRow writes a table row of cells already escaped.
func mdRow(b *strings.Builder, cells ...string) {
	b.WriteString("|")
	for _, c := range cells {
		if c == "" {
			c = " "
		}
		b.WriteString(" " + c + " |")
	}
	b.WriteString("\n")
}

func mdAlign(b *strings.Builder, align ...string) {
	b.WriteString("|")
	for _, a := range align {
		if a == "r" {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" --- |")
		}
	}
	b.WriteString("\n")
}

func mdTextAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = mdText(s)
	}
	return out
}

// mdText escapes s for Markdown text, table cells included, with no more backslashes than
// the text needs, so that report.md reads as written in a terminal too: a character is
// escaped where Markdown would read it as syntax (an HTML tag or entity, emphasis, code,
// a link, a table cell's edge), and left alone where it cannot be (the underscores of
// tpot_p50_ms, the "<=" of a budget). Line breaks become spaces.
func mdText(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		var next, prev byte
		if i+1 < len(s) {
			next = s[i+1]
		}
		if i > 0 {
			prev = s[i-1]
		}
		switch {
		case c == '\r' && next == '\n':
			continue
		case c == '\n' || c == '\r':
			b.WriteByte(' ')
			continue
		case c == '|', c == '\\', c == '`', c == '*', c == '#', c == '~', c == '$':
		case c == '_' && !(alnum(prev) && alnum(next)): // intraword, it emphasizes nothing
		case c == '<' && (letter(next) || next == '/' || next == '!' || next == '?'): // a tag
		case c == '&' && (letter(next) || next == '#'): // an entity
		case c == '!' && next == '[': // an image
		case c == '[' || c == ']': // a link
		default:
			b.WriteByte(c)
			continue
		}
		b.WriteByte('\\')
		b.WriteByte(c)
	}
	return b.String()
}

func letter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func alnum(c byte) bool  { return letter(c) || c >= '0' && c <= '9' }
