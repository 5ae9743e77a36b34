import { barRect, exitPill, glyph, pillWidth } from './glyphs.ts';
import { BAR_H, esc, GAP, GREEN, LANE_STYLE, n, ORANGE, RED, RULE, sansWidth, STEP, W } from './style.ts';

/** The legend under the axis: every glyph, bar and arrow the picture may use, wrapped to the width. */
export function renderLegend(top: number): { svg: string; bottom: number } {
  const c = LANE_STYLE.pod.color;
  const items: { draw: (x: number, y: number) => string; w: number; text: string }[] = [
    { w: 14, text: 'created (watch ADDED)', draw: (x, y) => glyph('created', x + 7, y, c) },
    { w: 14, text: 'present at list', draw: (x, y) => glyph('listed', x + 7, y, c) },
    { w: 10, text: 'modified', draw: (x, y) => glyph('modified', x + 5, y, c) },
    { w: 16, text: 'delete requested', draw: (x, y) => glyph('delete-requested', x + 8, y, c) },
    { w: 14, text: 'gone (DELETED)', draw: (x, y) => glyph('gone', x + 7, y, c) },
    { w: 16, text: 'suspended', draw: (x, y) => glyph('suspend', x + 8, y, LANE_STYLE.sandbox.color) },
    { w: 16, text: 'resumed', draw: (x, y) => glyph('resume', x + 8, y, LANE_STYLE.sandbox.color) },
    { w: pillWidth('exit 0'), text: 'clean exit', draw: (x, y) => exitPill('exit 0', x + pillWidth('exit 0') / 2, y, GREEN, y + 8).svg },
    { w: pillWidth('exit 137'), text: 'killed (SIGKILL)', draw: (x, y) => exitPill('exit 137', x + pillWidth('exit 137') / 2, y, RED, y + 8).svg },
    { w: 34, text: 'running', draw: (x, y) => barRect(x, x + 34, y - BAR_H / 2, 'running', LANE_STYLE.pod, true) },
    { w: 34, text: 'terminating', draw: (x, y) => barRect(x, x + 34, y - BAR_H / 2, 'terminating', LANE_STYLE.pod, true) },
    { w: 34, text: 'suspended', draw: (x, y) => barRect(x, x + 34, y - BAR_H / 2, 'suspended', LANE_STYLE.sandbox, true) },
    {
      w: 30,
      text: 'harness step',
      draw: (x, y) => `<rect x="${n(x)}" y="${n(y - 8)}" width="30" height="16" fill="${STEP}" fill-opacity="0.1"/><path d="M${n(x)} ${n(y - 2)}V${n(y - 8)}H${n(x + 30)}V${n(y - 2)}" fill="none" stroke="${STEP}" stroke-width="1.6"/>`,
    },
    { w: 30, text: 'watch gap', draw: (x, y) => `<rect x="${n(x)}" y="${n(y - 8)}" width="30" height="16" fill="${GAP}" fill-opacity="0.16" stroke="${GAP}" stroke-dasharray="4 2"/>` },
    {
      w: 36,
      text: 'order violated (came first → should have come first)',
      draw: (x, y) => `<path d="M${n(x)} ${n(y)}H${n(x + 32)}" stroke="${RED}" stroke-width="2.4" marker-end="url(#tl-arrow-fail)"/>`,
    },
    {
      w: 36,
      text: 'order inconclusive',
      draw: (x, y) => `<path d="M${n(x)} ${n(y)}H${n(x + 32)}" stroke="${ORANGE}" stroke-width="2.4" stroke-dasharray="7 4" marker-end="url(#tl-arrow-inconclusive)"/>`,
    },
  ];
  const parts: string[] = [`<line x1="14" y1="${n(top - 12)}" x2="${W - 14}" y2="${n(top - 12)}" stroke="${RULE}"/>`];
  let x = 14;
  let y = top + 10;
  for (const item of items) {
    const width = item.w + 6 + sansWidth(item.text, 11);
    if (x + width > W - 14) {
      x = 14;
      y += 24;
    }
    parts.push(item.draw(x, y));
    parts.push(`<text x="${n(x + item.w + 6)}" y="${n(y + 4)}" font-size="11" fill="#334155">${esc(item.text)}</text>`);
    x += width + 18;
  }
  return { svg: `<g class="tl-legend">${parts.join('')}</g>`, bottom: y + 12 };
}
