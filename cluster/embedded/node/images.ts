/** What an image runs when the Pod gives no command: its ENTRYPOINT and CMD. */
export interface ImageProgram {
  entrypoint: string[];
  cmd?: string[];
}

/** Image references (`repo:tag`, `repo` for any tag) the embedded runtime can "pull". */
export type ImageCatalog = Record<string, ImageProgram>;

export type ResolvedCommand = { argv: string[] } | { pullError: string };

function repository(image: string): string {
  const at = image.indexOf('@');
  const withoutDigest = at >= 0 ? image.slice(0, at) : image;
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(0, colon) : withoutDigest;
}

/**
 * The embedded runtime's contract for images: an image in the catalog runs its program
 * (the Pod's command replaces the entrypoint, args replace CMD, as in Kubernetes); any other
 * image runs the Pod's `command` as a host process; an unknown image without a command
 * cannot be pulled (ErrImagePull).
 */
export function resolveCommand(catalog: ImageCatalog, image: string, command?: string[], args?: string[]): ResolvedCommand {
  const program = catalog[image] ?? catalog[repository(image)];
  if (program) {
    if (command && command.length) return { argv: [...command, ...(args ?? [])] };
    return { argv: [...program.entrypoint, ...(args ?? program.cmd ?? [])] };
  }
  if (command && command.length) return { argv: [...command, ...(args ?? [])] };
  return {
    pullError: `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": the embedded runtime runs only catalogued images or containers that give a command`,
  };
}
