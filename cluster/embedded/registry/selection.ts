/**
 * Which objects a list or a watch selects: its label selector and its field selector over the
 * fields the kind makes selectable, and what a watcher of that selection sees of each change.
 */
import type { StoreEvent, WatchEventType } from '../store/object-store.ts';
import { commonFieldSelectors, fieldSelectorsByResource, parseFieldSelector } from '../store/field-selectors.ts';
import { parseLabelSelector } from '../store/label-selectors.ts';
import type { KubeObject } from '../types.ts';
import type { ResourceType } from './resource-type.ts';

/** The selectors as one test; a bad selector is a 400 (the label selector's reported first). */
export function selectionOf(type: ResourceType, options: { labelSelector?: string; fieldSelector?: string }): (object: KubeObject) => boolean {
  const labels = parseLabelSelector(options.labelSelector ?? '');
  const fields = parseFieldSelector(options.fieldSelector ?? '', [...commonFieldSelectors, ...(type.builtin ? fieldSelectorsByResource[type.plural] ?? [] : [])]);
  return (object) => labels(object.metadata.labels) && fields(object);
}

/** The event a watcher of the selection sees for a change, if any: entering the selection is ADDED, leaving it DELETED. */
export function selectedEvent(event: StoreEvent, selected: (object: KubeObject | undefined) => boolean): WatchEventType | undefined {
  const now = event.type === 'DELETED' ? false : selected(event.object);
  const before = selected(event.previous);
  if (event.type === 'DELETED') return before ? 'DELETED' : undefined;
  if (event.type === 'ADDED') return now ? 'ADDED' : undefined;
  if (now && before) return 'MODIFIED';
  if (now) return 'ADDED';
  return before ? 'DELETED' : undefined;
}
