/**
 * Query parameters read as kube-apiserver reads them, over raw HTTPS: booleans through
 * apimachinery's string-to-bool conversion (only absent, "0" and "false" in any case are false,
 * so the Python client's `watch=True` streams), integers through strconv.ParseInt (a bad one is
 * 400 with ParseInt's message and the parameter named as the cause's field).
 */
import { expect } from '@playwright/test';
import { refused, test, type RequestFn } from './test-kit.ts';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

async function seed(call: RequestFn, names: string[]): Promise<void> {
  for (const name of names) {
    const reply = await call('POST', CONFIGMAPS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } } });
    expect(reply.status, reply.text).toBe(201);
  }
}

/** The watch stream's events; timeoutSeconds=1 makes the server end it, so the reply completes. */
function events(text: string): { type: string; object: { metadata: { name: string } } }[] {
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
}

for (const value of ['True', 'true', 'TRUE', 't', '1', 'yes', '']) {
  test(`watch=${value} streams`, async ({ call }) => {
    await seed(call, ['one']);
    const reply = await call('GET', `${CONFIGMAPS}?watch=${value}&timeoutSeconds=1`);
    expect(reply.status).toBe(200);
    expect(reply.headers['transfer-encoding']).toBe('chunked');
    expect(events(reply.text).map((e) => [e.type, e.object.metadata.name])).toContainEqual(['ADDED', 'one']);
  });
}

for (const value of ['false', 'False', 'FALSE', '0']) {
  test(`watch=${value} lists`, async ({ call }) => {
    await seed(call, ['one']);
    const reply = await call('GET', `${CONFIGMAPS}?watch=${value}`);
    expect(reply.status).toBe(200);
    expect(reply.body.kind).toBe('ConfigMapList');
    expect(reply.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain('one');
  });
}

test('integers as ParseInt reads them: a sign is fine', async ({ call }) => {
  await seed(call, ['a', 'b', 'c']);
  const reply = await call('GET', `${CONFIGMAPS}?limit=%2B2`);
  expect(reply.body.items).toHaveLength(2);
  expect(reply.body.metadata.continue).toBeTruthy();
});

const badIntegers: [string, string, string][] = [
  ['limit', 'abc', 'invalid syntax'],
  ['limit', '', 'invalid syntax'],
  ['limit', '1.5', 'invalid syntax'],
  ['limit', '0x10', 'invalid syntax'],
  ['limit', '99999999999999999999', 'value out of range'],
  ['timeoutSeconds', ' 5', 'invalid syntax'],
];
for (const [name, value, why] of badIntegers) {
  test(`${name}=${JSON.stringify(value)}: 400 with ParseInt's message, naming the parameter`, async ({ cluster, call }) => {
    const watch = name === 'timeoutSeconds' ? '&watch=true' : '';
    const reply = await refused(
      cluster,
      call,
      () => call('GET', `${CONFIGMAPS}?${name}=${encodeURIComponent(value)}${watch}`),
      400,
      'BadRequest',
      `strconv.ParseInt: parsing ${JSON.stringify(value)}: ${why}`,
    );
    expect(reply.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: name, message: `Invalid value: ${JSON.stringify(value)}` }]);
  });
}

test('a bad gracePeriodSeconds on DELETE: 400, nothing deleted', async ({ cluster, call }) => {
  await seed(call, ['kept']);
  await refused(cluster, call, () => call('DELETE', `${CONFIGMAPS}/kept?gracePeriodSeconds=soon`), 400, 'BadRequest', 'strconv.ParseInt: parsing "soon": invalid syntax');
  expect(cluster.store.get('configmaps', 'default', 'kept')).toBeDefined();
});
