import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { formatEntry } from '../derive/format.ts';
import type { FaultEntry, Timeline } from '../model.ts';
import { renderHtml } from './html.ts';
import { renderSwimlaneSvg } from './svg/swimlane.ts';

/**
 * A fault schedule in the picture and the text form, over a recording of `watch-held-during-stop`
 * (timeline/testdata/README.md): each item a row of its own above the objects, from its firing to
 * its heal, with dotted lines down through the lanes.
 */
const timeline = JSON.parse(readFileSync(new URL('../testdata/recorded-reference-watch-held.json', import.meta.url), 'utf8')) as Timeline;
const faults = timeline.entries.filter((e): e is FaultEntry => e.kind === 'fault');

test('the recording holds the schedule item firing, then healing', () => {
  expect(faults.map((f) => `${f.status} ${f.item} (${f.fault})`)).toEqual(['fired hold-pod-watches (watch-hold)', 'healed hold-pod-watches (watch-hold)']);
});

test('the text form names the item, its kind and what fired it', () => {
  expect(formatEntry(faults[0])).toMatch(/^\+43\.58s Fault {4}hold-pod-watches {2}FIRED {5}watch-hold: on the 1st DELETE pods \S+\/os-supervisor-\S+ \(replica 0, its write #15\) \(received\): matching watches held \(released: close\)$/);
  expect(formatEntry(faults[1])).toBe('+45.10s Fault    hold-pod-watches  HEALED    watch-hold: 1500 ms after it fired');
});

test('the swimlane draws the item as a bar from its firing to its heal, above the lanes, with lines through them', () => {
  const svg = renderSwimlaneSvg(timeline);
  expect(svg).toContain('>FAULTS</text>');
  const bar = /<g class="tl-fault" data-item="hold-pod-watches" data-fault="watch-hold"><title>fault hold-pod-watches · watch-hold: fired \+43\.58s, healed \+45\.10s — [^<]+<\/title><rect [^>]+fill-opacity="0.75"\/>/;
  expect(svg).toMatch(bar);
  expect(svg.match(/<g class="tl-fault-lines" data-item="hold-pod-watches">(.*?)<\/g>/)?.[1].match(/<line /g)).toHaveLength(2);
  // The rows sit between the steps and the first lane.
  const faultsLabel = svg.indexOf('>FAULTS</text>');
  expect(faultsLabel).toBeGreaterThan(0);
  expect(renderHtml(timeline, [])).toContain('<td>Fault</td><td>FIRED</td><td class="name">hold-pod-watches</td>');
});

test('a timeline without faults draws no fault rows (the pictures of every other recording are unchanged)', () => {
  const plain: Timeline = { ...timeline, entries: timeline.entries.filter((e) => e.kind !== 'fault') };
  expect(renderSwimlaneSvg(plain)).not.toContain('FAULTS');
});
