import { celMethod, CelScalar, isCelList, listType, type CelFunc, type CelList, type CelValue } from '@bufbuild/cel';

/**
 * The parts of Kubernetes' own CEL libraries that @bufbuild/cel does not ship, small enough to
 * write here: the list library (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf` over
 * lists of numbers, strings or bools) and the regex library (`find`, `findAll`). The regex
 * functions use JavaScript's RegExp, which agrees with RE2 on the common syntax.
 * Not provided: quantity, url, ip/cidr, semver, authorizer, sets.
 */

type Scalar = bigint | number | string | boolean;

function scalars(list: CelList, fn: string): Scalar[] {
  const items = [...list];
  for (const item of items) {
    if (!['bigint', 'number', 'string', 'boolean'].includes(typeof item)) {
      throw new Error(`no such overload: ${fn} on a list of ${isCelList(item) ? 'list' : typeof item}`);
    }
  }
  return items as Scalar[];
}

function compare(a: Scalar, b: Scalar): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function extreme(list: CelList, fn: string, pick: (order: number) => boolean): CelValue {
  const items = scalars(list, fn);
  if (items.length === 0) throw new Error(`${fn}(list) called on an empty list`);
  return items.reduce((best, item) => (pick(compare(item, best)) ? item : best));
}

const DYN_LIST = listType(CelScalar.DYN);

function regex(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'g');
  } catch (error) {
    throw new Error(`invalid regex: ${(error as Error).message}`);
  }
}

export const kubernetesLibrary: CelFunc[] = [
  celMethod('isSorted', DYN_LIST, [], CelScalar.BOOL, function () {
    const items = scalars(this, 'isSorted');
    return items.every((item, i) => i === 0 || compare(items[i - 1], item) <= 0);
  }),
  celMethod('sum', DYN_LIST, [], CelScalar.DYN, function () {
    const items = scalars(this, 'sum');
    if (items.every((i) => typeof i === 'bigint')) return (items as bigint[]).reduce((a, b) => a + b, 0n);
    if (items.every((i) => typeof i === 'number')) return (items as number[]).reduce((a, b) => a + b, 0);
    throw new Error('no such overload: sum on a list that is not all int or all double');
  }),
  celMethod('min', DYN_LIST, [], CelScalar.DYN, function () {
    return extreme(this, 'min', (order) => order < 0);
  }),
  celMethod('max', DYN_LIST, [], CelScalar.DYN, function () {
    return extreme(this, 'max', (order) => order > 0);
  }),
  celMethod('indexOf', DYN_LIST, [CelScalar.DYN], CelScalar.INT, function (wanted) {
    return BigInt(scalars(this, 'indexOf').findIndex((item) => item == (wanted as Scalar)));
  }),
  celMethod('lastIndexOf', DYN_LIST, [CelScalar.DYN], CelScalar.INT, function (wanted) {
    const items = scalars(this, 'lastIndexOf');
    for (let i = items.length - 1; i >= 0; i--) if (items[i] == (wanted as Scalar)) return BigInt(i);
    return -1n;
  }),
  celMethod('find', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (pattern) {
    return regex(pattern).exec(this)?.[0] ?? '';
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING], listType(CelScalar.STRING), function (pattern) {
    return [...this.matchAll(regex(pattern))].map((m) => m[0]);
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING, CelScalar.INT], listType(CelScalar.STRING), function (pattern, limit) {
    const all = [...this.matchAll(regex(pattern))].map((m) => m[0]);
    return limit < 0n ? all : all.slice(0, Number(limit));
  }),
];
