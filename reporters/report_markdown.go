package reporters

// report.md: the report's tables in GitHub-flavoured Markdown, to append to
// $GITHUB_STEP_SUMMARY. GitHub renders raw HTML inside Markdown, so every string taken
// from an artifact is escaped: HTML-significant characters become entities, Markdown
// punctuation is backslash-escaped, and a pipe or line break cannot leave its table cell.

import (
	"fmt"
	"strconv"
	"strings"
)

func renderMarkdown(rep *reportModel) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdText(rep.Title))
	for _, it := range rep.Identity {
		fmt.Fprintf(&b, "- **%s**: %s\n", mdText(it.Label), mdText(it.Value))
	}
	if rep.Generated != "" {
		fmt.Fprintf(&b, "- **generated**: %s\n", mdText(rep.Generated))
	}
	b.WriteString("\n## Summary\n\n")
	if len(rep.Runs) == 0 {
		b.WriteString("No anvil-serving.benchmark/v1 artifacts were found.\n")
	} else {
		mdRow(&b, "spec", "requests", "concurrency", "context", "completed / failed", "ttft p50", "ttft p95",
			"tpot p50", "tpot p95", "e2e p50", "decode p50", "throughput", "measurement_protocol", "prompt_cache_mode")
		mdAlign(&b, "l", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r", "l", "l")
		for _, r := range rep.Runs {
			s := r.Summary()
			name := mdText(r.Name)
			if r.Interrupted {
				name += " (interrupted)"
			}
			mdRowRaw(&b, name, s.Requests, s.Concurrency, s.Context, s.Completed+" / "+s.Failed,
				s.TTFTp50, s.TTFTp95, s.TPOTp50, s.TPOTp95, s.E2Ep50, s.DecodeP50, mdText(s.Throughput),
				mdText(s.Protocol), mdText(s.Cache))
		}
	}

	if len(rep.Budgets) > 0 && len(rep.Runs) > 0 {
		b.WriteString("\n## Budgets\n\n")
		head := []string{"spec"}
		align := []string{"l"}
		for _, bud := range rep.Budgets {
			head = append(head, bud.label())
			align = append(align, "r")
		}
		mdRow(&b, head...)
		mdAlign(&b, align...)
		for i, r := range rep.Runs {
			cells := []string{mdText(r.Name)}
			for _, v := range rep.Verdicts[i] {
				switch {
				case v.Err:
					cells = append(cells, mdText(v.Text))
				case v.Pass:
					cells = append(cells, "✅ "+mdText(v.Text))
				default:
					cells = append(cells, "❌ "+mdText(v.Text))
				}
			}
			mdRowRaw(&b, cells...)
		}
	}

	if cv := rep.Curve; cv != nil {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", mdText(cv.Title), mdText(cv.Summary))
		head := append([]string{cv.LoadCol, "verdict"}, cv.Metrics...)
		align := []string{"r", "l"}
		for range cv.Metrics {
			align = append(align, "r")
		}
		mdRow(&b, head...)
		mdAlign(&b, align...)
		for _, row := range cv.Rows {
			verdict := "❌ failed"
			if row.Passed {
				verdict = "✅ passed"
			}
			if row.Knee {
				verdict += " **(knee)**"
			}
			cells := append([]string{mdText(row.Load), verdict}, mdTextAll(row.Values)...)
			mdRowRaw(&b, cells...)
		}
	}

	var failed []*runView
	for _, r := range rep.Runs {
		if len(r.B.Failures) > 0 {
			failed = append(failed, r)
		}
	}
	if len(rep.Runs) > 0 {
		b.WriteString("\n## Failures\n\n")
		if len(failed) == 0 {
			b.WriteString("None.\n")
		}
	}
	for _, r := range failed {
		fmt.Fprintf(&b, "### %s: %d of %d requests failed\n\n", mdText(r.Name), r.B.Failed, r.B.Requests)
		mdRow(&b, "index", "error_type", "message")
		mdAlign(&b, "r", "l", "l")
		for i, f := range r.B.Failures {
			if i == ReportMaxFailuresMarkdown {
				fmt.Fprintf(&b, "\n… and %d more failures (see report.html or the artifact).\n", len(r.B.Failures)-i)
				break
			}
			msg := f.ErrorMessage
			if len(msg) > 300 {
				msg = truncateRunes(msg, 300) + "…"
			} else if f.ErrorMessageTruncated {
				msg += " […truncated]"
			}
			mdRowRaw(&b, strconv.Itoa(f.RequestIndex), mdText(f.ErrorType), mdText(msg))
		}
		b.WriteString("\n")
	}

	if len(rep.Notes) > 0 {
		b.WriteString("\n## Files not included\n\n")
		for _, n := range rep.Notes {
			fmt.Fprintf(&b, "- %s\n", mdText(n))
		}
	}
	b.WriteString("\n_Charts (TTFT vs context, TPOT and throughput vs concurrency, per-request timelines) are in report.html._\n")
	return xmlSafe([]byte(b.String()))
}

func mdRow(b *strings.Builder, cells ...string) { mdRowRaw(b, mdTextAll(cells)...) }

// mdRowRaw writes a table row of cells already escaped.
func mdRowRaw(b *strings.Builder, cells ...string) {
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

var mdReplacer = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	"|", `\|`, `\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"#", `\#`, "~", `\~`, "!", `\!`, "$", `\$`,
	"\r\n", " ", "\n", " ", "\r", " ",
)

// mdText escapes s for Markdown text, table cells included.
func mdText(s string) string { return mdReplacer.Replace(s) }

func truncateRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
