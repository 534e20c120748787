/**
 * The dependency rules of the codebase, checked in CI (npm run lint:deps):
 * - domain/ is pure: it imports nothing but domain/ (no I/O library, no node: module).
 * - the process folders never import each other; they meet only in runtime/ (the wiring).
 * - contracts/ (schemas) depends on domain/ and the schema library only.
 * - infrastructure/ (adapters) and http/ (shared HTTP plumbing) never import a process folder.
 * - no cycles.
 */
const processes = ['command-api', 'query-api', 'projectors', 'processors', 'webhook-dispatcher'];

module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ holds deciders, events and value objects: no I/O, no framework, no node: modules.',
      severity: 'error',
      from: { path: '^domain/', pathNot: '\\.spec\\.ts$' },
      to: { pathNot: '^domain/' },
    },
    ...processes.map((name) => ({
      name: `${name}-stays-in-its-lane`,
      comment: `${name}/ depends on domain/, contracts/, http/ and infrastructure/ ports, never on another process folder.`,
      severity: 'error',
      from: { path: `^${name}/` },
      to: { path: `^(${processes.filter((other) => other !== name).join('|')}|runtime)/` },
    })),
    {
      name: 'contracts-are-schemas',
      severity: 'error',
      from: { path: '^contracts/' },
      to: { path: '^(infrastructure|http|runtime|command-api|query-api|projectors|processors|webhook-dispatcher)/' },
    },
    {
      name: 'adapters-and-http-below-processes',
      severity: 'error',
      from: { path: '^(infrastructure|http)/' },
      to: { path: `^(${processes.join('|')}|runtime)/` },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    { name: 'not-to-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.json'] },
  },
};
