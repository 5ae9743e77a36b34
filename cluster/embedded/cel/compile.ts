import { celEnv, isCelError, parse, plan, type CelInput, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { kubernetesLibrary } from './kubernetes-library.ts';

/**
 * CEL for the embedded API server, on @bufbuild/cel (a maintained, conformance-tested CEL
 * evaluator): parse, a declared-variables check, plan, evaluate. What the library lacks and
 * Kubernetes needs is added here, each for a stated reason:
 * - cel-go's compile step rejects identifiers the environment does not declare ("undeclared
 *   reference"); @bufbuild/cel only finds them at evaluation. The real server rejects such a
 *   policy or CRD when it is written, so we walk the parsed expression once for free identifiers.
 * - Error texts are cel-go's where clients see them (`no such key: x`, the `ERROR: <input>:l:c:`
 *   frame with its source line); syntax error details are @bufbuild/cel's own.
 * Not done: full type checking against object schemas, cost budgets.
 */

type ParsedExpr = ReturnType<typeof parse>;
type Expr = ParsedExpr['expr'];

export type CelBindings = Record<string, CelInput>;
export type CelOutcome = { value: CelValue } | { error: string };

export interface CompiledExpression {
  readonly expression: string;
  /** Declared variables the expression reads (`object`, `oldSelf`, ...). */
  readonly references: ReadonlySet<string>;
  /** Names read as `variables.<name>` (ValidatingAdmissionPolicy composition). */
  readonly variableReferences: ReadonlySet<string>;
  evaluate(bindings: CelBindings): CelOutcome;
}

/** A compile failure, worded as cel-go's `compilation failed: ERROR: ...` detail. */
export class CelCompileError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'CelCompileError';
  }
}

const environment = celEnv({ funcs: [...strings, ...kubernetesLibrary] });
const cache = new Map<string, CompiledExpression>();
const CACHE_LIMIT = 2000;

/** Compiles once per expression and declaration set; throws CelCompileError. */
export function compileCel(expression: string, declared: readonly string[]): CompiledExpression {
  const key = `${declared.join(',')}\u0000${expression}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const compiled = compileUncached(expression, new Set(declared));
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, compiled);
  return compiled;
}

function compileUncached(expression: string, declared: ReadonlySet<string>): CompiledExpression {
  let parsed: ParsedExpr;
  try {
    parsed = parse(expression);
  } catch (error) {
    throw new CelCompileError(`compilation failed: ${syntaxError(expression, error)}`);
  }
  const free = new Map<string, bigint>();
  const variableReferences = new Set<string>();
  collectFree(parsed.expr, new Set(), free, variableReferences);
  const positions = parsed.sourceInfo?.positions ?? {};
  const undeclared = [...free].filter(([name]) => !declared.has(name));
  if (undeclared.length) {
    const frames = undeclared
      .map(([name, id]) => ({ name, offset: positions[Number(id)] ?? 0 }))
      .sort((a, b) => a.offset - b.offset)
      .map(({ name, offset }) => frame(expression, offset, `undeclared reference to '${name}' (in container '')`));
    throw new CelCompileError(`compilation failed: ${frames.join('\n')}`);
  }
  const program = plan(environment, parsed);
  return {
    expression,
    references: new Set(free.keys()),
    variableReferences,
    evaluate(bindings) {
      let result: ReturnType<typeof program>;
      try {
        result = program(bindings);
      } catch (error) {
        return { error: (error as Error).message };
      }
      return isCelError(result) ? { error: celGoWording(result.message) } : { value: result };
    },
  };
}

/** Free identifiers with the id of their first use; comprehension variables are bound inside their loop. */
function collectFree(expr: Expr | undefined, bound: ReadonlySet<string>, free: Map<string, bigint>, variableRefs: Set<string>): void {
  if (!expr) return;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'identExpr':
      if (!bound.has(kind.value.name) && !free.has(kind.value.name)) free.set(kind.value.name, expr.id);
      return;
    case 'selectExpr': {
      const operand = kind.value.operand;
      if (operand?.exprKind.case === 'identExpr' && operand.exprKind.value.name === 'variables' && !bound.has('variables')) {
        variableRefs.add(kind.value.field);
      }
      collectFree(operand, bound, free, variableRefs);
      return;
    }
    case 'callExpr':
      collectFree(kind.value.target, bound, free, variableRefs);
      for (const arg of kind.value.args) collectFree(arg, bound, free, variableRefs);
      return;
    case 'listExpr':
      for (const element of kind.value.elements) collectFree(element, bound, free, variableRefs);
      return;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') collectFree(entry.keyKind.value, bound, free, variableRefs);
        collectFree(entry.value, bound, free, variableRefs);
      }
      return;
    case 'comprehensionExpr': {
      const c = kind.value;
      collectFree(c.iterRange, bound, free, variableRefs);
      collectFree(c.accuInit, bound, free, variableRefs);
      const inner = new Set([...bound, c.iterVar, c.accuVar, ...(c.iterVar2 ? [c.iterVar2] : [])]);
      for (const part of [c.loopCondition, c.loopStep, c.result]) collectFree(part, inner, free, variableRefs);
      return;
    }
    default:
      return;
  }
}

/** cel-go's error frame: `ERROR: <input>:line:col: message`, the source line, and a caret under the column. */
function frame(expression: string, offset: number, message: string): string {
  const before = [...expression].slice(0, offset).join('');
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return frameAt(expression, line, column, message);
}

function frameAt(expression: string, line: number, column: number, message: string): string {
  const text = expression.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${column}: ${message}\n | ${text}\n | ${'.'.repeat(Math.max(0, column - 1))}^`;
}

function syntaxError(expression: string, error: unknown): string {
  const located = error as { rawMessage?: string; location?: { start?: { line: number; column: number } } };
  const start = located.location?.start;
  if (!start || located.rawMessage === undefined) return `ERROR: <input>:1:1: Syntax error: ${(error as Error).message}`;
  return frameAt(expression, start.line, start.column, `Syntax error: ${located.rawMessage}`);
}

/** The runtime errors users meet most, in cel-go's words (the ones kube-apiserver prints). */
function celGoWording(message: string): string {
  const missing = /^field not found: (.*)$/.exec(message);
  if (missing) return `no such key: ${missing[1]}`;
  if (message === 'int divide by zero') return 'division by zero';
  if (message === 'int modulus by zero') return 'modulus by zero';
  return message;
}
