"""One self-contained HTML report of a sweep: curves, tables, best policies, vmstat counters.

The file holds everything it shows: the data as JSON in a ``<script type="application/json">``
element and a small script (written here, no library) that draws each miss-ratio curve as SVG.
It loads nothing from the network. Each plot's ``<svg>`` gets ``data-drawn`` (points drawn) and
the page's ``<body>`` gets ``data-plots`` (plots drawn) once the script has run; a script error
is shown in ``#errors`` and counted in ``data-errors``, so that a browser test can read both
back from the DOM.
"""

from __future__ import annotations

import html
import json
from typing import Any

import pandas as pd

import pagesim
from pagesim.report.sweep_data import best_by_size, report_sections

__all__ = ["render_report", "write_report"]

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1180px;color:#222;padding:0 16px}
h1{font-size:22px}h2{font-size:18px;margin-top:36px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:10px 0;font-size:12.5px}
td,th{border:1px solid #ddd;padding:3px 7px;text-align:right;vertical-align:top}
th{background:#f4f4f4}td.l,th.l{text-align:left}td.best{background:#e3f4e1;font-weight:600}
.sub{color:#666;font-size:11px;display:block}.note{color:#8a5a00}
#errors{color:#b00;white-space:pre-wrap}svg text{font:11px system-ui,sans-serif}
.legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:18px;height:3px;
vertical-align:middle;margin-right:4px}
"""

# The plotting script: one SVG per section from the embedded JSON; no external code.
_JS = r"""
(function () {
  var errors = [];
  window.onerror = function (msg, src, line) {
    errors.push(msg + ' (line ' + line + ')');
    var box = document.getElementById('errors');
    box.textContent = errors.join('\n');
    document.body.setAttribute('data-errors', String(errors.length));
  };
  var NS = 'http://www.w3.org/2000/svg';
  var COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2',
                '#17becf', '#bcbd22', '#7f7f7f'];
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (parent) { parent.appendChild(e); }
    return e;
  }
  function ticks(lo, hi, n) {
    var span = hi - lo, step = Math.pow(10, Math.floor(Math.log10(span / n)));
    [1, 2, 5, 10].some(function (m) {
      if (span / (step * m) <= n) { step *= m; return true; }
      return false;
    });
    var out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) { out.push(v); }
    return out;
  }
  function fmt(v) { return Math.abs(v) >= 1000 ? v.toLocaleString('en') : String(+v.toPrecision(4)); }
  function plot(section, svg) {
    var W = 640, H = 360, L = 58, R = 16, T = 14, B = 44;
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.setAttribute('width', W); svg.setAttribute('height', H);
    var xs = [], ys = [];
    section.labels.forEach(function (lab) {
      section.curves[lab].forEach(function (p) { xs.push(p[0]); ys.push(p[1]); });
    });
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    if (x1 === x0) { x1 = x0 + 1; }
    var y1 = Math.max(0.05, Math.max.apply(null, ys) * 1.05);
    function X(v) { return L + (v - x0) / (x1 - x0) * (W - L - R); }
    function Y(v) { return T + (1 - v / y1) * (H - T - B); }
    var axes = el('g', {'class': 'axes'}, svg);
    ticks(0, y1, 6).forEach(function (v) {
      el('line', {x1: L, x2: W - R, y1: Y(v), y2: Y(v), stroke: '#eee'}, axes);
      el('text', {x: L - 6, y: Y(v) + 4, 'text-anchor': 'end'}, axes).textContent = fmt(v);
    });
    ticks(x0, x1, 7).forEach(function (v) {
      el('line', {x1: X(v), x2: X(v), y1: H - B, y2: H - B + 5, stroke: '#444'}, axes);
      el('text', {x: X(v), y: H - B + 18, 'text-anchor': 'middle'}, axes).textContent = fmt(v);
    });
    el('line', {x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: '#444'}, axes);
    el('line', {x1: L, x2: L, y1: T, y2: H - B, stroke: '#444'}, axes);
    el('text', {x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle'}, axes).textContent =
      'cache size (pages)';
    el('text', {x: 14, y: (T + H - B) / 2, 'text-anchor': 'middle',
                transform: 'rotate(-90 14 ' + (T + H - B) / 2 + ')'}, axes).textContent = 'miss ratio';
    var drawn = 0, legend = document.createElement('div');
    legend.className = 'legend';
    section.labels.forEach(function (lab, i) {
      var pts = section.curves[lab], isOpt = lab === 'opt';
      var color = isOpt ? '#000' : COLORS[i % COLORS.length];
      var d = pts.map(function (p, j) {
        return (j ? 'L' : 'M') + X(p[0]).toFixed(1) + ',' + Y(p[1]).toFixed(1);
      });
      if (isOpt && pts.length > 1 && section.mode === 'cache') {
        var floor = d.join(' ') + ' L' + X(pts[pts.length - 1][0]).toFixed(1) + ',' + Y(0) +
                    ' L' + X(pts[0][0]).toFixed(1) + ',' + Y(0) + ' Z';
        el('path', {d: floor, fill: '#000', 'fill-opacity': 0.07, stroke: 'none', 'class': 'floor'}, svg);
      }
      el('path', {d: d.join(' '), fill: 'none', stroke: color, 'stroke-width': isOpt ? 2 : 1.6,
                  'stroke-dasharray': isOpt ? '5,3' : '', 'class': 'curve', 'data-label': lab}, svg);
      pts.forEach(function (p) {
        var c = el('circle', {cx: X(p[0]), cy: Y(p[1]), r: 2.6, fill: color, 'class': 'point'}, svg);
        el('title', {}, c).textContent = lab + ': ' + fmt(p[0]) + ' pages, miss ratio ' + p[1].toFixed(4);
        drawn += 1;
      });
      var item = document.createElement('span');
      item.innerHTML = '<i style="background:' + color + '"></i>';
      item.appendChild(document.createTextNode(lab + (isOpt ? ' (floor)' : '')));
      legend.appendChild(item);
    });
    svg.parentNode.insertBefore(legend, svg.nextSibling);
    svg.setAttribute('data-drawn', String(drawn));
    return drawn;
  }
  var data = JSON.parse(document.getElementById('sweep-data').textContent);
  var plots = 0;
  data.sections.forEach(function (section, i) {
    var svg = document.getElementById('plot-' + i);
    if (svg && plot(section, svg) > 0) { plots += 1; }
  });
  document.body.setAttribute('data-plots', String(plots));
  if (!document.body.hasAttribute('data-errors')) { document.body.setAttribute('data-errors', '0'); }
})();
"""


def _pct(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{0.0 if abs(value) < 0.05 else value:+.1f} %"  # no "-0.0"


def _table(section: dict[str, Any], baseline: str) -> str:
    labels = section["labels"]
    head = "".join(f"<th>{html.escape(lab)}</th>" for lab in labels)
    out = [f'<table><tr><th class="l">size</th><th>pages</th>{head}<th class="l">best</th></tr>']
    for row in section["table"]:
        cells = []
        for lab in labels:
            cell = row["cells"].get(lab)
            if cell is None:
                cells.append("<td>–</td>")
                continue
            cls = ' class="best"' if lab in row["best"] else ""
            sub = []
            if section["has_baseline"] and lab != baseline:
                sub.append(f"{_pct(cell['vs_base'])} vs {html.escape(baseline)}")
            if section["has_opt"] and lab != "opt":
                sub.append(f"{_pct(cell['vs_opt'])} over OPT")
            extra = "".join(f'<span class="sub">{s}</span>' for s in sub)
            cells.append(f"<td{cls}>{cell['mr']:.4f}{extra}</td>")
        best = html.escape(", ".join(row["best"]))
        size = html.escape(row["size"])
        out.append(f'<tr><td class="l">{size}</td><td>{row["size_pages"]:,}</td>{"".join(cells)}'
                   f'<td class="l">{best}</td></tr>')  # fmt: skip
    out.append("</table>")
    return "\n".join(out)


def _vmstat_table(vmstat: dict[str, Any]) -> str:
    head = "".join(f"<th>{html.escape(n)}</th>" for n in vmstat["names"])
    out = [f'<table class="vmstat"><tr><th class="l">policy</th><th>pages</th>{head}</tr>']
    for row in vmstat["rows"]:
        vals = "".join(f"<td>{'–' if v is None else f'{v:,}'}</td>" for v in row["values"])
        out.append(
            f'<tr><td class="l">{html.escape(row["label"])}</td><td>{row["size_pages"]:,}</td>{vals}</tr>'
        )
    out.append("</table>")
    return "\n".join(out)


def _best_table(sections: list[dict[str, Any]]) -> str:
    sizes, rows = best_by_size(sections)
    head = "".join(f"<th>{html.escape(s)}</th>" for s in sizes)
    out = [f'<table><tr><th class="l">trace</th>{head}</tr>']
    for row in rows:
        cells = "".join(f"<td>{html.escape(b)}</td>" for b in row["best"])
        out.append(f'<tr><td class="l">{html.escape(row["title"])}</td>{cells}</tr>')
    out.append("</table>")
    return "\n".join(out)


def render_report(frame: pd.DataFrame, baseline: str = "fifo", title: str = "sweep") -> tuple[str, list[str]]:
    """The report as one HTML string, and notes on what it left out.

    Parameters
    ----------
    frame : pandas.DataFrame
        From :func:`pagesim.sweep.results.load_results`.
    baseline : str
        Policy label the reductions are measured against (default FIFO).
    title : str
        Shown in the heading.
    """
    sections, notes = report_sections(frame, baseline)
    body = [f"<h1>pagesim sweep report: {html.escape(title)}</h1>",
            f"<p>{len(frame)} run(s), {len(sections)} trace section(s). Miss ratio per size; under each, "
            f"the reduction against <b>{html.escape(baseline)}</b> (positive: fewer misses) and the excess "
            "over OPT (0: optimal). OPT is the floor of each cache-mode plot (shaded); in kernel mode it is "
            "a reference, not a bound. pagesim " + html.escape(pagesim.__version__) + ".</p>",
            '<div id="errors"></div>']  # fmt: skip
    body += [f'<p class="note">{html.escape(n)}</p>' for n in notes]
    if sections:
        body += ["<h2>Best policy per trace and size</h2>", _best_table(sections)]
    for i, section in enumerate(sections):
        body.append(f"<h2>{html.escape(section['title'])}</h2>")
        points = sum(len(c) for c in section["curves"].values())
        body.append(f'<svg id="plot-{i}" class="plot" data-points="{points}" role="img"></svg>')
        body.append(_table(section, baseline))
        if section["vmstat"]:
            body.append("<h3>vmstat counters (kernel mode)</h3>")
            body.append(_vmstat_table(section["vmstat"]))
    data = json.dumps({"sections": sections}, allow_nan=False).replace("</", "<\\/")
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>pagesim sweep: {html.escape(title)}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(body)
        + f'\n<script type="application/json" id="sweep-data">{data}</script>\n<script>{_JS}</script>\n'
        "</body></html>\n"
    )
    return page, notes


def write_report(frame: pd.DataFrame, path: str, baseline: str = "fifo", title: str = "sweep") -> list[str]:
    """Write :func:`render_report` to ``path``; the notes."""
    page, notes = render_report(frame, baseline, title)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(page)
    return notes
