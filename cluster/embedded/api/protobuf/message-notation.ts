/**
 * Kubernetes' protobuf messages written as data: one string per message, one token per field,
 * `jsonName=fieldNumber[:type][[]][!|^]`:
 *   - type: `string` when left out; `int32`, `int64`, `bool`, `bytes`; `map<string,T>`; or a message name;
 *   - `[]` a repeated field;
 *   - `!` a scalar the Go type always writes to JSON, zero or not (a pointer, or a field without
 *     omitempty): the wire cannot tell "0" from "unset", so this is what decides whether a zero stays;
 *   - `^` an embedded Go struct: its fields appear inline in the parent's JSON (Volume's VolumeSource).
 * Field numbers and names are k8s.io/api's (facts); the tables and the notation are this project's.
 * protobufjs does the wire decoding; to-json.ts turns its messages into the JSON the server stores.
 */
export type MessageTable = Record<string, string>;
