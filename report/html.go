package report

import "html/template"

// The page is written so that it is also well-formed XML (void elements
// closed, no named entities): tests parse it strictly, and any HTML
// processor reads it.
var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
{{with .Generator}}<meta name="generator" content="{{.}}"/>
{{end}}<title>{{.Title}}</title>
<style>
:root { --ink: #1f2328; --muted: #59636e; --line: #d0d7de; --soft: #f6f8fa; --best: #dafbe1; --bad: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #ffffff; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
header, main, footer { max-width: 960px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 24px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 36px 0 8px; padding-top: 8px; border-top: 1px solid var(--line); }
.facts { color: var(--muted); margin: 0 0 8px; }
.runs { margin: 0 0 8px; }
.run { display: inline-block; margin-right: 14px; font-weight: 600; }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
nav ul { list-style: none; padding: 0; margin: 8px 0 0; display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 14px; }
nav a { color: #0969da; text-decoration: none; }
nav a:hover { text-decoration: underline; }
.intro { color: var(--muted); margin: 0 0 10px; max-width: 80ch; }
.note { background: #fff8c5; border-left: 4px solid #d4a72c; padding: 6px 10px; margin: 8px 0; }
.table-wrap { overflow-x: auto; margin: 8px 0 12px; }
table { border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { padding: 4px 10px; text-align: right; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { background: var(--soft); border-bottom: 2px solid var(--line); }
th:first-child, td.label { text-align: left; }
tbody tr:nth-child(even) td:not(.best) { background: #fbfcfd; }
td.wrap { white-space: normal; min-width: 24ch; max-width: 60ch; text-align: left; overflow-wrap: anywhere; }
td.best { background: var(--best); font-weight: 700; }
td.bad { color: var(--bad); font-weight: 700; }
figure.chart { margin: 8px 0 16px; }
figure.scroll { overflow-x: auto; }
figure.chart svg { display: block; max-width: none; }
figcaption { color: var(--muted); font-size: 14px; }
details { margin: 8px 0; }
summary { cursor: pointer; color: #0969da; }
pre { background: var(--soft); padding: 10px; overflow: auto; max-height: 480px; font-size: 13px; }
footer { color: var(--muted); font-size: 13px; margin-top: 40px; padding-bottom: 32px; border-top: 1px solid var(--line); padding-top: 10px; }
@media print { nav { display: none; } section { break-inside: avoid; } figure.scroll { overflow: visible; } }
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<p class="facts">{{range $i, $f := .Facts}}{{if $i}} · {{end}}{{$f}}{{end}}</p>
<p class="runs">{{range .Runs}}<span class="run"><span class="swatch" style="background: {{.Color}}"></span>{{.Name}}</span>
{{end}}</p>
<nav><ul>{{range .Sections}}<li><a href="#{{.ID}}">{{.Title}}</a></li>{{end}}</ul></nav>
</header>
<main>
{{range .Sections}}<section id="{{.ID}}">
<h2>{{.Title}}</h2>
{{with .Intro}}<p class="intro">{{.}}</p>
{{end}}{{range .Notes}}<p class="note">{{.}}</p>
{{end}}{{range .Figures}}<figure class="chart{{if .Scroll}} scroll{{end}}" id="{{.ID}}" data-kind="{{.Kind}}" data-series="{{.Series}}">
{{.SVG}}{{with .Caption}}<figcaption>{{.}}</figcaption>{{end}}</figure>
{{end}}{{if .Collapsed}}<details><summary>Show the table</summary>
{{end}}{{range .Tables}}{{template "table" .}}{{end}}{{if .Collapsed}}</details>
{{end}}{{range .Details}}<details class="data"><summary>{{.Summary}}</summary><pre>{{.Body}}</pre></details>
{{end}}</section>
{{end}}</main>
<footer>
<p>{{with .Generator}}Made by {{.}} from {{else}}Made from {{end}}the saved run directories ({{range $i, $r := .Runs}}{{if $i}}, {{end}}{{$r.Dir}}{{end}}). <code>spindle report DIR</code> renders it again without re-simulating. Hover over a bar for its exact value.</p>
</footer>
</body>
</html>
{{define "table"}}<div class="table-wrap"><table>{{with .Caption}}<caption>{{.}}</caption>{{end}}
<thead><tr>{{range .Head}}<th>{{with .Color}}<span class="swatch" style="background: {{.}}"></span>{{end}}{{.Text}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td{{with .Class}} class="{{.}}"{{end}}{{with .Tip}} title="{{.}}"{{end}}>{{with .Color}}<span class="swatch" style="background: {{.}}"></span>{{end}}{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}`))
