/** The marks of the swimlane: marker glyphs, exit-code pills, lifetime bars, patterns and arrowheads. */
import { AMBER, BAR_H, esc, GREEN, INK, MONO, monoWidth, n, ORANGE, RED, type LaneStyle } from './style.ts';
import type { Exit, MarkerKind, Mode } from './swimlane-model.ts';

export function glyph(kind: MarkerKind, x: number, y: number, color: string): string {
  switch (kind) {
    case 'created':
      return `<circle cx="${n(x)}" cy="${n(y)}" r="5.5" fill="${color}" stroke="#fff" stroke-width="1.8"/>`;
    case 'listed':
      return `<circle cx="${n(x)}" cy="${n(y)}" r="4.8" fill="#fff" stroke="${color}" stroke-width="2.4"/>`;
    case 'modified':
      return `<circle cx="${n(x)}" cy="${n(y)}" r="2.6" fill="${INK}" stroke="#fff" stroke-width="1.2"/>`;
    case 'delete-requested':
      return `<path d="M${n(x)} ${n(y - 7)}L${n(x + 7)} ${n(y)}L${n(x)} ${n(y + 7)}L${n(x - 7)} ${n(y)}Z" fill="${AMBER}" stroke="#fff" stroke-width="1.6"/>`;
    case 'gone': {
      const d = `M${n(x - 5)} ${n(y - 5)}L${n(x + 5)} ${n(y + 5)}M${n(x + 5)} ${n(y - 5)}L${n(x - 5)} ${n(y + 5)}`;
      return `<path d="${d}" stroke="#fff" stroke-width="5.5" stroke-linecap="round"/><path d="${d}" stroke="${INK}" stroke-width="2.6" stroke-linecap="round"/>`;
    }
    case 'suspend':
      return (
        `<rect x="${n(x - 7)}" y="${n(y - 7)}" width="14" height="14" rx="3" fill="#fff" stroke="${color}" stroke-width="1.6"/>` +
        `<rect x="${n(x - 3.6)}" y="${n(y - 4)}" width="2.6" height="8" fill="${color}"/><rect x="${n(x + 1)}" y="${n(y - 4)}" width="2.6" height="8" fill="${color}"/>`
      );
    case 'resume':
      return (
        `<rect x="${n(x - 7)}" y="${n(y - 7)}" width="14" height="14" rx="3" fill="#fff" stroke="${color}" stroke-width="1.6"/>` +
        `<path d="M${n(x - 2.6)} ${n(y - 4.2)}L${n(x + 3.8)} ${n(y)}L${n(x - 2.6)} ${n(y + 4.2)}Z" fill="${color}"/>`
      );
  }
}

export function exitColor(code: number | undefined): string {
  return code === 0 ? GREEN : code === 137 ? RED : ORANGE;
}

export function exitText(x: Exit): string {
  return `${x.named ? `${x.container} ` : ''}exit ${x.code ?? '?'}`;
}

export const pillWidth = (text: string) => monoWidth(text, 10.5) + 10;

/** A pill with the exit code centred at `x`, on a stem down to the bar at `stemX`. */
export function exitPill(text: string, x: number, y: number, color: string, stemTo: number, stemX = x): { svg: string; from: number; to: number } {
  const w = pillWidth(text);
  const from = x - w / 2;
  const svg =
    `<line x1="${n(x)}" y1="${n(y + 8)}" x2="${n(stemX)}" y2="${n(stemTo)}" stroke="${color}" stroke-width="1.5"/>` +
    `<rect x="${n(from)}" y="${n(y - 8)}" width="${n(w)}" height="16" rx="8" fill="${color}"/>` +
    `<text x="${n(x)}" y="${n(y + 3.8)}" text-anchor="middle" font-family="${MONO}" font-size="10.5" font-weight="700" fill="#fff">${esc(text)}</text>`;
  return { svg, from, to: from + w };
}

/** A stretch of an object's life; `sample` for the legend (no class, so it never counts as data). */
export function barRect(x0: number, x1: number, y: number, mode: Mode, style: LaneStyle, sample = false): string {
  const w = Math.max(x1 - x0, 1.5);
  const common = `${sample ? '' : `class="tl-bar tl-bar-${mode}" `}x="${n(x0)}" y="${n(y)}" width="${n(w)}" height="${BAR_H}" rx="3"`;
  switch (mode) {
    case 'running':
      return `<rect ${common} fill="${style.color}" fill-opacity="0.82"/>`;
    case 'terminating':
      return `<rect ${common} fill="url(#tl-hatch-${style.key})" stroke="${style.color}" stroke-width="1.2"/>`;
    case 'suspended':
      return `<rect ${common} fill="${style.pale}" stroke="${style.color}" stroke-width="1.2" stroke-dasharray="4 3"/>`;
  }
}

export function hatchPattern(style: LaneStyle): string {
  return (
    `<pattern id="tl-hatch-${style.key}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
    `<rect width="6" height="6" fill="${style.pale}"/><rect width="2.6" height="6" fill="${style.color}"/></pattern>`
  );
}

export function arrowMarker(id: string, color: string): string {
  return `<marker id="${id}" viewBox="0 0 10 10" refX="8.5" refY="5" markerWidth="5" markerHeight="5" orient="auto"><path d="M0 0L10 5L0 10Z" fill="${color}"/></marker>`;
}

/** Spans already taken in a strip, to keep small captions from overprinting each other. */
export class Strip {
  private readonly taken: [number, number][] = [];
  fits(from: number, to: number): boolean {
    return this.taken.every(([a, b]) => to <= a || from >= b);
  }
  take(from: number, to: number): void {
    this.taken.push([from, to]);
  }
}
