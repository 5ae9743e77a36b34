/**
 * The look of the timeline pictures: escaping, number formatting, fonts, colours, lane styles
 * and the swimlane's geometry. Shared by the SVG and the HTML page, so both read the same.
 */
import type { VerdictStatus } from '../../evaluate/verdict.ts';

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text and attribute values for XML/HTML; characters XML 1.0 forbids become U+FFFD. */
export function escapeXml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD')
    .replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);
}

export const esc = escapeXml;

/** Coordinates with one decimal, never `-0`. */
export function n(value: number): string {
  const r = Math.round(value * 10) / 10;
  return String(r === 0 ? 0 : r);
}

export const SANS = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'DejaVu Sans', sans-serif";
export const MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace";

export const INK = '#0f172a';
export const MUTED = '#64748b';
export const FAINT = '#94a3b8';
export const RULE = '#e2e8f0';
export const RED = '#dc2626';
export const GREEN = '#16a34a';
export const ORANGE = '#ea580c';
export const AMBER = '#d97706';
export const STEP = '#4f46e5';
/** Faults of a schedule: their rows and the lines marking when they fired and healed. */
export const FAULT = '#a21caf';
export const FAULT_ROW_H = 18;
export const GAP = '#64748b';

export const STATUS_COLOR: Record<VerdictStatus, string> = { PASS: GREEN, FAIL: RED, INCONCLUSIVE: ORANGE };

export interface LaneStyle {
  key: string;
  color: string;
  pale: string;
}

export const LANE_STYLE = {
  sandbox: { key: 'sandbox', color: '#7c3aed', pale: '#ede9fe' },
  supervisor: { key: 'supervisor', color: '#2563eb', pale: '#dbeafe' },
  workload: { key: 'workload', color: '#0d9488', pale: '#ccfbf1' },
  pod: { key: 'pod', color: '#475569', pale: '#e2e8f0' },
  secret: { key: 'secret', color: '#b45309', pale: '#fef3c7' },
} satisfies Record<string, LaneStyle>;

/** Rough text widths, enough to place labels and size boxes (monospace is exact: 0.6em). */
export const monoWidth = (text: string, size: number) => text.length * size * 0.6;
export const sansWidth = (text: string, size: number) => text.length * size * 0.58;

// ───────────────────────────── geometry ─────────────────────────────

export const W = 1200;
export const LABEL_W = 250;
export const PLOT_X0 = LABEL_W + 22;
export const PLOT_X1 = W - 44;
export const HEADER_H = 64;
export const STEP_ROW_H = 19;
export const LANE_H = 58;
/** Within a lane: the label zone (exit codes, small captions) on top, the lifetime bar below. */
export const LABEL_ZONE_Y = 15;
export const BAR_Y = 37;
export const BAR_H = 12;

export function truncateMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}

export function truncateEnd(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
