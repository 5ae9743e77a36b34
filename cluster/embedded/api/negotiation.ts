import { ApiError } from '../errors.ts';

/**
 * The server answers in JSON only. Clients that also accept JSON (kubectl sends
 * `application/vnd.kubernetes.protobuf, application/json` from its typed clients) get JSON; a client
 * that accepts protobuf and nothing else gets 406, as kube-apiserver answers an Accept it cannot meet.
 */
export function assertJsonAcceptable(accept: string | undefined): void {
  if (!accept || !accept.includes('protobuf')) return;
  const types = accept.split(',').map((part) => part.split(';')[0].trim().toLowerCase()).filter(Boolean);
  const json = types.some((t) => t === 'application/json' || t === '*/*' || t === 'application/*' || t === 'application/yaml' || t === 'text/plain');
  if (!json && types.every((t) => t.startsWith('application/vnd.kubernetes.protobuf'))) {
    throw new ApiError(406, 'NotAcceptable', 'only the following media types are accepted: application/json');
  }
}
