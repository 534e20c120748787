import type { Filter, SortSpec } from './port.ts';

/**
 * In-memory evaluation of the port's MongoDB-style filters and sorts, used by the embedded
 * adapter. Comparison order follows MongoDB's for the types we store:
 * null/missing < numbers < strings < booleans.
 */
export const getPath = (doc: unknown, path: string): unknown => {
  if (!path.includes('.')) return (doc as Record<string, unknown> | null | undefined)?.[path];
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (value === null || value === undefined) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
};

const typeRank = (value: unknown): number => {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number' || typeof value === 'bigint') return 1;
  if (typeof value === 'string') return 2;
  if (typeof value === 'boolean') return 3;
  return 4;
};

export const compareValues = (a: unknown, b: unknown): number => {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return 0;
  if (ra === 4) return JSON.stringify(a).localeCompare(JSON.stringify(b));
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
};

/** A filter value made of operators only (`{ $gt: 1, $lt: 5 }`), not a value to compare with. */
export const isOperatorObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value).length > 0 &&
  Object.keys(value).every((key) => key.startsWith('$'));

const equals = (actual: unknown, expected: unknown): boolean => {
  if (expected === null) return actual === null || actual === undefined;
  if (Array.isArray(actual) && !Array.isArray(expected)) return actual.some((item) => equals(item, expected));
  if (typeof expected === 'object') return JSON.stringify(actual) === JSON.stringify(expected);
  return actual === expected;
};

const regexCache = new Map<string, RegExp>();
/** The RegExp of a `$regex` condition (cached: filters repeat). */
export const toRegex = (pattern: string, options: string): RegExp => {
  const key = `${options}/${pattern}`;
  let regex = regexCache.get(key);
  if (!regex) {
    regex = new RegExp(pattern, options.replace(/[^imsu]/g, ''));
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(key, regex);
  }
  return regex;
};

const compareSome = (actual: unknown, test: (value: unknown) => boolean): boolean =>
  Array.isArray(actual) ? actual.some(test) : test(actual);

const matchesOperators = (actual: unknown, ops: Record<string, unknown>): boolean => {
  for (const [op, operand] of Object.entries(ops)) {
    switch (op) {
      case '$eq':
        if (!equals(actual, operand)) return false;
        break;
      case '$ne':
        if (equals(actual, operand)) return false;
        break;
      case '$in':
        if (!(operand as unknown[]).some((candidate) => equals(actual, candidate))) return false;
        break;
      case '$nin':
        if ((operand as unknown[]).some((candidate) => equals(actual, candidate))) return false;
        break;
      case '$gt':
        if (!compareSome(actual, (v) => typeRank(v) === typeRank(operand) && compareValues(v, operand) > 0)) return false;
        break;
      case '$gte':
        if (!compareSome(actual, (v) => typeRank(v) === typeRank(operand) && compareValues(v, operand) >= 0)) return false;
        break;
      case '$lt':
        if (!compareSome(actual, (v) => typeRank(v) === typeRank(operand) && compareValues(v, operand) < 0)) return false;
        break;
      case '$lte':
        if (!compareSome(actual, (v) => typeRank(v) === typeRank(operand) && compareValues(v, operand) <= 0)) return false;
        break;
      case '$exists':
        if ((actual !== undefined) !== Boolean(operand)) return false;
        break;
      case '$regex': {
        const regex = toRegex(String(operand), String(ops.$options ?? ''));
        if (!compareSome(actual, (v) => typeof v === 'string' && regex.test(v))) return false;
        break;
      }
      case '$options':
        break;
      default:
        throw new Error(`unsupported filter operator ${op}`);
    }
  }
  return true;
};

export const matches = (doc: unknown, filter: Filter | undefined): boolean => {
  if (!filter) return true;
  for (const [key, expected] of Object.entries(filter)) {
    if (key === '$or') {
      if (!(expected as Filter[]).some((sub) => matches(doc, sub))) return false;
      continue;
    }
    if (key === '$and') {
      if (!(expected as Filter[]).every((sub) => matches(doc, sub))) return false;
      continue;
    }
    const actual = getPath(doc, key);
    if (isOperatorObject(expected)) {
      if (!matchesOperators(actual, expected)) return false;
    } else if (!equals(actual, expected)) {
      return false;
    }
  }
  return true;
};

export const sortComparator =
  (sort: SortSpec) =>
  (a: unknown, b: unknown): number => {
    for (const [field, direction] of Object.entries(sort)) {
      const result = compareValues(getPath(a, field), getPath(b, field));
      if (result !== 0) return result * direction;
    }
    return 0;
  };

/** Values of an equality or $in condition on `field`, if the filter pins it down to a few. */
export const pinnedValues = (filter: Filter | undefined, field: string): unknown[] | null => {
  if (!filter || !(field in filter)) return null;
  const condition = filter[field];
  if (condition === null || typeof condition !== 'object') return [condition];
  if (isOperatorObject(condition) && Array.isArray(condition.$in) && Object.keys(condition).length === 1) {
    return condition.$in.every((value) => value === null || typeof value !== 'object') ? condition.$in : null;
  }
  return null;
};
