"""The report's style sheet: for the screen, and for print (the PDF) with A4 pages whose
pictures and tables are not cut across a page break. Every printed page carries its
number ("page 3 of 12"), the line naming the recipe, its version and the run's date and,
in the internal report, the mark "INTERNAL \u2014 do not publish": CSS paged media
(``@page`` margin boxes with the ``page`` and ``pages`` counters and the mark, see
:func:`.signoff.page_style`, and the running element ``.runline`` of :mod:`.signoff`,
which WeasyPrint moves into the foot of each page; a browser, which has no running
elements, prints it once at the top)."""

STYLE = """
body{font-family:DejaVu Sans,Arial,sans-serif;margin:2em auto;color:#222;max-width:62em;
line-height:1.4;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}
h2{font-size:1.3em;margin-top:1.8em;border-bottom:2px solid #1f5f99;color:#1f5f99}
h3{font-size:1.08em;margin-top:1.3em}
.kind{color:#666;margin-top:0}
.status{font-size:1.1em;padding:.6em 1em;border-radius:4px;font-weight:bold}
.status.released{background:#e3f3e6;color:#176b2c;border:1px solid #8cc79a}
.status.failed{background:#fbe5e3;color:#a11;border:1px solid #e19a93}
.status.measures{background:#e8eef6;color:#1f3f66;border:1px solid #9fb6d4}
table{border-collapse:collapse;margin:.5em 0;font-size:.88em}
td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}
th{background:#f0f3f6}
.pass{color:#176b2c;font-weight:bold}.fail{color:#a11;font-weight:bold}
pre{background:#f7f7f7;padding:.8em;overflow-x:auto;font-size:.8em;white-space:pre-wrap}
.num{text-align:right}
.plugin{font-weight:normal;color:#666;font-size:.85em;margin-left:.5em}
.params{color:#555;font-size:.85em}
.step{border-left:3px solid #d5dde6;padding-left:1em;margin:1.2em 0}
figure{margin:.6em 0}
figure svg{max-width:100%;height:auto}
figcaption{font-size:.85em;color:#555}
table.grid td.primary,.legend .primary{background:#f4c7c3;color:#7a1010}
table.grid td.secondary,.legend .secondary{background:#fde2b8;color:#7a4a00}
table.grid td.suppressed,.legend .suppressed{background:#e1e1e1;color:#555}
table.grid td.adjusted,.legend .adjusted{background:#d6e6f5;color:#1f3f66}
table.grid td.empty{background:#fafafa}
table.grid caption{text-align:left;font-weight:bold;padding:.2em 0}
.legend span{padding:0 .4em;border:1px solid #ccc}
.mark{background:#a11;color:#fff;font-weight:bold;text-align:center;padding:.3em;
letter-spacing:.08em;border-radius:3px}
.runline{color:#666;font-size:.8em;margin-top:.4em}
#not-released h2{color:#a11;border-bottom-color:#a11}
table.failed-checks td:first-child{font-weight:bold}
table.would-release td:first-child{white-space:nowrap}
#sign-off table{width:100%}
table.signoff-facts th{width:9em}
table.signoff-facts td{overflow-wrap:anywhere}
table.signatures th:first-child{width:9em}
table.signatures th{white-space:nowrap}
table.signatures td{height:2.6em;width:28%}
.decision .choice{margin-right:1.6em;white-space:nowrap}
.notes-box{border:1px solid #ccc;height:5em}
@page{size:A4;margin:2cm 1.4cm 1.8cm;font-family:DejaVu Sans,Arial,sans-serif;
 @bottom-left{content:element(runline);font-size:8pt;color:#666}
 @bottom-right{content:"page " counter(page) " of " counter(pages);font-size:8pt;
  color:#666}}
@media print{body{margin:0;max-width:none;font-size:10pt;padding:0}
 .runline{position:running(runline);margin:0}
 table{font-size:8pt}
 table.grid{font-size:7pt}
 td,th{padding:.15em .4em}
 figure,table,.status,#sign-off{page-break-inside:avoid;break-inside:avoid}
 h2,h3{page-break-after:avoid;break-after:avoid}
 a{color:inherit;text-decoration:none}}
"""
