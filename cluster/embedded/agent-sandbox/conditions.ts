/**
 * The condition engine: reads a profile's tables (profiles.ts) against what a reconcile observed
 * and produces the next `status.conditions`, with meta.SetStatusCondition semantics (update in
 * place, append unseen types, keep lastTransitionTime unless the status flips).
 */
import type { KubeObject } from '../types.ts';
import type { AgentSandboxProfile, ConditionRule, ConditionType, Observed, RemoveRule } from './profiles.ts';

export interface Condition {
  type: string;
  status: string;
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** The Pod facts the status logic needs, from a Pod object or a test's description of one. */
export interface PodView {
  phase: string;
  ready: boolean;
  podIPs: string[];
  owned: boolean;
}

export interface ObservedInput {
  suspended: boolean;
  expired?: boolean;
  errors?: string[];
  /** The Pod as it stands (terminating or not); the profile decides whether status sees it. */
  pod?: PodView;
  /** Reconciling the Pod returned an error. */
  podError?: boolean;
  service?: Observed['service'];
}

export function podView(pod: KubeObject, owned: boolean): PodView {
  const status = (pod.status ?? {}) as { phase?: string; conditions?: { type: string; status: string }[]; podIPs?: { ip: string }[] };
  return {
    phase: status.phase ?? 'Pending',
    ready: (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
    podIPs: (status.podIPs ?? []).map((p) => p.ip).filter(Boolean),
    owned,
  };
}

/** Whether status reports the Pod: ≤v0.5.3 reports "no Pod" from the moment suspension begins. */
export function podSeenByStatus<T>(profile: AgentSandboxProfile, suspended: boolean, pod: T | undefined): T | undefined {
  return suspended && !profile.trackTerminatingPod ? undefined : pod;
}

export function observe(profile: AgentSandboxProfile, input: ObservedInput): Observed {
  const pod = podSeenByStatus(profile, input.suspended, input.pod);
  return {
    suspended: input.suspended,
    expired: input.expired ?? false,
    error: (input.errors ?? []).length > 0,
    pod: pod ? 'present' : 'absent',
    ...(pod ? { podPhase: pod.phase, podReady: pod.ready, podIPs: pod.podIPs.length > 0, podOwned: pod.owned } : {}),
    podError: input.podError ?? false,
    service: input.service ?? 'not-required',
  };
}

function matches(when: Partial<Observed>, observed: Observed): boolean {
  return Object.entries(when).every(([key, value]) => observed[key as keyof Observed] === value);
}

function fill(message: string, observed: Observed, errors: string[]): string {
  // errors.Join renders one error per line.
  return message.replace('{phase}', observed.podPhase ?? '').replace('{errors}', errors.join('\n'));
}

type Outcome = { status: string; reason: string; message: string } | 'remove' | 'keep';

function pick(rules: (ConditionRule | RemoveRule)[], observed: Observed, errors: string[]): Outcome {
  const rule = rules.find((r) => matches(r.when, observed));
  if (!rule) return 'keep';
  if ('remove' in rule) return 'remove';
  return { status: rule.status, reason: rule.reason, message: fill(rule.message, observed, errors) };
}

function ready(profile: AgentSandboxProfile, observed: Observed, errors: string[]): Outcome {
  const { readyGates, podReadiness, serviceSuffix, dependencies } = profile.conditions;
  const gate = pick(readyGates, observed, errors);
  if (gate !== 'keep') return gate;
  const pod = podReadiness.find((r) => matches(r.when, observed))!;
  let message = fill(pod.message, observed, errors);
  if (observed.service !== 'not-required') message += serviceSuffix[observed.service];
  const ok = pod.ready && observed.service !== 'missing';
  return { status: ok ? 'True' : 'False', reason: ok ? dependencies.ready : dependencies.notReady, message };
}

/** The next conditions list. `now` is the RFC 3339 time a transition is stamped with. */
export function nextConditions(
  profile: AgentSandboxProfile,
  observed: Observed,
  previous: Condition[] | undefined,
  generation: number,
  now: string,
  errors: string[] = [],
): Condition[] {
  const list = (previous ?? []).map((c) => ({ ...c }));
  const outcomes: Record<ConditionType, () => Outcome> = {
    Ready: () => ready(profile, observed, errors),
    Suspended: () => pick(profile.conditions.suspended, observed, errors),
    Finished: () => pick(profile.conditions.finished, observed, errors),
  };
  for (const type of profile.conditions.order) {
    // The expiry branch sets Ready only; everything else stays as it was (Finished is retained).
    if (observed.expired && type !== 'Ready') continue;
    const outcome = outcomes[type]();
    const index = list.findIndex((c) => c.type === type);
    if (outcome === 'keep') continue;
    if (outcome === 'remove') {
      if (index >= 0) list.splice(index, 1);
      continue;
    }
    const existing = list[index];
    const next: Condition = {
      type,
      status: outcome.status,
      observedGeneration: generation,
      lastTransitionTime: existing && existing.status === outcome.status ? existing.lastTransitionTime : now,
      reason: outcome.reason,
      message: outcome.message,
    };
    if (existing) list[index] = next;
    else list.push(next);
  }
  return list;
}

export function findCondition(conditions: Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

