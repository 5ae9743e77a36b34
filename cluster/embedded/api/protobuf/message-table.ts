import protobuf from 'protobufjs';
import { CORE_V1 } from './messages-core-v1.ts';
import { GROUP_MESSAGES } from './messages-groups.ts';
import { META_MESSAGES } from './messages-meta.ts';
import type { MessageTable } from './message-notation.ts';


export interface FieldInfo {
  json: string;
  id: number;
  /** Scalar name, message name, or the value type of a map. */
  type: string;
  repeated: boolean;
  map: boolean;
  keepZero: boolean;
  inline: boolean;
}

const TOKEN = /^(\w+)=(\d+)(?::(map<string,\w+>|\w+))?(\[\])?([!^])?$/;
export const SCALARS = new Set(['string', 'int32', 'int64', 'bool', 'bytes', 'double']);

function parseFields(message: string, spec: string): FieldInfo[] {
  return spec.split(/\s+/).filter(Boolean).map((token) => {
    const match = TOKEN.exec(token);
    if (!match) throw new Error(`protobuf table: bad field "${token}" in ${message}`);
    const [, json, id, rawType = 'string', repeated, flag] = match;
    const map = rawType.startsWith('map<');
    return {
      json,
      id: Number(id),
      type: map ? rawType.slice('map<string,'.length, -1) : rawType,
      repeated: !!repeated,
      map,
      keepZero: flag === '!',
      inline: flag === '^',
    };
  });
}

export interface MessageSchema {
  root: protobuf.Root;
  fields: Map<string, FieldInfo[]>;
  type(name: string): protobuf.Type;
}

/** Builds the protobufjs types of every table once; message names are unique across the tables. */
function build(): MessageSchema {
  const root = new protobuf.Root();
  const namespace = root.define('k8s');
  const fields = new Map<string, FieldInfo[]>();
  for (const table of [META_MESSAGES, CORE_V1, GROUP_MESSAGES]) {
    for (const [name, spec] of Object.entries(table)) {
      if (fields.has(name)) throw new Error(`protobuf table: message ${name} is declared twice`);
      const list = parseFields(name, spec);
      fields.set(name, list);
      const type = new protobuf.Type(name);
      for (const f of list) {
        type.add(f.map ? new protobuf.MapField(f.json, f.id, 'string', f.type) : new protobuf.Field(f.json, f.id, f.type, f.repeated ? 'repeated' : 'optional'));
      }
      namespace.add(type);
    }
  }
  root.resolveAll();
  return { root, fields, type: (name) => namespace.lookupType(name) };
}

let schema: MessageSchema | undefined;

/** The message schema, built at first use (a server that never sees protobuf never pays for it). */
export function messageSchema(): MessageSchema {
  schema ??= build();
  return schema;
}
