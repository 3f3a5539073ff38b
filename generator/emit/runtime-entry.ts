import { IMPORT_META } from './runtime-transforms.js';

/**
 * The runtime's entry: ES module code, the second half of the set's `index.js` (runtime-bundle.ts), which defines
 * the bootstrap modules, evaluates each runtime module on its first require, reads the on-demand groups when one of
 * their modules is first used, and loads the rest from `runtime/modules.cjs` with its code cache.
 */
export interface EntryParts {
  /** The bootstrap modules' definitions (`"./artifacts/loader.js": function (…) {…},` entries). */
  readonly bootstrap: readonly string[];
  /** The node: builtins the runtime imports, one table line each. */
  readonly builtins: readonly string[];
  /** On-demand module → its artifact, one table line each. */
  readonly onDemand: readonly string[];
  /** The file under runtime/ holding the modules a valid call reaches (`modules.cjs`). */
  readonly modulesFile: string;
}

export function entryModule(parts: EntryParts): string {
  return [
    // Builtins through `process.getBuiltinModule`, each on first use: an ES import of a builtin makes node build
    // its ES facade, reading every export (node:crypto loads Web Crypto, ciphers and streams, ~7 ms of a cold start;
    // node:fs loads fs/promises, ~2 ms), and even `import { createRequire } from 'node:module'` costs ~1 ms.
    '/** A node: builtin, without an ES import (Node.js 20.16 and later: the `engines` of the generated package). */',
    'function requireBuiltin(id) {',
    '  if (typeof process.getBuiltinModule !== "function") {',
    '    throw new Error(`adcp-codegen runtime: Node.js ${process.version} has no process.getBuiltinModule; use Node.js 20.16 or later`);',
    '  }',
    '  return process.getBuiltinModule(id);',
    '}',
    '',
    '/** The runtime modules as CommonJS functions, evaluated once, on first require; the loader here, the rest below. */',
    'const definitions = {',
    ...parts.bootstrap,
    '};',
    '',
    '/** `import.meta` of every runtime module: the bundle\'s, as when the modules were one ES module. */',
    `const ${IMPORT_META} = Object.freeze({ url: import.meta.url });`,
    '',
    '/** The node: builtins the runtime imports, and only those. */',
    'const builtins = new Set([',
    ...parts.builtins,
    ']);',
    '',
    'const evaluated = new Map();',
    '',
    '/**',
    ' * A module\'s exports, loaded when one of its members is first read (the compiled modules read members at call',
    ' * time: `(0, node_os_1.tmpdir)()`), so a builtin or runtime module only some paths need (node:os, for the code',
    ' * cache\'s temp-dir fallback; node:module, for registerMcp; a rejection\'s issues) costs nothing to a process that',
    ' * never takes them.',
    ' */',
    'function lazyExports(load) {',
    '  let loaded;',
    '  const target = () => (loaded ??= load());',
    '  return new Proxy(Object.create(null), {',
    '    get: (_, key) => target()[key],',
    '    has: (_, key) => key in target(),',
    '  });',
    '}',
    '',
    '/** The runtime modules a valid call never reaches, and the artifact that defines each (read on first use). */',
    'const onDemand = Object.freeze({',
    ...parts.onDemand,
    '});',
    '',
    '/** The exports of one runtime module (`./agent.js`), its on-demand artifact loaded now if it has one. */',
    'export function runtimeModule(id) {',
    '  const known = evaluated.get(id);',
    '  if (known !== undefined) return known.exports;',
    '  if (builtins.has(id)) return lazyExports(() => requireBuiltin(id));',
    '  if (!Object.hasOwn(definitions, id) && Object.hasOwn(onDemand, id)) Object.assign(definitions, loadArtifact(setRoot, onDemand[id]));',
    '  const define = Object.hasOwn(definitions, id) ? definitions[id] : undefined;',
    '  if (define === undefined) throw new Error(`adcp-codegen runtime: no module ${id}`);',
    '  const module = { exports: {} };',
    '  evaluated.set(id, module);',
    `  define.call(module.exports, module.exports, requireRuntime, ${IMPORT_META});`,
    '  return module.exports;',
    '}',
    '',
    '/** `require` inside the runtime: an on-demand module not yet evaluated is loaded on its first member read. */',
    'function requireRuntime(id) {',
    '  return evaluated.has(id) || !Object.hasOwn(onDemand, id) ? runtimeModule(id) : lazyExports(() => runtimeModule(id));',
    '}',
    '',
    '// The other runtime modules, from runtime/modules.cjs through the loader: compiled with their code cache.',
    "const { loadArtifact } = runtimeModule('./artifacts/loader.js');",
    "const setRoot = requireBuiltin('node:url').fileURLToPath(new URL('.', import.meta.url));",
    `Object.assign(definitions, loadArtifact(setRoot, ${JSON.stringify(`runtime/${parts.modulesFile}`)}));`,
    '',
    "export const { createAgent } = runtimeModule('./agent.js');",
    '',
  ].join('\n');
}
