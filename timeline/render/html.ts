/**
 * timeline.html: a self-contained page (opens offline, no script, no external resource) with
 * the verdicts on top, the swimlane, and every entry, the evidence of a failed or inconclusive
 * verdict highlighted and its pair marked.
 */
import { entryColumns } from '../derive/format.ts';
import { verdictWord, type Verdict, type VerdictStatus } from '../evaluate/verdict.ts';
import type { Timeline } from '../model.ts';
import { esc, FAINT, GREEN, INK, MONO, MUTED, ORANGE, RED, RULE, SANS, STEP } from './svg/style.ts';
import { renderSwimlaneSvg } from './svg/swimlane.ts';

const STATUS_ORDER: Record<VerdictStatus, number> = { FAIL: 0, INCONCLUSIVE: 1, PASS: 2 };

/** A self-contained page (opens offline): verdicts, the swimlane, and every entry. */
export function renderHtml(timeline: Timeline, verdicts: Verdict[]): string {
  const entries = [...timeline.entries].sort((a, b) => a.seq - b.seq);
  const known = new Set(entries.map((e) => e.seq));
  const evidence = new Map<number, VerdictStatus>();
  const paired = new Set<number>();
  for (const v of verdicts) {
    if (v.status === 'PASS') continue;
    for (const s of v.evidence) if (evidence.get(s) !== 'FAIL') evidence.set(s, v.status);
    if (v.pair) for (const s of v.pair) paired.add(s);
  }
  const title = `${timeline.test ?? 'timeline'}${timeline.lane ? ` [${timeline.lane}]` : ''}`;
  // Families with nothing to judge in this test (no delete, say) come last, marked as such.
  const rank = (v: Verdict) => (v.noEpisode ? 3 : v.expectedByTest ? 1.5 : STATUS_ORDER[v.status]);
  const sorted = [...verdicts].sort((a, b) => rank(a) - rank(b));

  const seqLink = (s: number) => (known.has(s) ? `<a href="#e-${s}">#${s}</a>` : `#${s}`);
  const verdictItems = sorted.map((v) => {
    // A FAIL the test provoked and asserted (`.not.toHold`) is shown as such, not as the driver's violation.
    const cls = v.noEpisode ? 'unseen' : v.expectedByTest ? 'expected' : v.status.toLowerCase();
    const badge = v.expectedByTest ? 'EXPECTED FAIL' : verdictWord(v);
    const pair = v.pair ? ` · pair ${seqLink(v.pair[0])} should precede ${seqLink(v.pair[1])}` : '';
    return (
      `<li class="verdict ${cls}">\n` +
      `<div class="vhead"><span class="badge ${cls}">${badge}</span> <code>${esc(v.id)}</code> <span class="vtitle">${esc(v.title)}</span></div>\n` +
      `<div class="vsource">${esc(v.source)} · evidence ${v.evidence.length ? v.evidence.map(seqLink).join(' ') : 'none'}${pair}</div>\n` +
      `<pre>${esc(v.message)}</pre>\n</li>`
    );
  });

  const rows = entries.map((e) => {
    const c = entryColumns(e);
    const status = evidence.get(e.seq);
    const classes = [e.kind, status ? `ev-${status.toLowerCase()}` : '', paired.has(e.seq) && status ? 'pair' : ''].filter(Boolean).join(' ');
    return (
      `<tr id="e-${e.seq}" class="${classes}"><td class="num">${e.seq}</td><td class="num">${esc(c.time)}</td><td>${esc(c.kind)}</td>` +
      `<td>${esc(c.type)}</td><td class="name">${esc(c.name)}</td><td>${esc(c.summary)}</td></tr>`
    );
  });

  const svg = renderSwimlaneSvg(timeline, verdicts).trimEnd();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
  body { margin: 24px; font: 14px/1.45 ${SANS}; color: ${INK}; background: #fff; }
  h1 { font-size: 20px; margin: 0 0 4px; }
  h2 { font-size: 15px; margin: 28px 0 10px; color: #334155; }
  .meta { color: ${MUTED}; margin: 0; }
  code, pre, td.name, td.num { font-family: ${MONO}; }
  ul.verdicts { list-style: none; padding: 0; margin: 0; }
  li.verdict { border: 1px solid ${RULE}; border-left: 5px solid ${FAINT}; border-radius: 6px; padding: 8px 12px; margin: 0 0 8px; }
  li.verdict.fail { border-left-color: ${RED}; background: #fef2f2; }
  li.verdict.inconclusive { border-left-color: ${ORANGE}; background: #fff7ed; }
  li.verdict.pass { border-left-color: ${GREEN}; }
  li.verdict.unseen { border-left-color: ${FAINT}; color: ${MUTED}; }
  li.verdict.expected { border-left-color: ${MUTED}; }
  .badge { display: inline-block; min-width: 44px; text-align: center; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 700; color: #fff; }
  .badge.pass { background: ${GREEN}; } .badge.fail { background: ${RED}; } .badge.inconclusive { background: ${ORANGE}; } .badge.unseen { background: ${MUTED}; } .badge.expected { background: ${MUTED}; }
  .vtitle { color: #334155; }
  .vsource { color: ${MUTED}; font-size: 12px; margin-top: 2px; }
  pre { margin: 6px 0 0; padding: 8px 10px; background: #f8fafc; border: 1px solid ${RULE}; border-radius: 4px; white-space: pre-wrap; font-size: 12.5px; }
  .svg { overflow-x: auto; border: 1px solid ${RULE}; border-radius: 6px; }
  .svg svg { display: block; max-width: 100%; height: auto; }
  table { border-collapse: collapse; width: 100%; font-size: 12.5px; }
  th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #f1f5f9; vertical-align: top; }
  th { background: #f8fafc; border-bottom: 1px solid ${RULE}; position: sticky; top: 0; }
  td.num { text-align: right; white-space: nowrap; }
  tr.step td { color: ${STEP}; } tr.gap td { color: ${MUTED}; font-style: italic; }
  tr.ev-fail td { background: #fee2e2; } tr.ev-inconclusive td { background: #ffedd5; }
  tr.pair td { font-weight: 700; } tr.pair td:first-child { box-shadow: inset 4px 0 ${RED}; } tr.pair.ev-inconclusive td:first-child { box-shadow: inset 4px 0 ${ORANGE}; }
  tr:target td { outline: 2px solid ${STEP}; }
  tbody tr { scroll-margin-top: 36px; } /* a linked row lands below the sticky header, not under it */
</style>
</head>
<body>
<h1>${esc(timeline.test ?? 'timeline')}</h1>
<p class="meta">${timeline.lane ? `lane <code>${esc(timeline.lane)}</code> · ` : ''}recorded ${esc(timeline.startedAt)} · ${entries.length} entries</p>
<h2>Verdicts</h2>
<ul class="verdicts">
${verdictItems.join('\n') || '<li class="verdict">no verdicts</li>'}
</ul>
<h2>Timeline</h2>
<div class="svg">
${svg}
</div>
<h2>Entries</h2>
<table>
<thead><tr><th>seq</th><th>+t</th><th>resource</th><th>type</th><th>name</th><th>summary</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</body>
</html>
`;
}
