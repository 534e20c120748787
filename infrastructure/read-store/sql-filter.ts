import { isOperatorObject } from './filter.ts';
import type { Filter, SortSpec } from './port.ts';

/**
 * Translation of the port's MongoDB-style filters and sorts (see port.ts) to SQLite over a table
 * of JSON documents (`id` = _id, `body` = the document as JSON), for the embedded read store.
 *
 * A field is read with `json_extract(body, '$."a"."b"')` — the very expression the store's indexes
 * are built on (SQLite uses an index on an expression only for the identical expression, so paths
 * are inlined as literals, never bound). What MongoDB does with array fields (`{ tags: 'x' }`
 * matches an array containing 'x') is kept: a field the store does not know to hold scalars only is
 * tested through `json_each`, which yields the elements of an array and the value itself otherwise.
 * A field the store knows to be scalar (declared in an index, never seen holding an array) is
 * compared directly, so its index serves equality, $in and ranges; on such fields booleans are
 * compared as SQLite stores them (true = 1), so a declared field is assumed to hold one JSON type.
 *
 * The translation is `exact` when the SQL matches precisely the documents the in-memory matcher
 * (filter.ts) matches; parts it cannot express (equality with an object) are left out, which only
 * widens the match, and the caller then re-checks each row with filter.ts.
 */
export type SqlCondition = { sql: string; params: unknown[]; exact: boolean };

/** Which fields hold scalars only: there equality and ranges can use the field's index. */
export type FieldKinds = { isScalar: (field: string) => boolean };

const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** The JSON path of a dotted field, as a SQL string literal. */
export const jsonPath = (field: string): string => sqlString(`$${field.split('.').map((part) => `."${part.replace(/"/g, '\\"')}"`).join('')}`);

/** The SQL expression of a field's value (the one indexes are built on). */
export const valueOf = (field: string): string => (field === '_id' ? 'id' : `json_extract(body, ${jsonPath(field)})`);

const typeOf = (field: string): string => (field === '_id' ? "'text'" : `json_type(body, ${jsonPath(field)})`);

const NONE: SqlCondition = { sql: '', params: [], exact: false };
const TRUE: SqlCondition = { sql: '1', params: [], exact: true };
const FALSE: SqlCondition = { sql: '0', params: [], exact: true };

const isPrimitive = (value: unknown): boolean => value === null || ['string', 'number', 'bigint', 'boolean'].includes(typeof value);

/** A value and its JSON type: a field's (scalar fields) or one element's of json_each. */
type Operand = { value: string; type: string; scalarField: boolean };

const elementOf: Operand = { value: 'value', type: 'type', scalarField: false };

/** `operand` equals `expected` (a primitive); null when `expected` is not one. */
const equalsAtom = (operand: Operand, expected: unknown): SqlCondition | null => {
  if (expected === null) return { sql: operand.scalarField ? `${operand.value} IS NULL` : `${operand.type} = 'null'`, params: [], exact: true };
  if (typeof expected === 'string') return { sql: `${operand.value} = ?`, params: [expected], exact: true };
  if (typeof expected === 'number' || typeof expected === 'bigint') {
    return operand.scalarField
      ? { sql: `${operand.value} = ?`, params: [expected], exact: true }
      : { sql: `(${operand.value} = ? AND ${operand.type} IN ('integer', 'real'))`, params: [expected], exact: true };
  }
  if (typeof expected === 'boolean') {
    const bit = expected ? 1 : 0;
    return operand.scalarField
      ? { sql: `${operand.value} = ${bit}`, params: [], exact: true }
      : { sql: `(${operand.value} = ${bit} AND ${operand.type} = '${expected}')`, params: [], exact: true };
  }
  return null;
};

const rangeAtom = (operand: Operand, op: string, bound: unknown): SqlCondition | null => {
  const symbol = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[op] as string;
  if (typeof bound === 'number' || typeof bound === 'bigint') {
    return { sql: `(${operand.value} ${symbol} ? AND ${operand.type} IN ('integer', 'real'))`, params: [bound], exact: true };
  }
  if (typeof bound === 'string') return { sql: `(${operand.value} ${symbol} ? AND ${operand.type} = 'text')`, params: [bound], exact: true };
  return null;
};

const regexAtom = (operand: Operand, pattern: unknown, options: unknown): SqlCondition => ({
  sql: `(${operand.type} = 'text' AND rs_regex(?, ?, ${operand.value}))`,
  params: [String(pattern), String(options ?? '')],
  exact: true,
});

const not = (condition: SqlCondition): SqlCondition =>
  condition.sql === '' ? NONE : { sql: `(${condition.sql}) IS NOT 1`, params: condition.params, exact: condition.exact };

const all = (parts: SqlCondition[]): SqlCondition => {
  const kept = parts.filter((part) => part.sql !== '');
  if (kept.length === 0) return parts.length === 0 ? TRUE : NONE;
  return {
    sql: kept.length === 1 ? kept[0].sql : `(${kept.map((part) => part.sql).join(' AND ')})`,
    params: kept.flatMap((part) => part.params),
    exact: kept.length === parts.length && kept.every((part) => part.exact),
  };
};

const any = (parts: SqlCondition[]): SqlCondition => {
  if (parts.length === 0) return FALSE;
  if (parts.some((part) => part.sql === '')) return NONE;
  return {
    sql: parts.length === 1 ? parts[0].sql : `(${parts.map((part) => part.sql).join(' OR ')})`,
    params: parts.flatMap((part) => part.params),
    exact: parts.every((part) => part.exact),
  };
};

/**
 * One test on a field's value(s): on a scalar field directly, otherwise on any element (json_each
 * of a scalar yields the scalar itself, of an array its elements, of a missing field nothing).
 */
const onValues = (field: string, kinds: FieldKinds, atom: (operand: Operand) => SqlCondition | null): SqlCondition => {
  if (kinds.isScalar(field)) return atom({ value: valueOf(field), type: typeOf(field), scalarField: true }) ?? NONE;
  const inner = atom(elementOf);
  if (!inner) return NONE;
  return { sql: `EXISTS (SELECT 1 FROM json_each(body, ${jsonPath(field)}) WHERE ${inner.sql})`, params: inner.params, exact: inner.exact };
};

const equality = (field: string, expected: unknown, kinds: FieldKinds): SqlCondition => {
  if (Array.isArray(expected)) {
    // A whole-array match: the stored JSON text of the array (documents are stored as JSON.stringify writes them).
    if (field === '_id' || !expected.every((item) => typeof item === 'string' || typeof item === 'number')) return NONE;
    return { sql: `(${typeOf(field)} = 'array' AND ${valueOf(field)} = ?)`, params: [JSON.stringify(expected)], exact: true };
  }
  if (!isPrimitive(expected)) return NONE;
  if (expected === null) {
    // Missing or null (as filter.ts: not an array holding null).
    return { sql: kinds.isScalar(field) ? `${valueOf(field)} IS NULL` : `(${typeOf(field)} IS NULL OR ${typeOf(field)} = 'null')`, params: [], exact: true };
  }
  return onValues(field, kinds, (operand) => equalsAtom(operand, expected));
};

const membership = (field: string, candidates: unknown[], kinds: FieldKinds): SqlCondition => {
  if (candidates.length === 0) return FALSE;
  if (candidates.every((item) => typeof item === 'string')) {
    return onValues(field, kinds, (operand) => ({ sql: `${operand.value} IN (${candidates.map(() => '?').join(', ')})`, params: candidates, exact: true }));
  }
  return any(candidates.map((candidate) => equality(field, candidate, kinds)));
};

const operators = (field: string, ops: Record<string, unknown>, kinds: FieldKinds): SqlCondition => {
  const parts: SqlCondition[] = [];
  for (const [op, operand] of Object.entries(ops)) {
    switch (op) {
      case '$eq':
        parts.push(equality(field, operand, kinds));
        break;
      case '$ne':
        parts.push(not(equality(field, operand, kinds)));
        break;
      case '$in':
        parts.push(membership(field, operand as unknown[], kinds));
        break;
      case '$nin':
        parts.push(not(membership(field, operand as unknown[], kinds)));
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        parts.push(onValues(field, kinds, (value) => rangeAtom(value, op, operand)));
        break;
      case '$exists':
        parts.push({ sql: `${typeOf(field)} IS ${operand ? 'NOT ' : ''}NULL`, params: [], exact: true });
        break;
      case '$regex':
        parts.push(onValues(field, kinds, (value) => regexAtom(value, operand, ops.$options)));
        break;
      case '$options':
        break;
      default:
        throw new Error(`unsupported filter operator ${op}`);
    }
  }
  return all(parts);
};

/** The SQL condition of a filter (see the file comment); '' with exact false when nothing could be said. */
export const toSqlCondition = (filter: Filter | undefined, kinds: FieldKinds): SqlCondition => {
  if (!filter) return TRUE;
  const parts: SqlCondition[] = [];
  for (const [key, expected] of Object.entries(filter)) {
    if (key === '$or') parts.push(any((expected as Filter[]).map((sub) => toSqlCondition(sub, kinds))));
    else if (key === '$and') parts.push(all((expected as Filter[]).map((sub) => toSqlCondition(sub, kinds))));
    else if (isOperatorObject(expected)) parts.push(operators(key, expected, kinds));
    else parts.push(equality(key, expected, kinds));
  }
  return all(parts);
};

/** ORDER BY terms of a sort (empty when there is none). */
export const toSqlOrder = (sort: SortSpec | undefined): string =>
  sort && Object.keys(sort).length > 0
    ? Object.entries(sort)
        .map(([field, direction]) => `${valueOf(field)} ${direction < 0 ? 'DESC' : 'ASC'}`)
        .join(', ')
    : '';

/** The fields of a filter, at any depth ($or, $and): the ones an index could serve. */
export const fieldsOf = (filter: Filter | undefined): string[] => {
  if (!filter) return [];
  return Object.entries(filter).flatMap(([key, value]) => (key === '$or' || key === '$and' ? (value as Filter[]).flatMap(fieldsOf) : [key]));
};
