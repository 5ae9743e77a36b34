/**
 * Every client request the API server admits, told to listeners as its attributes once it is
 * authorized, before it is served. It changes nothing: tests count and spy on requests with it
 * (faults belong in front of the server, in the fault proxy, as on any cluster).
 */

/** A resource request as the server resolved it. */
export interface RequestAttributes {
  verb: string;
  group: string;
  plural: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** A list's or watch's label selector, as sent (an authorizer sees it too: Kubernetes' AuthorizeWithSelectors). */
  labelSelector?: string;
}

export type RequestListener = (request: RequestAttributes) => void;

export class RequestLog {
  private readonly listeners = new Set<RequestListener>();

  /** Hears every request from now on; returns the function that stops it. */
  listen(listener: RequestListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  record(request: RequestAttributes): void {
    for (const listener of this.listeners) listener(request);
  }
}
