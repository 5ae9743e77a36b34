/**
 * Smaller variants of a call program, one change each: a step left out, one call of a step of
 * several left out, a sandbox left out with every call on it. Fewer calls first: the shrinker
 * takes the first variant that still fails and asks again from there.
 */
import type { Program } from '../program/program.ts';

export interface ProgramVariant {
  what: string;
  program: Program;
}

export function programVariants(program: Program): ProgramVariant[] {
  const out: ProgramVariant[] = [];
  if (program.sandboxes.length > 1) {
    for (const [drop, sandbox] of program.sandboxes.entries()) {
      // The calls on later sandboxes name them one index lower.
      const steps = program.steps
        .map((s) => ({ calls: s.calls.filter((c) => c.sandbox !== drop).map((c) => (c.sandbox !== undefined && c.sandbox > drop ? { ...c, sandbox: c.sandbox - 1 } : c)) }))
        .filter((s) => s.calls.length);
      out.push({ what: `without sandbox ${sandbox.name}`, program: { sandboxes: program.sandboxes.filter((_, i) => i !== drop), steps } });
    }
  }
  for (const [drop] of program.steps.entries()) {
    if (program.steps.length > 1) out.push({ what: `without step ${drop + 1}`, program: { ...program, steps: program.steps.filter((_, i) => i !== drop) } });
  }
  for (const [at, step] of program.steps.entries()) {
    if (step.calls.length < 2) continue;
    for (const [drop] of step.calls.entries()) {
      out.push({ what: `step ${at + 1} without its call ${drop + 1}`, program: { ...program, steps: program.steps.map((s, i) => (i === at ? { calls: s.calls.filter((_, j) => j !== drop) } : s)) } });
    }
  }
  return out;
}
