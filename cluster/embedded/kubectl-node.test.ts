import { test, expect } from '@playwright/test';
import { KubectlFixture, tableRows } from './test-kit.ts';

/**
 * Real kubectl against Pods the node agent runs as processes: `logs` (tail, timestamps, follow
 * until the container exits, previous after a restart), `exec` (stdout, stderr, stdin, exit
 * codes), `get -w` over a Pod's whole life and `wait --for=condition=Ready`. Containers are held
 * at a step by waiting for a file under $POD_ROOT that the test creates through `kubectl exec`,
 * so every order is the containers' own, never a sleep in the test.
 */

test.describe.configure({ mode: 'default' });
const k = KubectlFixture.register({ node: { backoffMs: 100, maxBackoffMs: 400 } });
const eventually = { timeout: 30_000 };

/** A one-container Pod `main` running `script` with sh; `extra` is appended to the container (YAML, 4-space indent). */
function shellPod(name: string, script: string, options: { restartPolicy?: string; extra?: string; volumes?: string } = {}): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 5
  restartPolicy: ${options.restartPolicy ?? 'Always'}
  containers:
  - name: main
    image: busybox:1.36
    command: ["sh", "-c", ${JSON.stringify(script)}]
${options.extra ?? ''}${options.volumes ?? ''}`;
}

/** Waits in the container until `$POD_ROOT/<file>` exists. */
const awaitFile = (file: string) => `while [ ! -f "$POD_ROOT/${file}" ]; do sleep 0.05; done`;
/** Stops on SIGTERM at once (sh does not forward signals to a foreground child). */
const IDLE = 'trap "exit 0" TERM; sleep 1000 & wait';

async function touch(ns: string, pod: string, file: string): Promise<void> {
  expect(await k.ok(['-n', ns, 'exec', pod, '--', 'sh', '-c', `touch "$POD_ROOT/${file}"`])).toBe('');
}

test('logs: all lines, --tail, --timestamps, and -f that ends when the container exits', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, shellPod('talker', `echo one; echo two; echo three; ${awaitFile('go')}; echo four`, { restartPolicy: 'Never' }));
  expect(await k.ok(['-n', ns, 'wait', '--for=condition=Ready', 'pod/talker', '--timeout=30s'])).toBe('pod/talker condition met');
  await expect.poll(async () => (await k.run(['-n', ns, 'logs', 'talker'])).stdout, eventually).toBe('one\ntwo\nthree');

  expect(await k.ok(['-n', ns, 'logs', 'talker', '--tail=1'])).toBe('three');
  expect(await k.ok(['-n', ns, 'logs', 'talker', '--tail=2', '-c', 'main'])).toBe('two\nthree');
  const stamped = (await k.ok(['-n', ns, 'logs', 'talker', '--timestamps'])).split('\n');
  expect(stamped).toHaveLength(3);
  stamped.forEach((line, i) => expect(line).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z ${['one', 'two', 'three'][i]}$`)));
  const times = stamped.map((line) => line.split(' ')[0]);
  expect([...times].sort()).toEqual(times);
  // No restart yet: there is no previous container.
  expect(await k.fails(['-n', ns, 'logs', 'talker', '--previous'])).toBe('Error from server (BadRequest): previous terminated container "main" in pod "talker" not found');

  const follow = k.spawn(['-n', ns, 'logs', '-f', 'talker']);
  let out = '';
  follow.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await expect.poll(() => out, eventually).toBe('one\ntwo\nthree\n');
  expect(follow.exitCode).toBeNull(); // still following
  await touch(ns, 'talker', 'go');
  const ended = await follow;
  expect(ended.exitCode).toBe(0);
  expect(String(ended.stdout)).toBe('one\ntwo\nthree\nfour');
  // -f ended because the run ended: the container is terminated with its own exit code.
  await expect.poll(async () => k.ok(['-n', ns, 'get', 'pod', 'talker', '-o', 'jsonpath={.status.phase} {.status.containerStatuses[0].state.terminated.exitCode}']), eventually).toBe('Succeeded 0');
  // The log of a finished container stays readable.
  expect(await k.ok(['-n', ns, 'logs', 'talker'])).toBe('one\ntwo\nthree\nfour');
});

test('logs --previous: the run before the restart', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  // An emptyDir outlives container restarts: the count tells the runs apart; the first run fails.
  const script = `n=$(( $(cat "$POD_ROOT/data/n" 2>/dev/null || echo 0) + 1 )); echo $n > "$POD_ROOT/data/n"; echo run-$n; [ $n -ge 2 ] || exit 3; ${IDLE}`;
  await k.apply(
    ns,
    shellPod('restarter', script, {
      extra: '    volumeMounts:\n    - {name: data, mountPath: /data}\n',
      volumes: '  volumes:\n  - {name: data, emptyDir: {}}\n',
    }),
  );
  // (Not `wait --for=condition=Ready`: without a probe the first run counts as Ready for a moment too.)
  const fields = 'jsonpath={.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].ready} {.status.containerStatuses[0].lastState.terminated.exitCode}';
  await expect.poll(async () => k.ok(['-n', ns, 'get', 'pod', 'restarter', '-o', fields]), eventually).toBe('1 true 3');
  await expect.poll(async () => (await k.run(['-n', ns, 'logs', 'restarter'])).stdout, eventually).toBe('run-2');
  expect(await k.ok(['-n', ns, 'logs', 'restarter', '--previous'])).toBe('run-1');
  expect(await k.ok(['-n', ns, 'logs', 'restarter', '-p', '--timestamps'])).toMatch(/^\S+Z run-1$/);
});

test('exec: stdout and stderr, stdin with -i, exit codes propagate', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, shellPod('shell', IDLE, { extra: '    env:\n    - {name: GREETING, value: hello}\n' }));
  expect(await k.ok(['-n', ns, 'wait', '--for=condition=Ready', 'pod/shell', '--timeout=30s'])).toBe('pod/shell condition met');

  expect(await k.run(['-n', ns, 'exec', 'shell', '--', 'echo', 'hi', 'there'])).toEqual({ stdout: 'hi there', stderr: '', exitCode: 0 });
  // The container's environment, and its / as POD_ROOT.
  expect(await k.ok(['-n', ns, 'exec', 'shell', '-c', 'main', '--', 'sh', '-c', 'echo "$GREETING from $HOSTNAME"; test -d "$POD_ROOT" && echo rooted'])).toBe('hello from shell\nrooted');
  expect(await k.run(['-n', ns, 'exec', 'shell', '--', 'sh', '-c', 'echo out; echo err >&2'])).toEqual({ stdout: 'out', stderr: 'err', exitCode: 0 });

  expect(await k.run(['-n', ns, 'exec', '-i', 'shell', '--', 'tr', 'a-z', 'A-Z'], { input: 'from stdin\nsecond line\n' })).toEqual({
    stdout: 'FROM STDIN\nSECOND LINE',
    stderr: '',
    exitCode: 0,
  });
  expect(await k.ok(['-n', ns, 'exec', '-i', 'shell', '--', 'wc', '-l'], { input: 'a\nb\nc\n' })).toMatch(/^\s*3$/);

  const three = await k.run(['-n', ns, 'exec', 'shell', '--', 'sh', '-c', 'echo before; exit 3']);
  expect(three).toEqual({ stdout: 'before', stderr: 'command terminated with exit code 3', exitCode: 3 });
  const missing = await k.run(['-n', ns, 'exec', 'shell', '--', 'no-such-command-xyz']);
  expect(missing.exitCode).toBe(126);
  expect(missing.stderr).toContain('executable file not found in $PATH');
  expect(await k.fails(['-n', ns, 'exec', 'shell', '-c', 'nope', '--', 'true'])).toBe('Error from server (BadRequest): container nope is not valid for pod shell');
});

test('exec over SPDY (kubectl before 1.30, or WebSockets switched off): a clear error naming the oldest kubectl that works', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, shellPod('spdy', IDLE));
  await k.ok(['-n', ns, 'wait', '--for=condition=Ready', 'pod/spdy', '--timeout=30s']);
  const spdy = await k.fails(['-n', ns, 'exec', 'spdy', '--', 'echo', 'hi'], { env: { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' } });
  expect(spdy).toBe(
    'Error from server (BadRequest): the embedded cluster serves exec over WebSocket only (v5.channel.k8s.io, v4.channel.k8s.io); SPDY is not supported: use kubectl 1.30 or newer, or KUBECTL_REMOTE_COMMAND_WEBSOCKETS=true with kubectl 1.29',
  );
});

test('get pods -w --output-watch-events: a Pod goes Pending -> Running -> Terminating -> DELETED', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const opened = k.watchCounter('pods', ns);
  const watch = k.spawn(['-n', ns, 'get', 'pods', '-w', '--output-watch-events']);
  let out = '';
  watch.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  try {
    await opened.opened();
    await k.apply(ns, shellPod('life', IDLE));
    expect(await k.ok(['-n', ns, 'wait', '--for=condition=Ready', 'pod/life', '--timeout=30s'])).toBe('pod/life condition met');
    await expect.poll(() => out, eventually).toMatch(/^MODIFIED\s+life\s+1\/1\s+Running\s/m);
    // kubectl delete waits until the object is gone: the container stopped on SIGTERM.
    expect(await k.ok(['-n', ns, 'delete', 'pod', 'life'])).toBe('pod "life" deleted');
    await expect.poll(() => out, eventually).toMatch(/^DELETED\s+life\s/m);
  } finally {
    watch.kill();
    await watch;
  }
  const rows = tableRows(out);
  expect(rows[0]).toEqual(['EVENT', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
  const events = rows.slice(1).map(([event, name, ready, status]) => ({ event, name, ready, status }));
  expect(events.every((e) => e.name === 'life')).toBe(true);
  expect(events[0]).toEqual({ event: 'ADDED', name: 'life', ready: '0/1', status: 'Pending' });
  expect(events.at(-1)).toMatchObject({ event: 'DELETED', status: 'Terminating' });
  // The statuses in the order they were watched, repeats folded: exactly this life (ContainerCreating
  // shows when a kubelet status write lands between the binding and the container's start).
  const statuses = events.map((e) => e.status).filter((s, i, all) => i === 0 || all[i - 1] !== s);
  expect(['Pending Running Terminating', 'Pending ContainerCreating Running Terminating']).toContain(statuses.join(' '));
  expect(events.filter((e) => e.status === 'Running').map((e) => e.ready)).toContain('1/1');
  expect(events.filter((e) => e.event !== 'ADDED' && e.event !== 'DELETED').every((e) => e.event === 'MODIFIED')).toBe(true);
});

test('wait --for=condition=Ready returns once the readiness probe passes', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const probe = '    readinessProbe:\n      exec: {command: ["sh", "-c", "test -f \\"$POD_ROOT/ready\\""]}\n      periodSeconds: 1\n';
  await k.apply(ns, shellPod('gated', IDLE, { extra: probe }));
  await expect.poll(async () => k.ok(['-n', ns, 'get', 'pod', 'gated', '-o', 'jsonpath={.status.phase}']), eventually).toBe('Running');

  const opened = k.watchCounter('pods', ns);
  const waiting = k.spawn(['-n', ns, 'wait', '--for=condition=Ready', 'pod/gated', '--timeout=30s']);
  await opened.opened();
  // Running but not Ready: kubectl is still waiting.
  expect(waiting.exitCode).toBeNull();
  expect(tableRows(await k.ok(['-n', ns, 'get', 'pod', 'gated']))[1].slice(1, 3)).toEqual(['0/1', 'Running']);
  await touch(ns, 'gated', 'ready');
  const done = await waiting;
  expect(done.exitCode).toBe(0);
  expect(String(done.stdout)).toBe('pod/gated condition met');
  expect(await k.ok(['-n', ns, 'get', 'pod', 'gated', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).toBe('True');

  // And the other way round: a Pod whose container exited never becomes Ready; the wait times out.
  await k.apply(ns, shellPod('done', 'exit 0', { restartPolicy: 'Never' }));
  await expect.poll(async () => k.ok(['-n', ns, 'get', 'pod', 'done', '-o', 'jsonpath={.status.phase}']), eventually).toBe('Succeeded');
  const never = await k.run(['-n', ns, 'wait', '--for=condition=Ready', 'pod/done', '--timeout=1s']);
  expect(never.exitCode).toBe(1);
  expect(never.stderr).toBe('error: timed out waiting for the condition on pods/done');
});
