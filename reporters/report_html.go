package reporters

// report.html: one self-contained HTML5 file. The CSS is inline, the charts are inline
// SVG (report_svg.go), there is no script and nothing is fetched: no font, stylesheet,
// image or CDN, so the file works offline, from a CI artifact or an e-mail attachment.
// html/template escapes every string taken from an artifact; the charts escape their own.
// The markup is also well-formed XML (void elements self-closed), which the tests check.

import (
	"bytes"
	"html/template"
	"strings"
	"unicode/utf8"
)

const reportCSS = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #222; background: #fafafa; }
header { border-bottom: 2px solid #0072B2; margin-bottom: 20px; padding-bottom: 12px; }
h1 { font-size: 24px; margin: 0 0 8px; }
h2 { font-size: 19px; margin: 28px 0 10px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 16px; margin: 22px 0 8px; }
h4 { font-size: 14px; margin: 16px 0 6px; }
dl.identity { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
dl.identity dt { font-weight: 600; color: #555; }
dl.identity dd { margin: 0; overflow-wrap: anywhere; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; background: #fff; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f0f3f6; font-weight: 600; }
td.spec { white-space: nowrap; }
table.summary { font-size: 12.5px; }
table.summary th, table.summary td { padding: 4px 6px; }
td.none { color: #666; font-size: 12px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.msg { max-width: 60em; overflow-wrap: anywhere; white-space: pre-wrap; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
tr.failed-row td:first-child, td.fail { color: #B04000; font-weight: 600; }
td.pass { color: #00704F; font-weight: 600; }
tr.knee td { background: #EAF6F1; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; font-weight: 600; }
.badge-fail { background: #FBE3D6; color: #9A3800; }
.badge-ok { background: #DDF2EA; color: #00704F; }
.note, .muted { color: #666; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 16px; }
figure { margin: 0; background: #fff; border: 1px solid #e2e2e2; border-radius: 6px; padding: 8px; }
svg.chart { display: block; width: 100%; max-width: 640px; height: auto; margin: 0 auto; }
article.run { background: #fff; border: 1px solid #e2e2e2; border-radius: 6px; padding: 4px 16px 16px; margin: 16px 0; }
article.run .cols { display: grid; grid-template-columns: minmax(340px, 1fr) minmax(560px, 2fr); gap: 16px; align-items: start; }
article.run dl.identity { font-size: 13px; }
article.run figure { border: none; padding: 0; }
footer { margin-top: 32px; color: #777; font-size: 12px; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; overflow-wrap: anywhere; }
@media (max-width: 1100px) { article.run .cols { grid-template-columns: 1fr; } }
@media print { body { background: #fff; padding: 0; } figure, article.run { break-inside: avoid; } }
`

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<meta name="generator" content="anvilbench"/>
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<dl class="identity">
{{- range .Identity}}
<dt>{{.Label}}</dt><dd>{{.Value}}</dd>
{{- end}}
{{- if .Generated}}
<dt>generated</dt><dd>{{.Generated}}</dd>
{{- end}}
</dl>
</header>
<main>
<section id="summary">
<h2>Summary</h2>
{{- if not .Runs}}
<p class="note">No anvil-serving.benchmark/v1 artifacts were found.</p>
{{- else}}
<div class="table-wrap">
<table class="summary">
<thead><tr><th>spec</th><th>requests</th><th>concurrency</th><th>context</th><th>completed / failed</th><th>ttft p50</th><th>ttft p95</th><th>tpot p50</th><th>tpot p95</th><th>e2e p50</th><th>decode p50</th><th>throughput</th><th>measurement protocol</th><th>prompt cache mode</th></tr></thead>
<tbody>
{{- range .Runs}}{{$s := .Summary}}
<tr{{if .B.Failed}} class="failed-row"{{end}}><td class="spec"><a href="#{{.ID}}">{{.Name}}</a>{{if .Interrupted}} <span class="badge badge-fail">interrupted</span>{{end}}</td><td class="num">{{$s.Requests}}</td><td class="num">{{$s.Concurrency}}</td><td class="num">{{$s.Context}}</td><td class="num">{{$s.Completed}} / {{$s.Failed}}</td><td class="num">{{$s.TTFTp50}}</td><td class="num">{{$s.TTFTp95}}</td><td class="num">{{$s.TPOTp50}}</td><td class="num">{{$s.TPOTp95}}</td><td class="num">{{$s.E2Ep50}}</td><td class="num">{{$s.DecodeP50}}</td><td class="num">{{$s.Throughput}}</td><td>{{$s.Protocol}}</td><td>{{$s.Cache}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- end}}
</section>
{{- if and .Budgets .Runs}}
<section id="budgets">
<h2>Budgets</h2>
<div class="table-wrap">
<table class="budgets">
<thead><tr><th>spec</th>{{range .Budgets}}<th>{{.Label}}</th>{{end}}</tr></thead>
<tbody>
{{- range $i, $r := .Runs}}
<tr><td class="spec">{{$r.Name}}</td>{{range index $.Verdicts $i}}<td class="num {{if .Err}}none{{else if .Pass}}pass{{else}}fail{{end}}" title="{{.Title}}">{{if .Err}}{{.Text}}{{else if .Pass}}✓ {{.Text}}{{else}}✗ {{.Text}}{{end}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
</section>
{{- end}}
{{- with .Curve}}
<section id="capacity">
<h2>{{.Title}}</h2>
<p class="knee-summary">{{.Summary}}</p>
<div class="table-wrap">
<table class="capacity">
<thead><tr><th>{{.LoadCol}}</th><th>verdict</th>{{range .Metrics}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr{{if .Knee}} class="knee"{{end}}><td class="num">{{.Load}}</td><td class="{{if .Passed}}pass{{else}}fail{{end}}">{{if .Passed}}passed{{else}}failed{{end}}{{if .Knee}} (knee){{end}}</td>{{range .Values}}<td class="num">{{.}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
<div class="charts">
{{- range .Charts}}
<figure>{{.SVG}}</figure>
{{- end}}
</div>
</section>
{{- end}}
<section id="charts">
<h2>Charts</h2>
<div class="charts">
{{- range .Charts}}
<figure>{{.SVG}}</figure>
{{- end}}
</div>
</section>
{{- if .Runs}}
<section id="runs">
<h2>Runs</h2>
{{- range .Runs}}
<article class="run" id="{{.ID}}">
<h3>{{.Name}}{{if .B.Failed}} <span class="badge badge-fail">{{.B.Failed}} failed</span>{{else}} <span class="badge badge-ok">no failures</span>{{end}}</h3>
<div class="cols">
<div>
<dl class="identity">
{{- range .Details}}
<dt>{{.Label}}</dt><dd>{{.Value}}</dd>
{{- end}}
</dl>
</div>
<div>
{{- if .Timeline}}
<figure>{{.Timeline.SVG}}</figure>
{{- else}}
<p class="note">{{.TimelineNote}}</p>
{{- end}}
</div>
</div>
<h4>Distributions (performance-eligible requests)</h4>
<div class="table-wrap">
<table class="distributions">
<thead><tr><th>metric</th><th>samples</th><th>mean</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>max</th></tr></thead>
<tbody>
{{- range .Distributions}}
<tr><td>{{.Name}}</td><td class="num">{{.Samples}}</td><td class="num">{{.Mean}}</td><td class="num">{{.P50}}</td><td class="num">{{.P90}}</td><td class="num">{{.P95}}</td><td class="num">{{.P99}}</td><td class="num">{{.Max}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
<h4>Failures</h4>
{{- if .Failures}}
<div class="table-wrap">
<table class="failures">
<thead><tr><th>index</th><th>error_type</th><th>failure_class</th><th>elapsed</th><th>message</th></tr></thead>
<tbody>
{{- range .Failures}}
<tr><td class="num">{{.Index}}</td><td>{{.Type}}</td><td>{{.Class}}</td><td class="num">{{.Elapsed}}</td><td class="msg">{{.Message}}{{if .Truncated}} […truncated]{{end}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- if .FailuresMore}}
<p class="note">… and {{.FailuresMore}} more failures (see the artifact).</p>
{{- end}}
{{- else}}
<p class="note">None.</p>
{{- end}}
</article>
{{- end}}
</section>
{{- end}}
{{- if .Notes}}
<section id="notes">
<h2>Files not included</h2>
<ul>
{{- range .Notes}}
<li><code>{{.}}</code></li>
{{- end}}
</ul>
</section>
{{- end}}
</main>
<footer>Written by anvilbench from anvil-serving.benchmark/v1 artifacts. All times are client-observed; p99 below 100 samples is descriptive only.</footer>
</body>
</html>
`))

type htmlData struct {
	*reportModel
	CSS template.CSS
}

// Label is the budget as a column heading.
func (b ReportBudget) Label() string { return b.label() }

func renderHTML(rep *reportModel) ([]byte, error) {
	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, htmlData{reportModel: rep, CSS: template.CSS(reportCSS)}); err != nil {
		return nil, err
	}
	return xmlSafe(buf.Bytes()), nil
}

// xmlSafe replaces invalid UTF-8 and characters XML 1.0 forbids (C0 controls but tab,
// newline and return; U+FFFE, U+FFFF) with U+FFFD, so a hostile or binary string in an
// artifact cannot make the page, or one of its SVG fragments, malformed.
func xmlSafe(data []byte) []byte {
	clean := true
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if (r == utf8.RuneError && size == 1) || !xmlChar(r) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return data
	}
	var b strings.Builder
	b.Grow(len(data))
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if (r == utf8.RuneError && size == 1) || !xmlChar(r) {
			b.WriteRune(utf8.RuneError)
		} else {
			b.Write(data[i : i+size])
		}
		i += size
	}
	return []byte(b.String())
}

func xmlChar(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r < 0x20, r == 0x7F:
		return false
	case r >= 0x80 && r <= 0x9F: // C1 controls: legal XML, but HTML parse errors
		return false
	case r == 0xFFFE || r == 0xFFFF:
		return false
	}
	return true
}
