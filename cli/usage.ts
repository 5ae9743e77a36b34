/** Bad input to the command: printed with a pointer to the help, exit status 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The subcommand whose help to point at (`sandbox-conformance <it> --help`). */
    readonly command?: string,
  ) {
    super(message);
  }
}

/** Where `run` (and the commands beside it) put reports by default: relative to where the command runs, never inside the package. */
export const DEFAULT_REPORT_DIR = './conformance-reports';
