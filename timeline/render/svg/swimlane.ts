/**
 * The timeline as a swimlane SVG: one lane per watched object, harness steps as bands, watch
 * gaps shaded, and violated orderings drawn as arrows. Drawn in named parts (lane labels, axis,
 * steps, gaps, lanes, verdicts, legend, header) onto shared layers, bottom to top.
 *
 * Pure and deterministic: the same timeline and verdicts give byte-identical output (no clock,
 * no randomness, no environment), so the picture can be golden-tested and diffed.
 */
import { formatEntry, formatOffset } from '../../derive/format.ts';
import type { Verdict } from '../../evaluate/verdict.ts';
import type { Timeline, TimelineEntry } from '../../model.ts';
import { arrowMarker, barRect, exitColor, exitPill, exitText, glyph, hatchPattern, pillWidth, Strip } from './glyphs.ts';
import { renderLegend } from './legend.ts';
import {
  BAR_H, BAR_Y, esc, FAINT, FAULT, FAULT_ROW_H, GAP, HEADER_H, INK, LABEL_W, LABEL_ZONE_Y, LANE_H, LANE_STYLE, MONO, monoWidth, MUTED, n, ORANGE, PLOT_X0, PLOT_X1, RED, RULE, SANS,
  sansWidth, STATUS_COLOR, STEP, STEP_ROW_H, truncateEnd, truncateMiddle, W, type LaneStyle,
} from './style.ts';
import { analyzeLane, bandLabel, buildBands, buildFaultBands, buildLanes, faultLabel, type Band, type Exit, type FaultBand, type MarkerKind, type ObjectLane, type Point } from './swimlane-model.ts';
import { drawVerdicts } from './verdict-overlay.ts';

/** Where everything goes: the time scale, the step rows and the lanes. */
interface Plot {
  entries: TimelineEntry[];
  bySeq: Map<number, TimelineEntry>;
  tEnd: number;
  span: number;
  x: (t: number) => number;
  bands: Band[];
  stepsTop: number;
  /** The schedule's faults, one row each between the steps and the lanes (none without a schedule). */
  faults: FaultBand[];
  faultsTop: number;
  lanesTop: number;
  lanes: ObjectLane[];
  lanesBottom: number;
  axisY: number;
  legendTop: number;
}

/** The picture's layers, bottom to top, and the points verdict arrows attach to (by entry seq). */
interface Layers {
  defs: string[];
  back: string[];
  labels: string[];
  bars: string[];
  over: string[];
  marks: string[];
  axis: string[];
  anchors: Map<number, Point>;
}

/** What each lane shows, and where its exit-code pills sit: they claim the label zone first. */
interface LanePlacement {
  analyses: Map<ObjectLane, ReturnType<typeof analyzeLane>>;
  strips: Map<ObjectLane, Strip>;
  pillCentre: Map<Exit, number>;
}

/** The timeline as a swimlane SVG, with violated orderings of `verdicts` drawn on it. */
export function renderSwimlaneSvg(timeline: Timeline, verdicts: Verdict[] = []): string {
  const plot = planPlot(timeline);
  const layers: Layers = { defs: [], back: [], labels: [], bars: [], over: [], marks: [], axis: [], anchors: new Map() };
  drawLaneLabels(plot, layers);
  drawAxis(plot, layers);
  drawSteps(plot, layers);
  drawFaults(plot, layers);
  const placement = placeExitPills(plot);
  drawGaps(plot, layers, placement);
  drawLanes(plot, layers, placement);
  layers.defs.push(arrowMarker('tl-arrow-fail', RED), arrowMarker('tl-arrow-inconclusive', ORANGE));
  const { rings, arrows } = drawVerdicts(plot, verdicts, layers.anchors);
  const legend = renderLegend(plot.legendTop);
  const height = legend.bottom + 12;

  const docTitle = `${timeline.test ?? 'timeline'}${timeline.lane ? ` [${timeline.lane}]` : ''}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${n(height)}" viewBox="0 0 ${W} ${n(height)}" font-family="${SANS}" role="img" aria-labelledby="tl-svg-title">`,
    `<title id="tl-svg-title">${esc(docTitle)}</title>`,
    `<defs>${layers.defs.join('')}</defs>`,
    `<rect width="${W}" height="${n(height)}" fill="#fff"/>`,
    drawHeader(timeline, plot, verdicts),
    `<g class="tl-back">${layers.back.join('')}</g>`,
    `<g class="tl-labels">${layers.labels.join('')}</g>`,
    `<g class="tl-bars">${layers.bars.join('')}</g>`,
    `<g class="tl-over">${layers.over.join('')}</g>`,
    `<g class="tl-marks">${layers.marks.join('')}</g>`,
    `<g class="tl-verdicts">${rings.join('')}${arrows.join('')}</g>`,
    `<g class="tl-axis">${layers.axis.join('')}</g>`,
    legend.svg,
    `</svg>`,
    '',
  ].join('\n');
}

function planPlot(timeline: Timeline): Plot {
  const entries = [...timeline.entries].sort((a, b) => a.seq - b.seq);
  const bySeq = new Map(entries.map((e) => [e.seq, e] as const));
  const tEnd = entries.reduce((end, e) => Math.max(end, e.t, e.kind === 'gap' ? (e.endT ?? 0) : 0), 0);
  const span = tEnd > 0 ? tEnd : 1000;
  const x = (t: number) => PLOT_X0 + (Math.max(0, t) / span) * (PLOT_X1 - PLOT_X0);
  const bands = buildBands(entries, tEnd);
  const stepsTop = HEADER_H;
  const faultsTop = stepsTop + Math.max(1, assignStepRows(bands, x)) * STEP_ROW_H + 8;
  const faults = buildFaultBands(entries, tEnd);
  const lanesTop = faultsTop + (faults.length ? 18 + faults.length * FAULT_ROW_H + 6 : 0);
  const lanes = buildLanes(entries);
  lanes.forEach((lane, i) => (lane.top = lanesTop + i * LANE_H));
  const lanesBottom = lanesTop + Math.max(1, lanes.length) * LANE_H;
  return { entries, bySeq, tEnd, span, x, bands, stepsTop, faults, faultsTop, lanesTop, lanes, lanesBottom, axisY: lanesBottom, legendTop: lanesBottom + 56 };
}

/** Step label rows above the lanes (at most four): returns how many rows the bands need. */
function assignStepRows(bands: Band[], x: (t: number) => number): number {
  const rowEnds: number[] = [];
  for (const b of [...bands].sort((p, q) => p.from - q.from)) {
    b.labelX = Math.min(x(b.from) + 4, W - 8 - sansWidth(bandLabel(b), 11));
    const from = Math.min(x(b.from), b.labelX - 4);
    const to = Math.max(x(b.to), b.labelX + sansWidth(bandLabel(b), 11) + 6);
    let row = rowEnds.findIndex((end) => end + 8 <= from);
    if (row < 0) row = rowEnds.length < 4 ? rowEnds.length : rowEnds.indexOf(Math.min(...rowEnds));
    rowEnds[row] = Math.max(rowEnds[row] ?? 0, to);
    b.row = row;
  }
  return rowEnds.length;
}

/** Lane backgrounds and labels: kind and role, name, short uid. */
function drawLaneLabels({ lanes, lanesTop, stepsTop, lanesBottom }: Plot, { back, labels }: Layers): void {
  lanes.forEach((lane, i) => {
    const top = lane.top;
    back.push(`<rect x="0" y="${n(top)}" width="${W}" height="${LANE_H}" fill="${i % 2 ? '#ffffff' : '#f8fafc'}"/>`);
    back.push(`<line x1="0" y1="${n(top + LANE_H)}" x2="${W}" y2="${n(top + LANE_H)}" stroke="${RULE}"/>`);
    const kindLine = `${lane.kind}${lane.role ? ` · ${lane.role}` : ''}`.toUpperCase();
    const attrs = `data-kind="${esc(lane.kind)}" data-name="${esc(lane.name)}" data-role="${esc(lane.role ?? '')}" data-uid="${esc(lane.uid)}"`;
    const title = lane.placeholder ? `${lane.kind}: no objects observed` : `${lane.kind} ${lane.namespace}/${lane.name} (uid ${lane.uid})`;
    labels.push(
      `<g class="tl-lane-label" ${attrs}><title>${esc(title)}</title>` +
        `<rect x="0" y="${n(top)}" width="4" height="${LANE_H}" fill="${lane.style.color}"/>` +
        `<text x="14" y="${n(top + 22)}" font-size="10" font-weight="700" letter-spacing="0.6" fill="${lane.style.color}">${esc(kindLine)}</text>` +
        (lane.uid ? `<text x="${LABEL_W - 6}" y="${n(top + 22)}" text-anchor="end" font-family="${MONO}" font-size="9.5" fill="${FAINT}">${esc(`uid ${shortUid(lane.uid)}`)}</text>` : '') +
        (lane.placeholder
          ? `<text x="14" y="${n(top + 41)}" font-size="12" font-style="italic" fill="${MUTED}">no objects observed</text>`
          : `<text x="14" y="${n(top + 41)}" font-family="${MONO}" font-size="12.5" fill="${INK}">${esc(truncateMiddle(lane.name, 31))}</text>`) +
        `</g>`,
    );
  });
  if (lanes.length === 0) labels.push(`<text x="14" y="${n(lanesTop + 34)}" font-size="12" font-style="italic" fill="${MUTED}">no objects observed</text>`);
  back.push(`<line x1="${LABEL_W}" y1="${n(stepsTop)}" x2="${LABEL_W}" y2="${n(lanesBottom)}" stroke="${RULE}"/>`);
}

/** The time grid, the axis with its ticks, and the end of the recording. */
function drawAxis({ span, x, tEnd, stepsTop, lanesTop, lanesBottom, axisY }: Plot, { back, axis }: Layers): void {
  const step = niceStep(span, 10);
  axis.push(`<line x1="${PLOT_X0}" y1="${n(axisY)}" x2="${PLOT_X1}" y2="${n(axisY)}" stroke="${FAINT}"/>`);
  const axisStrip = new Strip();
  for (let i = 0; x(i * step) <= W - 16; i++) {
    const t = i * step;
    const tx = x(t);
    back.push(`<line x1="${n(tx)}" y1="${n(stepsTop)}" x2="${n(tx)}" y2="${n(lanesBottom)}" stroke="${RULE}" stroke-width="1"/>`);
    const label = tickLabel(t, step);
    axis.push(`<line x1="${n(tx)}" y1="${n(axisY)}" x2="${n(tx)}" y2="${n(axisY + 5)}" stroke="${FAINT}"/>`);
    axis.push(`<text class="tl-tick" x="${n(tx)}" y="${n(axisY + 18)}" text-anchor="middle" font-size="11" fill="${MUTED}">${esc(label)}</text>`);
    axisStrip.take(tx - sansWidth(label, 11) / 2 - 4, tx + sansWidth(label, 11) / 2 + 4);
  }
  axis.push(`<text x="${LABEL_W - 6}" y="${n(axisY + 18)}" text-anchor="end" font-size="11" fill="${MUTED}">time since recording start</text>`);
  const xe = x(tEnd);
  back.push(`<line x1="${n(xe)}" y1="${n(lanesTop)}" x2="${n(xe)}" y2="${n(lanesBottom)}" stroke="${FAINT}" stroke-dasharray="2 3"/>`);
  const endLabel = `end ${formatOffset(tEnd)}`;
  const endW = sansWidth(endLabel, 10);
  const endY = axisStrip.fits(xe - endW / 2 - 2, xe + endW / 2 + 2) ? axisY + 18 : axisY + 31;
  axis.push(`<line x1="${n(xe)}" y1="${n(axisY)}" x2="${n(xe)}" y2="${n(endY - 10)}" stroke="${FAINT}" stroke-dasharray="2 2"/>`);
  axis.push(`<text class="tl-end" x="${n(xe)}" y="${n(endY)}" text-anchor="middle" font-size="10" fill="${MUTED}">${esc(endLabel)}</text>`);
}

/** Harness steps: a band across all lanes and a bracket with the title above them. */
function drawSteps({ bands, x, stepsTop, lanesBottom }: Plot, { back, labels, over, anchors }: Layers): void {
  labels.push(`<text x="14" y="${n(stepsTop + 14)}" font-size="10" font-weight="700" letter-spacing="0.6" fill="${STEP}">HARNESS STEPS</text>`);
  for (const b of bands) {
    const color = b.status === 'failed' ? RED : STEP;
    const x0 = x(b.from);
    const x1 = Math.max(x(b.to), x0 + 1);
    const rowY = stepsTop + 6 + b.row * STEP_ROW_H;
    back.push(
      `<g class="tl-step" data-title="${esc(b.title)}" data-status="${b.status}">` +
        `<rect x="${n(x0)}" y="${n(rowY + 12)}" width="${n(x1 - x0)}" height="${n(lanesBottom - rowY - 12)}" fill="${color}" fill-opacity="0.06"/>` +
        `<line x1="${n(x0)}" y1="${n(rowY + 12)}" x2="${n(x0)}" y2="${n(lanesBottom)}" stroke="${color}" stroke-opacity="0.45" stroke-dasharray="3 3"/>` +
        (b.status === 'open' ? '' : `<line x1="${n(x1)}" y1="${n(rowY + 12)}" x2="${n(x1)}" y2="${n(lanesBottom)}" stroke="${color}" stroke-opacity="0.45" stroke-dasharray="3 3"/>`) +
        `</g>`,
    );
    over.push(
      `<g class="tl-step-label"><title>${esc(`step ${bandLabel(b)}: ${formatOffset(b.from)} .. ${formatOffset(b.to)}`)}</title>` +
        `<path d="M${n(x0)} ${n(rowY + 15)}V${n(rowY + 9)}H${n(x1)}V${n(rowY + 15)}" fill="none" stroke="${color}" stroke-width="1.6"/>` +
        `<text x="${n(b.labelX ?? x0 + 4)}" y="${n(rowY + 5)}" font-size="11" font-weight="600" fill="${color}">${esc(bandLabel(b))}</text></g>`,
    );
    if (b.beginSeq !== undefined) anchors.set(b.beginSeq, { x: x0, y: rowY + 9 });
    if (b.endSeq !== undefined) anchors.set(b.endSeq, { x: x1, y: rowY + 9 });
  }
}

/**
 * The schedule's faults: a row each, a bar from firing to heal (a diamond for one that happened
 * at once), with dashed lines down through the lanes, so the events a fault came between are
 * seen at a glance.
 */
function drawFaults({ faults, faultsTop, x, lanesTop, lanesBottom }: Plot, { labels, back, over, anchors }: Layers): void {
  if (!faults.length) return;
  labels.push(`<text x="14" y="${n(faultsTop + 12)}" font-size="10" font-weight="700" letter-spacing="0.6" fill="${FAULT}">FAULTS</text>`);
  for (const b of faults) {
    const y = faultsTop + 18 + b.row * FAULT_ROW_H;
    const x0 = x(b.from);
    const x1 = Math.max(x(b.to), x0 + 1);
    const label = faultLabel(b);
    const title = `fault ${label}: fired ${formatOffset(b.from)}${b.healed ? `, healed ${formatOffset(b.to)}` : ''} — ${b.detail}`;
    const lines = [x0, ...(b.healed && !b.instant ? [x1] : [])]
      .map((lx) => `<line x1="${n(lx)}" y1="${n(lanesTop)}" x2="${n(lx)}" y2="${n(lanesBottom)}" stroke="${FAULT}" stroke-opacity="0.5" stroke-dasharray="1 3"/>`)
      .join('');
    back.push(`<g class="tl-fault-lines" data-item="${esc(b.item)}">${lines}</g>`);
    const shape = b.instant
      ? `<path d="M${n(x0)} ${n(y + 2)}l5 5l-5 5l-5-5z" fill="${FAULT}"/>`
      : `<rect x="${n(x0)}" y="${n(y + 4)}" width="${n(x1 - x0)}" height="7" rx="2" fill="${FAULT}" fill-opacity="${b.healed ? 0.75 : 0.4}"/>`;
    const labelX = Math.min((b.instant ? x0 + 8 : x1 + 6), W - 8 - sansWidth(label, 10.5));
    over.push(
      `<g class="tl-fault" data-item="${esc(b.item)}" data-fault="${esc(b.fault)}"><title>${esc(title)}</title>${shape}` +
        `<text x="${n(labelX)}" y="${n(y + 11)}" font-size="10.5" font-weight="600" fill="${FAULT}">${esc(label)}</text></g>`,
    );
    anchors.set(b.firedSeq, { x: x0, y: y + 7 });
    if (b.healedSeq !== undefined) anchors.set(b.healedSeq, { x: x1, y: y + 7 });
  }
}

/** Each lane's analysis; exit codes seen at the same moment sit side by side, each on a stem to its moment. */
function placeExitPills({ lanes, tEnd, x }: Plot): LanePlacement {
  const placement: LanePlacement = { analyses: new Map(), strips: new Map(), pillCentre: new Map() };
  for (const lane of lanes) {
    const strip = new Strip();
    placement.strips.set(lane, strip);
    if (lane.placeholder) continue;
    const analysis = analyzeLane(lane, tEnd);
    placement.analyses.set(lane, analysis);
    let right = -Infinity;
    for (const ex of analysis.exits) {
      const w = pillWidth(exitText(ex));
      const centre = Math.max(x(ex.entry.t), right + 3 + w / 2);
      placement.pillCentre.set(ex, centre);
      right = centre + w / 2;
    }
    // ...and move left when they would run off the picture.
    let limit = W - 4;
    for (const ex of [...analysis.exits].reverse()) {
      const w = pillWidth(exitText(ex));
      const centre = Math.min(placement.pillCentre.get(ex)!, limit - w / 2);
      placement.pillCentre.set(ex, centre);
      limit = centre - w / 2 - 3;
      strip.take(centre - w / 2 - 2, centre + w / 2 + 2);
    }
  }
  return placement;
}

/** Watch gaps: grey over the lanes of their resource. */
function drawGaps({ entries, lanes, x, tEnd }: Plot, { over, anchors }: Layers, { strips }: LanePlacement): void {
  for (const e of entries) {
    if (e.kind !== 'gap') continue;
    const own = lanes.filter((l) => l.resource === e.resource);
    const x0 = x(e.t);
    const x1 = Math.max(x(e.endT ?? tEnd), x0 + 2);
    const top = Math.min(...own.map((l) => l.top));
    const bottom = Math.max(...own.map((l) => l.top + LANE_H));
    const labelW = sansWidth('watch gap', 10);
    strips.get(own[0]!)!.take(x0, x0 + labelW + 8);
    over.push(
      `<g class="tl-gap" data-resource="${esc(e.resource)}"><title>${esc(formatEntry(e))}</title>` +
        `<rect x="${n(x0)}" y="${n(top)}" width="${n(x1 - x0)}" height="${n(bottom - top)}" fill="${GAP}" fill-opacity="0.16"/>` +
        `<line x1="${n(x0)}" y1="${n(top)}" x2="${n(x0)}" y2="${n(bottom)}" stroke="${GAP}" stroke-width="1.2" stroke-dasharray="4 2"/>` +
        (e.endT === undefined ? '' : `<line x1="${n(x1)}" y1="${n(top)}" x2="${n(x1)}" y2="${n(bottom)}" stroke="${GAP}" stroke-width="1.2" stroke-dasharray="4 2"/>`) +
        `<text x="${n(x0 + 4)}" y="${n(top + LABEL_ZONE_Y + 12)}" font-size="10" font-style="italic" font-weight="600" fill="#475569">watch gap</text></g>`,
    );
    anchors.set(e.seq, { x: x0, y: top + 6 });
  }
}

const CAPTIONS: Partial<Record<MarkerKind, string>> = { 'delete-requested': 'delete', gone: 'gone', suspend: 'suspended', resume: 'resumed' };
/** Drawn in this order, so the busy markers stay on top of the modified dots. */
const MARKER_ORDER: MarkerKind[] = ['modified', 'created', 'listed', 'suspend', 'resume', 'delete-requested', 'gone'];

/** Lanes: lifetime bars, markers with their captions, exit codes; the hatch patterns they use. */
function drawLanes({ lanes, x }: Plot, { defs, bars, marks, anchors }: Layers, { analyses, strips, pillCentre }: LanePlacement): void {
  const stylesUsed = new Map<string, LaneStyle>();
  for (const lane of lanes) {
    if (lane.placeholder) continue;
    stylesUsed.set(lane.style.key, lane.style);
    const { segments, markers, exits } = analyses.get(lane)!;
    const strip = strips.get(lane)!;
    const barY = lane.top + BAR_Y;
    const cy = barY + BAR_H / 2;
    for (const s of segments) bars.push(barRect(x(s.from), x(s.to), barY, s.mode, lane.style));
    for (const s of segments) {
      if (s.open) bars.push(`<path d="M${n(x(s.to))} ${n(barY - 2)}l6 ${n(BAR_H / 2 + 2)}l-6 ${n(BAR_H / 2 + 2)}" fill="none" stroke="${lane.style.color}" stroke-width="1.5"/>`);
    }
    for (const ex of exits) {
      const px = x(ex.entry.t);
      const pill = exitPill(exitText(ex), pillCentre.get(ex) ?? px, lane.top + LABEL_ZONE_Y, exitColor(ex.code), barY - 1, px);
      marks.push(`<g class="tl-mk tl-mk-exit" data-seq="${ex.entry.seq}" data-code="${ex.code ?? ''}"><title>${esc(`${ex.container} exited ${ex.code ?? '?'} — ${formatEntry(ex.entry)}`)}</title>${pill.svg}</g>`);
    }
    for (const kind of MARKER_ORDER) {
      for (const m of markers) {
        if (m.kind !== kind) continue;
        const px = x(m.entry.t);
        const color = m.kind === 'created' || m.kind === 'listed' || m.kind === 'suspend' || m.kind === 'resume' ? lane.style.color : INK;
        let caption = '';
        const text = CAPTIONS[m.kind];
        if (text) {
          const w = sansWidth(text, 9.5);
          if (strip.fits(px - w / 2 - 2, px + w / 2 + 2)) {
            strip.take(px - w / 2 - 2, px + w / 2 + 2);
            const fill = m.kind === 'delete-requested' ? '#b45309' : m.kind === 'gone' ? INK : lane.style.color;
            caption = `<text x="${n(px)}" y="${n(lane.top + LABEL_ZONE_Y + 12)}" text-anchor="middle" font-size="9.5" font-weight="600" fill="${fill}">${esc(text)}</text>`;
          }
        }
        marks.push(`<g class="tl-mk tl-mk-${m.kind}" data-seq="${m.entry.seq}"><title>${esc(formatEntry(m.entry))}</title>${glyph(m.kind, px, cy, color)}${caption}</g>`);
      }
    }
    for (const e of lane.entries) if (!anchors.has(e.seq)) anchors.set(e.seq, { x: x(e.t), y: cy });
  }
  for (const style of stylesUsed.values()) defs.push(hatchPattern(style));
  defs.push(hatchPattern(LANE_STYLE.pod));
}

/** The title (test and lane), and a line with the recording's size and the verdict counts. */
function drawHeader(timeline: Timeline, { entries, lanes }: Plot, verdicts: Verdict[]): string {
  // A family with nothing to judge in this test (no delete, say) is not counted.
  const judged = verdicts.filter((v) => !v.noEpisode);
  // A FAIL the test provoked and asserted is counted apart: it is not the driver's violation.
  const provoked = judged.filter((v) => v.expectedByTest).length;
  const counts = (['FAIL', 'INCONCLUSIVE', 'PASS'] as const).map((s) => [s, judged.filter((v) => v.status === s && !v.expectedByTest).length] as const).filter(([, c]) => c > 0);
  const objects = lanes.filter((l) => !l.placeholder).length;
  const titleText = truncateEnd(timeline.test ?? 'timeline', 96);
  const laneText = timeline.lane ? `lane ${truncateEnd(timeline.lane, 40)}` : '';
  const laneW = monoWidth(laneText, 11) + 14;
  const titleW = sansWidth(titleText, 16);
  const lanePillX = Math.min(14 + titleW + 12, W - 14 - laneW);
  return (
    `<text class="tl-title" x="14" y="27" font-size="16" font-weight="700" fill="${INK}">${esc(titleText)}</text>` +
    (laneText
      ? `<rect x="${n(lanePillX)}" y="13" width="${n(laneW)}" height="19" rx="9.5" fill="#f1f5f9" stroke="#cbd5e1"/>` +
        `<text class="tl-lane-name" x="${n(lanePillX + 7)}" y="26.5" font-family="${MONO}" font-size="11" fill="#334155">${esc(laneText)}</text>`
      : '') +
    `<text x="14" y="49" font-size="11.5" fill="${MUTED}">${esc(`recorded ${timeline.startedAt} · ${entries.length} entries · ${objects} objects`)}` +
    counts.map(([s, c]) => ` · <tspan font-weight="700" fill="${STATUS_COLOR[s]}">${c} ${s}</tspan>`).join('') +
    (provoked ? ` · <tspan font-weight="700" fill="${MUTED}">${provoked} EXPECTED FAIL</tspan>` : '') +
    `</text>`
  );
}

function niceStep(span: number, target: number): number {
  const raw = span / target;
  const pow = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

function tickLabel(ms: number, step: number): string {
  const digits = step >= 1000 ? 0 : step >= 100 ? 1 : step >= 10 ? 2 : 3;
  return `${Number((ms / 1000).toFixed(digits))}s`;
}

function shortUid(uid: string): string {
  return uid.replace(/-/g, '').slice(0, 8);
}
