import protobuf from 'protobufjs';
import { metaTime } from '../../types.ts';
import type { FieldInfo, MessageSchema } from './message-table.ts';

type Decoded = Record<string, unknown>;

/**
 * Turns a decoded protobuf message into the JSON object a Go server would write for the same Go
 * struct: zero scalars left out unless the Go field always carries them (`!`), embedded structs
 * inlined, and apimachinery's own JSON forms for Time (RFC 3339), Quantity and IntOrString
 * (a string or a number), FieldsV1 (the JSON it wraps), ExtraValue (a list) and bytes (base64).
 */
export function toKubernetesJson(schema: MessageSchema, typeName: string, message: Decoded): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const field of schema.fields.get(typeName) ?? []) {
    if (!Object.prototype.hasOwnProperty.call(message, field.json)) continue;
    const raw = message[field.json];
    if (field.inline) {
      Object.assign(result, toKubernetesJson(schema, field.type, raw as Decoded));
      continue;
    }
    const value = convertField(schema, field, raw);
    if (value !== undefined) result[field.json] = value;
  }
  return result;
}

function convertField(schema: MessageSchema, field: FieldInfo, raw: unknown): unknown {
  if (field.map) {
    const entries = Object.entries(raw as Decoded).map(([key, value]) => [key, convertValue(schema, field.type, value, true)]);
    return entries.length ? Object.fromEntries(entries) : undefined;
  }
  if (field.repeated) {
    const items = (raw as unknown[]).map((item) => convertValue(schema, field.type, item, true));
    return items.length ? items : undefined;
  }
  return convertValue(schema, field.type, raw, field.keepZero);
}

/** `keepZero`: list items and map values keep a zero value; a plain field drops it as omitempty would. */
function convertValue(schema: MessageSchema, type: string, raw: unknown, keepZero: boolean): unknown {
  switch (type) {
    case 'string':
      return raw === '' && !keepZero ? undefined : raw;
    case 'bool':
      return raw === false && !keepZero ? undefined : raw;
    case 'int32':
    case 'double':
      return raw === 0 && !keepZero ? undefined : raw;
    case 'int64': {
      const n = longToNumber(raw);
      return n === 0 && !keepZero ? undefined : n;
    }
    case 'bytes': {
      const text = Buffer.from(raw as Uint8Array).toString('base64');
      return text === '' && !keepZero ? undefined : text;
    }
    case 'Time': {
      const { seconds, nanos } = raw as { seconds?: unknown; nanos?: number };
      const s = longToNumber(seconds ?? 0);
      // Go's zero time marshals to null; left out, as kube-apiserver fills creation times itself.
      if (s === 0 && !nanos) return undefined;
      return metaTime(new Date(s * 1000));
    }
    case 'MicroTime': {
      const { seconds, nanos } = raw as { seconds?: unknown; nanos?: number };
      const s = longToNumber(seconds ?? 0);
      if (s === 0 && !nanos) return undefined;
      const micros = String(Math.floor((nanos ?? 0) / 1000)).padStart(6, '0');
      return new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, `.${micros}Z`);
    }
    case 'Quantity':
      return (raw as { string?: string }).string ?? '0';
    case 'IntOrString': {
      const v = raw as { type?: unknown; intVal?: number; strVal?: string };
      return longToNumber(v.type ?? 0) === 1 ? v.strVal ?? '' : v.intVal ?? 0;
    }
    case 'FieldsV1': {
      const bytes = (raw as { Raw?: Uint8Array }).Raw;
      return bytes && bytes.length ? JSON.parse(Buffer.from(bytes).toString('utf8')) : {};
    }
    case 'ExtraValue':
      return [...((raw as { items?: string[] }).items ?? [])];
    default:
      return toKubernetesJson(schema, type, raw as Decoded);
  }
}

function longToNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  return protobuf.util.LongBits.from(value as protobuf.Long).toNumber(false);
}
