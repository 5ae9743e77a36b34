/**
 * The verdicts drawn over the swimlane: both entries of each failed or inconclusive ordering
 * rule ringed, an arrow from the entry that came first to the other, and a caption naming the
 * rule. PASS verdicts draw nothing.
 */
import type { Verdict } from '../../evaluate/verdict.ts';
import type { TimelineEntry } from '../../model.ts';
import { esc, LANE_H, MONO, monoWidth, n, PLOT_X0, STATUS_COLOR, W } from './style.ts';
import type { Point } from './swimlane-model.ts';

/** The rings and arrows (with captions) of `verdicts`, attached to the entries' anchor points. */
export function drawVerdicts({ bySeq, lanesTop }: { bySeq: Map<number, TimelineEntry>; lanesTop: number }, verdicts: Verdict[], anchors: Map<number, Point>): { rings: string[]; arrows: string[] } {
  // Verdicts: the pair of each failed or inconclusive ordering rule.
  // An arrow travels along the lane boundary next to its target, where no bar or marker is drawn.
  const laneIndex = (y: number) => Math.floor((y - lanesTop) / LANE_H);
  const channelFor = (from: Point, to: Point): number => {
    const i = laneIndex(to.y);
    if (i < 0) return lanesTop;
    if (i === laneIndex(from.y)) return lanesTop + i * LANE_H + 2;
    return i < laneIndex(from.y) ? lanesTop + (i + 1) * LANE_H : lanesTop + i * LANE_H;
  };
  const captionBoxes: { x0: number; x1: number; y0: number; y1: number }[] = [];
  const rings: string[] = [];
  const arrows: string[] = [];
  for (const v of verdicts) {
    if (!v.pair || (v.status !== 'FAIL' && v.status !== 'INCONCLUSIVE')) continue;
    const color = STATUS_COLOR[v.status];
    const cls = v.status === 'FAIL' ? 'fail' : 'inconclusive';
    const [shouldFirst, shouldLater] = v.pair;
    const present = [shouldFirst, shouldLater].filter((s) => bySeq.has(s) && anchors.has(s));
    for (const s of new Set(present)) {
      const p = anchors.get(s)!;
      rings.push(
        `<g class="tl-highlight tl-highlight-${cls}" data-seq="${s}" data-verdict="${esc(v.id)}">` +
          `<circle cx="${n(p.x)}" cy="${n(p.y)}" r="13" fill="${color}" fill-opacity="0.13"/>` +
          `<circle cx="${n(p.x)}" cy="${n(p.y)}" r="10.5" fill="none" stroke="${color}" stroke-width="2.2"/></g>`,
      );
    }
    // The arrow runs from whichever entry happened first to the other one: for a violated rule,
    // from the entry that came too early to the one that should have come first.
    let from: Point | undefined;
    let to: Point | undefined;
    let fromSeq = shouldFirst;
    let toSeq = shouldLater;
    if (present.length === 2 && shouldFirst !== shouldLater) {
      const a = bySeq.get(shouldFirst)!;
      const b = bySeq.get(shouldLater)!;
      if (b.t < a.t || (b.t === a.t && b.seq < a.seq)) [fromSeq, toSeq] = [shouldLater, shouldFirst];
      from = anchors.get(fromSeq)!;
      to = anchors.get(toSeq)!;
    }
    let cx: number;
    let cyTop: number;
    if (from && to) {
      const route = routeArrow(from, to, channelFor(from, to));
      if (!route) continue;
      arrows.push(
        `<g class="tl-arrow tl-arrow-${cls}" data-verdict="${esc(v.id)}" data-from="${fromSeq}" data-to="${toSeq}">` +
          `<path d="${route.d}" fill="none" stroke="#fff" stroke-width="6" stroke-linecap="round" stroke-linejoin="round"/>` +
          `<path d="${route.d}" fill="none" stroke="${color}" stroke-width="2.4" stroke-linejoin="round"${v.status === 'INCONCLUSIVE' ? ' stroke-dasharray="7 4"' : ''} marker-end="url(#tl-arrow-${cls})"/></g>`,
      );
      cx = route.mid.x;
      cyTop = route.mid.y - 9;
    } else {
      const p = anchors.get(present[0] ?? -1);
      if (!p) continue;
      cx = p.x;
      cyTop = p.y + 14;
    }
    const text = `${v.status} ${v.id}`;
    const w = monoWidth(text, 11) + 14;
    const x0 = Math.min(Math.max(cx - w / 2, PLOT_X0 - 10), W - 6 - w);
    let y0 = cyTop;
    while (captionBoxes.some((b) => x0 < b.x1 && x0 + w > b.x0 && y0 < b.y1 && y0 + 18 > b.y0)) y0 += 20;
    captionBoxes.push({ x0, x1: x0 + w, y0, y1: y0 + 18 });
    arrows.push(
      `<g class="tl-caption tl-caption-${cls}" data-verdict="${esc(v.id)}"><title>${esc(`${v.status} ${v.id}: ${v.title}`)}</title>` +
        `<rect x="${n(x0)}" y="${n(y0)}" width="${n(w)}" height="18" rx="4" fill="#fff" stroke="${color}" stroke-width="1.4"/>` +
        `<text x="${n(x0 + 7)}" y="${n(y0 + 12.8)}" font-family="${MONO}" font-size="11" font-weight="700" fill="${color}">${esc(text)}</text></g>`,
    );
  }
  return { rings, arrows };
}

/**
 * An arrow from the right of `from` to the left of `to`, through a horizontal channel at
 * `channel`: out of the first ring, along the channel, into the second ring. Entries too close
 * in time for that get a plain curve between the rings.
 */
function routeArrow(from: Point, to: Point, channel: number): { d: string; mid: Point } | undefined {
  const start = { x: from.x + 12, y: from.y };
  const end = { x: to.x - 13, y: to.y };
  let w1 = Math.min(36, Math.max(14, Math.abs(channel - start.y) * 0.9));
  let w2 = Math.min(36, Math.max(14, Math.abs(channel - end.y) * 0.9));
  const room = end.x - start.x;
  if (room >= 20) {
    if (w1 + w2 > room) {
      const k = room / (w1 + w2);
      w1 *= k;
      w2 *= k;
    }
    const a = start.x + w1;
    const b = end.x - w2;
    const d =
      `M${n(start.x)} ${n(start.y)}C${n(start.x + w1 / 2)} ${n(start.y)} ${n(start.x + w1 / 2)} ${n(channel)} ${n(a)} ${n(channel)}` +
      `H${n(b)}C${n(end.x - w2 / 2)} ${n(channel)} ${n(end.x - w2 / 2)} ${n(end.y)} ${n(end.x)} ${n(end.y)}`;
    return { d, mid: { x: (a + b) / 2, y: channel } };
  }
  if (Math.abs(to.y - from.y) < 1 && Math.abs(to.x - from.x) < 1) return undefined;
  const s = Math.abs(to.y - from.y) < 1 ? -1 : Math.sign(to.y - from.y);
  const p = { x: from.x, y: from.y + s * 12 };
  const q = { x: to.x, y: to.y - (Math.abs(to.y - from.y) < 1 ? 13 : s * 13) };
  const bend = Math.abs(to.y - from.y) < 1 ? from.y - 40 : (p.y + q.y) / 2;
  const d = `M${n(p.x)} ${n(p.y)}C${n(p.x)} ${n(bend)} ${n(q.x)} ${n(bend)} ${n(q.x)} ${n(q.y)}`;
  return { d, mid: { x: (p.x + q.x) / 2, y: Math.abs(to.y - from.y) < 1 ? bend + 6 : (p.y + q.y) / 2 } };
}
