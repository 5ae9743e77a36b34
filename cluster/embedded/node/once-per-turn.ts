/**
 * A burst of calls turned into one run on a later turn of the event loop: status writes and
 * proxy syncs follow the last of many changes, not each of them.
 */
export function oncePerTurn(action: () => void, stopped: () => boolean): () => void {
  let queued = false;
  return () => {
    if (queued || stopped()) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      if (!stopped()) action();
    });
  };
}
