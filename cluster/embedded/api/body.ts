import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { ApiError, errors } from '../errors.ts';
import type { PatchType } from '../registry/object-api.ts';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from './protobuf/decode.ts';

/** kube-apiserver's request body limit (3 MiB); larger bodies get 413. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    req.resume();
    throw errors.tooLarge(MAX_BODY_BYTES);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      req.resume();
      throw errors.tooLarge(MAX_BODY_BYTES);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * Decodes a create/update body: JSON, YAML (which kube-apiserver also accepts) or Kubernetes protobuf
 * (what kubectl's typed clients write). With `kind`
 * (the kind the endpoint takes), a body that does not parse is reported as kube-apiserver's
 * transformDecodeError words it: `the object provided is unrecognized (must be of type Pod): ...`.
 */
export function decodeObject(req: IncomingMessage, body: Buffer, kind?: string): unknown {
  const type = mediaType(req);
  if (type === 'application/json' || type === '') return unrecognized(kind, body, () => parseJson(body));
  if (type === 'application/yaml') return unrecognized(kind, body, () => parseYamlBody(body));
  if (type === PROTOBUF_MEDIA_TYPE) return unrecognized(kind, body, () => decodeProtobufObject(body));
  throw errors.unsupportedMediaType(type, ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE]);
}

function unrecognized(kind: string | undefined, body: Buffer, decode: () => unknown): unknown {
  try {
    return decode();
  } catch (error) {
    if (!kind || !(error instanceof ApiError) || error.code !== 400) throw error;
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${kind}): ${error.message} (${summarizeData(body, 30)})`);
  }
}

/** apiserver's summarizeData: an object's first bytes as text, anything else in hex. */
function summarizeData(data: Buffer, maxLength: number): string {
  if (data.length === 0) return '<empty>';
  const head = data.subarray(0, maxLength);
  const more = data.length > maxLength ? ' ...' : '';
  return data[0] === 0x7b ? head.toString('utf8') + more : head.toString('hex') + more;
}

const PATCH_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

/** `builtin` false (custom resources): strategic merge patch is not among the accepted types. */
export function decodePatch(req: IncomingMessage, body: Buffer, builtin = true): { patchType: PatchType; patch: unknown } {
  const type = mediaType(req);
  const accepted = Object.keys(PATCH_TYPES).filter((t) => builtin || PATCH_TYPES[t] !== 'strategic');
  const patchType = accepted.includes(type) ? PATCH_TYPES[type] : undefined;
  if (!patchType) throw errors.unsupportedMediaType(type, accepted);
  if (patchType !== 'apply') return { patchType, patch: parseJson(body) };
  try {
    return { patchType, patch: parseYamlBody(body) };
  } catch (error) {
    // The apply patcher's own wording around the YAML decoder's error.
    if (error instanceof ApiError && error.code === 400) throw errors.badRequest(`error decoding YAML: ${error.message}`);
    throw error;
  }
}

function parseJson(body: Buffer): unknown {
  if (body.length === 0) throw errors.badRequest('the request body is empty; a JSON object is required');
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw errors.badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`);
  }
}

function parseYamlBody(body: Buffer): unknown {
  if (body.length === 0) throw errors.badRequest('the request body is empty; a YAML or JSON object is required');
  try {
    return parseYaml(body.toString('utf8'));
  } catch (error) {
    throw errors.badRequest(`error converting YAML to JSON: ${(error as Error).message.split('\n')[0]}`);
  }
}
