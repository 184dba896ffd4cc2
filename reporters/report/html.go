package report

// report.html: one self-contained HTML5 file with inline CSS and SVG, no script, nothing
// fetched. html/template escapes every string taken from an artifact; the charts escape
// their own. The markup is well-formed XML too (void elements self-closed).

import (
	"bytes"
	"html/template"
	"io"
	"strings"
	"unicode/utf8"
)

const css = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; padding: 16px 32px 48px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1f2328; background: #fafafa; }
h1 { font-size: 20px; margin: 0 0 10px; }
h2 { font-size: 18px; margin: 26px 0 10px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 16px; margin: 20px 0 8px; }
h4 { font-size: 14px; margin: 14px 0 6px; }
#verdict { border-radius: 6px; padding: 10px 16px; margin: 0 0 12px; border: 1px solid; }
#verdict.pass { background: #dafbe1; border-color: #4ac26b; }
#verdict.fail { background: #ffebe9; border-color: #ff8182; }
#verdict.ungated { background: #f6f8fa; border-color: #d0d7de; }
#verdict .word { font-size: 22px; font-weight: 700; margin-right: 10px; }
#verdict.pass .word { color: #116329; }
#verdict.fail .word { color: #a40e26; }
#verdict p { margin: 0; }
#verdict .basis { color: #57606a; font-size: 12px; margin-top: 2px; }
#verdict ol { margin: 8px 0 0; padding-left: 20px; }
#verdict li { margin: 4px 0; }
#verdict .outcome { display: inline-block; padding: 0 6px; border-radius: 8px; background: #ffcecb; color: #82071e; font-size: 12px; font-weight: 600; }
pre.msg { margin: 2px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
dl.fields { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 14px; margin: 0; }
dl.fields dt { font-weight: 600; color: #57606a; }
dl.fields dd { margin: 0; overflow-wrap: anywhere; }
#under-test { grid-template-columns: repeat(3, max-content minmax(0, 1fr)); margin-bottom: 4px; }
.table-wrap { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; background: #fff; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f0f3f6; font-weight: 600; }
td.name { white-space: nowrap; }
table.self-tests td.name, table.self-tests td { white-space: normal; overflow-wrap: anywhere; }
td.host { overflow-wrap: anywhere; min-width: 9em; }
table.scenarios td.name { white-space: normal; overflow-wrap: anywhere; min-width: 8em; }
td.workload { text-align: right; font-variant-numeric: tabular-nums; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.blocks tr.summary td { border-top: 1px solid #ccd; font-weight: 600; white-space: normal; }
td.msg { max-width: 60em; overflow-wrap: anywhere; white-space: pre-wrap; font: 12px ui-monospace, "DejaVu Sans Mono", monospace; }
.delta { display: block; font-size: 11px; white-space: normal; }
.delta.worse { color: #a40e26; font-weight: 600; }
.conf-yes b { color: #1a7f37; } .conf-no b { color: #a40e26; } .conf-na { color: #57606a; }
.delta.better { color: #116329; }
.delta.same { color: #57606a; }
tr.failed td:first-child { color: #a40e26; font-weight: 600; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; font-weight: 600; background: #ffcecb; color: #82071e; }
.note { color: #57606a; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 16px; }
figure { margin: 0; background: #fff; border: 1px solid #e2e2e2; border-radius: 6px; padding: 8px; min-width: 0; }
figcaption { font-size: 12px; color: #57606a; margin-top: 4px; }
h3.chart-title { font-size: 14px; margin: 0 0 4px; }
svg.chart { display: block; width: 100%; max-width: 640px; height: auto; margin: 0 auto; }
article.run { background: #fff; border: 1px solid #e2e2e2; border-radius: 6px; padding: 4px 16px 16px; margin: 16px 0; }
article.run .cols { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; align-items: start; }
article.run figure { border: none; padding: 0; }
details#self-tests { margin-top: 28px; background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 4px 16px; }
details#self-tests > summary { cursor: pointer; font-size: 18px; font-weight: 600; padding: 6px 0; }
footer { margin-top: 32px; color: #6e7781; font-size: 12px; }
code { font: 12px ui-monospace, "DejaVu Sans Mono", monospace; overflow-wrap: anywhere; }
@media (max-width: 1000px) { article.run .cols { grid-template-columns: minmax(0, 1fr); } #under-test { grid-template-columns: max-content minmax(0, 1fr); } }
@media print { body { background: #fff; padding: 0; } figure, article.run { break-inside: avoid; } }
`

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"outcome": outcomeText,
	"more":    func(n, shown int) int { return n - shown },
	// svg marks a chart's markup as safe: package chart escaped every string it drew.
	"svg": func(s string) template.HTML { return template.HTML(s) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<meta name="generator" content="anvilbench"/>
<title>{{.Verdict.Word}}: {{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
{{- with .Verdict}}
<section id="verdict" class="{{.Class}}" aria-label="verdict">
<p><span class="word">{{.Word}}</span>{{.Summary}}</p>
<p class="basis">from {{.Basis}}</p>
{{- if .Failed}}
<ol>
{{- range $i, $c := .Failed}}{{if lt $i 5}}{{template "check" $c}}{{end}}{{end}}
</ol>
{{- if gt (len .Failed) 5}}
<details><summary>{{more (len .Failed) 5}} more failed checks</summary>
<ol start="6">
{{- range $i, $c := .Failed}}{{if ge $i 5}}{{template "check" $c}}{{end}}{{end}}
</ol>
</details>
{{- end}}
{{- end}}
{{- if .Noted}}
<p>Held or skipped without judging what they name:</p>
<ol>
{{- range .Noted}}{{template "check" .}}{{end}}
</ol>
{{- end}}
</section>
{{- end}}
<dl id="under-test" class="fields" aria-label="under test">
{{- range .UnderTest}}
<dt>{{.Label}}</dt><dd>{{.Value}}</dd>
{{- end}}
{{- if .Generated}}
<dt>generated</dt><dd>{{.Generated}}</dd>
{{- end}}
</dl>
</header>
<main>
<section id="scenarios">
<h2>Scenarios of the endpoint under test</h2>
{{- if not .Scenarios}}
<p class="note">No run of an endpoint under test was found{{if .SelfTests}}: only the harness's self-tests ran (below){{end}}.</p>
{{- else}}
<div class="table-wrap">
<table class="scenarios">
<thead><tr><th>scenario</th>{{if .Endpoints}}<th>endpoint</th>{{end}}<th>requests × concurrency at context</th><th>completed / failed</th>{{range .HeadlineNames}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Scenarios}}
<tr{{if .B.Failed}} class="failed"{{end}}><td class="name"><a href="#{{.ID}}">{{.Name}}</a>{{if .Interrupted}} <span class="badge">interrupted</span>{{end}}</td>{{if $.Endpoints}}<td class="host">{{.Host}}</td>{{end}}<td class="workload">{{.Workload}}</td><td class="num">{{.B.Completed}} / {{.B.Failed}}</td>{{range .Figures}}<td class="num">{{.Text}}{{if .Delta}}<span class="delta {{.DeltaClass}}" title="{{.DeltaTitle}}">{{.Delta}} vs baseline</span>{{end}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
{{- if .Baselined}}
<p class="note">Deltas are from each scenario's baseline (its gate's baseline artifact, or the artifact at the same path of the baseline run); red is worse by more than half its gate (2.5% at the default 5%), the size a significant change must pass to regress.</p>
{{- end}}
{{- end}}
</section>
{{- with .Conformance}}
<section id="conformance">
<h2>What the engine honoured (conformance of {{.Model}})</h2>
<div class="table-wrap">
<table class="conformance">
<thead><tr><th>asked</th>{{range .APIs}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr><td class="name">{{.Item}}</td>{{range .Cells}}<td class="conf-{{.Class}}"><b>{{.Status}}</b> {{.Detail}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
</section>
{{- end}}
{{- if .Charts}}
<section id="charts">
<h2>Charts</h2>
<p class="note">One line per comparable set: the same endpoint, model and workload apart from the swept variable. A dashed line is the baseline's.</p>
{{template "charts" .Charts}}
</section>
{{- end}}
{{- if .Curves}}
<section id="curves">
<h2>Capacity</h2>
{{template "charts" .Curves}}
</section>
{{- end}}
{{- if .Scenarios}}
<section id="runs">
<h2>Runs</h2>
{{- range .Scenarios}}{{template "run" .}}{{end}}
</section>
{{- end}}
{{- if .SelfTests}}
<details id="self-tests">
<summary>Self-tests of the harness ({{len .SelfTests}} runs against private engines)</summary>
<p class="note">These runs prove that anvilbench measures and gates correctly, against reference engines it started itself with known latencies and faults. They are not results of the endpoint under test.</p>
<div class="table-wrap">
<table class="self-tests">
<thead><tr><th>self-test run</th><th>engine</th><th>requests × concurrency at context</th><th>completed / failed</th>{{range .HeadlineNames}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .SelfTests}}
<tr><td class="name"><a href="#{{.ID}}">{{.Name}}</a></td><td class="host">{{.Host}}</td><td class="workload">{{.Workload}}</td><td class="num">{{.B.Completed}} / {{.B.Failed}}</td>{{range .Figures}}<td class="num">{{.Text}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
{{- if .SelfTestCurves}}{{template "charts" .SelfTestCurves}}{{end}}
{{- range .SelfTests}}{{template "run" .}}{{end}}
</details>
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
<footer>Written by anvilbench from anvil-serving.benchmark/v1 artifacts. Every time is measured by the client; a p99 over fewer than 100 samples is descriptive only.</footer>
</body>
</html>
{{define "check"}}
<li><span class="outcome">{{outcome .Outcome}}</span> <strong>{{.Name}}</strong>{{if .Message}}<pre class="msg">{{.Message}}</pre>{{end}}</li>
{{- end}}
{{define "charts"}}
<div class="charts">
{{- range .}}
<figure><h3 class="chart-title">{{.Title}}</h3>{{svg .SVG}}{{if .Caption}}<figcaption>{{.Caption}}</figcaption>{{end}}</figure>
{{- end}}
</div>
{{- end}}
{{define "run"}}
<article class="run" id="{{.ID}}">
<h3>{{.Name}}{{if .B.Failed}} <span class="badge">{{.B.Failed}} failed</span>{{end}}</h3>
<div class="cols">
<dl class="fields">
{{- range .Details}}
<dt>{{.Label}}</dt><dd>{{.Value}}</dd>
{{- end}}
</dl>
<div>
{{- if .Timeline}}
<figure>{{svg .Timeline}}</figure>
{{- else}}
<p class="note">{{.TimelineNote}}</p>
{{- end}}
{{- range .Charts}}
<figure>{{svg .SVG}}<figcaption>{{.Caption}}</figcaption></figure>
{{- end}}
</div>
</div>
<h4>Distributions (performance-eligible requests)</h4>
<div class="table-wrap">
<table class="distributions">
<thead><tr><th>figure</th><th>samples</th><th>mean</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>max</th></tr></thead>
<tbody>
{{- range .Distributions}}
<tr><td>{{.Name}}</td><td class="num">{{.Samples}}</td><td class="num">{{.Mean}}</td><td class="num">{{.P50}}</td><td class="num">{{.P90}}</td><td class="num">{{.P95}}</td><td class="num">{{.P99}}</td><td class="num">{{.Max}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- with .Blocks}}
<h4>Blocks (the measured phase, repeated)</h4>
<div class="table-wrap">
<table class="blocks">
<thead><tr><th>block</th>{{range .}}<th>{{.Name}}</th>{{end}}</tr></thead>
<tbody>
{{- range $i, $n := $.BlockNumbers}}
<tr><td>{{$n}}</td>{{range $.Blocks}}<td class="num">{{index .Values $i}}</td>{{end}}</tr>
{{- end}}
<tr class="summary"><td>mean</td>{{range .}}<td class="num">{{.Mean}}</td>{{end}}</tr>
<tr class="summary"><td>SD</td>{{range .}}<td class="num">{{.SD}}</td>{{end}}</tr>
<tr class="summary"><td>CV</td>{{range .}}<td class="num">{{.CV}}</td>{{end}}</tr>
<tr class="summary"><td>95% CI of the mean</td>{{range .}}<td class="num">{{.CI95}}</td>{{end}}</tr>
</tbody>
</table>
</div>
{{- end}}
{{- with .Client}}
<h4>The client's own overhead and timing clock</h4>
<dl class="fields">
{{- range .}}
<dt>{{.Label}}</dt><dd>{{.Value}}</dd>
{{- end}}
</dl>
{{- end}}
{{- if .Phases}}
<h4>The engine's phases ({{.PhasesSource}})</h4>
<div class="table-wrap">
<table class="phases">
<thead><tr><th>phase</th><th>p50</th><th>p95</th>{{if .PhasesBaseline}}<th>baseline p50</th><th>baseline p95</th><th>p50 change</th>{{end}}</tr></thead>
<tbody>
{{- range .Phases}}
<tr><td>{{.Phase}}</td><td class="num">{{.P50}}</td><td class="num">{{.P95}}</td>{{if $.PhasesBaseline}}<td class="num">{{.BaseP50}}</td><td class="num">{{.BaseP95}}</td><td class="num">{{.Change}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
{{- with .PhasesBaseline}}<p class="note">Baseline: {{.}}.</p>{{end}}
{{- end}}
{{- with .Budgets}}
<h4>Budgets</h4>
<div class="table-wrap">
<table class="budgets">
<thead><tr><th>budget</th><th>figure</th><th>held</th><th>margin</th></tr></thead>
<tbody>
{{- range .}}
<tr><td>{{.Budget}}</td><td class="num">{{.Figure}}</td><td>{{if .Held}}yes{{else}}<strong>no</strong>{{end}}</td><td>{{.Margin}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- end}}
<h4>Failures</h4>
{{- with .MissedTimings}}
<p class="note">{{.}}</p>
{{- end}}
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
`))

// WriteHTML writes the report as one self-contained HTML page.
func (m *Model) WriteHTML(w io.Writer) error {
	var buf bytes.Buffer
	if err := page.Execute(&buf, struct {
		*Model
		CSS template.CSS
	}{m, template.CSS(css)}); err != nil {
		return err
	}
	_, err := w.Write(xmlSafe(buf.Bytes()))
	return err
}

// xmlSafe replaces invalid UTF-8 and characters XML 1.0 forbids (C0 controls but tab,
// newline and return; C1 controls; U+FFFE, U+FFFF) with U+FFFD, so a hostile or binary
// string in an artifact cannot make the page, or one of its SVG fragments, malformed.
func xmlSafe(data []byte) []byte {
	bad := func(r rune, size int) bool { return (r == utf8.RuneError && size == 1) || !xmlChar(r) }
	clean := true
	for i := 0; i < len(data) && clean; {
		r, size := utf8.DecodeRune(data[i:])
		clean = !bad(r, size)
		i += size
	}
	if clean {
		return data
	}
	var b strings.Builder
	b.Grow(len(data))
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if bad(r, size) {
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
	case r < 0x20, r == 0x7F, r >= 0x80 && r <= 0x9F, r == 0xFFFE || r == 0xFFFF:
		return false
	}
	return true
}
