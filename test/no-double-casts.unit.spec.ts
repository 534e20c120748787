import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No double cast (`x as unknown as T`, `x as any as T`, `<T><unknown>x`) outside the tests: where
 * the types disagree, the code says why in types (a projection, processor or the webhook
 * dispatcher receives the events of the streams it reads, decoded once by domain/'s per-aggregate
 * decoders — domain/stream-events.ts), not by switching the checker off. Test files (`*.spec.ts`,
 * test/) may still build partial fakes that way.
 *
 * Read with the TypeScript parser, so `as unknown as` in a comment or a string does not count and a
 * cast spread over lines or through parentheses does.
 */
const ROOT = resolve(import.meta.dirname, '..');
const SKIPPED_FOLDERS = new Set(['node_modules', 'test', 'var', 'coverage', 'dist']);

const sourceFiles = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith('.') || SKIPPED_FOLDERS.has(entry.name) ? [] : sourceFiles(path);
    return entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });

type Cast = ts.AsExpression | ts.TypeAssertion;
const isCast = (node: ts.Node): node is Cast => ts.isAsExpression(node) || ts.isTypeAssertionExpression(node);

const stripParentheses = (node: ts.Expression): ts.Expression => (ts.isParenthesizedExpression(node) ? stripParentheses(node.expression) : node);

/** A cast whose operand is itself a cast to `unknown` or `any`. */
const isDoubleCast = (node: Cast): boolean => {
  const inner = stripParentheses(node.expression);
  return isCast(inner) && (inner.type.kind === ts.SyntaxKind.UnknownKeyword || inner.type.kind === ts.SyntaxKind.AnyKeyword);
};

/** `file:line  text` of every double cast in a source text. */
const doubleCastsIn = (fileName: string, text: string): string[] => {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (isCast(node) && isDoubleCast(node)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${fileName}:${line + 1}  ${node.getText(source).replace(/\s+/g, ' ').slice(0, 120)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

describe('no double casts outside the tests', () => {
  it('finds the forms it forbids, and only those', () => {
    const sample = [
      'const a = x as unknown as Foo;',
      'const b = (x as any) as Foo;',
      'const c = <Foo>(<unknown>x);',
      'const d = (x as unknown as { n: number }).n;',
      'const e = x as Foo;',
      'const f = x as unknown;',
      "// x as unknown as Foo, in a comment\nconst g = 'as unknown as';",
    ].join('\n');
    expect(doubleCastsIn('sample.ts', sample).map((row) => row.split('  ')[0])).toEqual(['sample.ts:1', 'sample.ts:2', 'sample.ts:3', 'sample.ts:4']);
  });

  it('the source tree has none (each offender named file:line)', () => {
    const files = sourceFiles(ROOT);
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) => doubleCastsIn(relative(ROOT, file), readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
