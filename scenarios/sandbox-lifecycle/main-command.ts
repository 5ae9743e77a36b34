/**
 * The sandbox main command the scenarios run: it records each run in the workspace (the PVC at
 * /sandbox) and then stays up. `${POD_ROOT:-}` is the embedded runtime's view of `/`; in a real
 * container it is empty.
 */
export const RECORDING_MAIN_COMMAND = ['sh', '-c', 'echo started >> "${POD_ROOT:-}/sandbox/runs"; exec sleep 100000'];

export const inWorkspace = (file: string) => `"\${POD_ROOT:-}/sandbox/${file}"`;
