/**
 * Bad list parameters over the wire: invalid label and field selectors and a garbage continue
 * token are 400 with kube-apiserver's words, and the server keeps serving. Raw HTTPS.
 */

import { CONFIGMAPS, PODS, refused, test } from './test-kit.ts';

test.describe('list parameters', () => {
  test('an invalid labelSelector: 400', async ({ cluster, call }) => {
    await refused(
      cluster,
      call,
      () => call('GET', `${CONFIGMAPS}?labelSelector=${encodeURIComponent('=x')}`),
      400,
      'BadRequest',
      "found '=', expected: !, identifier, or 'end of string'",
    );
    await refused(
      cluster,
      call,
      () => call('GET', `${CONFIGMAPS}?labelSelector=${encodeURIComponent('app in (a')}`),
      400,
      'BadRequest',
      /^unable to parse requirement: found '', expected: ',' or '\)'$/,
    );
  });

  test('an invalid fieldSelector: 400', async ({ cluster, call }) => {
    await refused(
      cluster,
      call,
      () => call('GET', `${PODS}?fieldSelector=${encodeURIComponent('spec.bogus=x')}`),
      400,
      'BadRequest',
      'field label not supported: spec.bogus',
    );
    await refused(
      cluster,
      call,
      () => call('GET', `${PODS}?fieldSelector=nonsense`),
      400,
      'BadRequest',
      "invalid selector: 'nonsense'; can't understand 'nonsense'",
    );
    // The same on a watch.
    await refused(
      cluster,
      call,
      () => call('GET', `${PODS}?watch=true&fieldSelector=${encodeURIComponent('spec.bogus=x')}`),
      400,
      'BadRequest',
      'field label not supported: spec.bogus',
    );
  });

  test('a garbage continue token: 400', async ({ cluster, call }) => {
    await refused(cluster, call, () => call('GET', `${CONFIGMAPS}?limit=1&continue=garbage!!`), 400, 'BadRequest', /^invalid continue token/);
    const notJson = Buffer.from('{"rv": "x"').toString('base64url');
    await refused(cluster, call, () => call('GET', `${CONFIGMAPS}?limit=1&continue=${notJson}`), 400, 'BadRequest', /^invalid continue token/);
  });
});
