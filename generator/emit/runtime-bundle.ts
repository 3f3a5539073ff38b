import { ts } from 'ts-morph';

/**
 * The runtime as ONE module (issue 12 point 2). Importing the runtime's ESM modules one by one cost ~15 ms of a
 * ~36 ms cold start: each is a separate resolve, read, parse and link. At generation the compiled runtime
 * (dist/runtime/*.js, whatever the runtime sources are at that moment) is turned into one ES module,
 * `runtime/bundle.js`: every module transpiled by TypeScript to CommonJS and wrapped in a function, evaluated on
 * first require, in one file; `node:` builtins are required (CommonJS) when a module first needs them. Each `runtime/<name>.js` stays as
 * a facade re-exporting that module's names from the bundle, so code importing `runtime/errors.js` gets the same
 * `AdcpError` class the bundle uses (`instanceof` holds), and `runtime/<name>.d.ts` keep the types.
 *
 * The transformation is TypeScript's own (`transpileModule`), not string surgery: the bundle is only a table of
 * CommonJS module functions and a 10-line `require`.
 */

export interface RuntimeSource {
  /** `agent.js` */
  readonly name: string;
  readonly text: string;
}

export interface RuntimeBundle {
  readonly bundle: string;
  /** name → facade module text */
  readonly facades: ReadonlyMap<string, string>;
}

export const BUNDLE = 'bundle.js';

export function bundleRuntime(sources: readonly RuntimeSource[]): RuntimeBundle {
  const builtins = new Set<string>();
  const modules: string[] = [];
  const facades = new Map<string, string>();
  for (const source of [...sources].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (source.name === BUNDLE) throw new Error(`runtime/${BUNDLE} is the bundle's own name: rename that runtime module`);
    const file = ts.createSourceFile(source.name, source.text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
    for (const spec of moduleSpecifiers(file)) {
      if (spec.startsWith('node:')) builtins.add(spec);
      else if (!spec.startsWith('./')) throw new Error(`runtime/${source.name} imports ${spec}: the runtime may import only node: builtins and itself`);
    }
    const cjs = ts.transpileModule(source.text, {
      fileName: source.name,
      reportDiagnostics: false,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: false, removeComments: false },
    }).outputText.replace(/^\/\/# sourceMappingURL=.*$/m, '');
    modules.push(`  ${JSON.stringify(`./${source.name}`)}: function (exports, require) {\n${cjs}\n  },`);
    const names = exportedNames(file);
    facades.set(
      source.name,
      names.length === 0
        ? `export {};\n`
        : `import { runtimeModule } from './${BUNDLE}';\n\nexport const { ${names.join(', ')} } = runtimeModule(${JSON.stringify(`./${source.name}`)});\n`,
    );
  }
  const table = [...builtins].sort().map((b) => `  ${JSON.stringify(b)},`);
  const bundle = [
    // Builtins through CommonJS `require`, each on first use: an ES namespace import (`import * as crypto`) makes
    // node read every export of the builtin, which for node:crypto loads Web Crypto, ciphers and streams (~7 ms of
    // a cold start), and for node:fs loads fs/promises.
    "import { createRequire } from 'node:module';",
    '',
    'const requireBuiltin = createRequire(import.meta.url);',
    '',
    '/** The runtime modules as CommonJS functions, evaluated once, on first require. */',
    'const definitions = {',
    ...modules,
    '};',
    '',
    '/** The node: builtins the runtime imports, and only those. */',
    'const builtins = new Set([',
    ...table,
    ']);',
    '',
    'const evaluated = new Map();',
    '',
    '/**',
    ' * A builtin, required when one of its members is first read (the compiled modules read members at call time:',
    ' * `(0, node_crypto_1.createHash)(…)`), so a builtin only some paths need (node:crypto, for the code cache) costs',
    ' * nothing to a process that never takes them.',
    ' */',
    'function lazyBuiltin(id) {',
    '  let loaded;',
    '  const target = () => (loaded ??= requireBuiltin(id));',
    '  return new Proxy(Object.create(null), {',
    '    get: (_, key) => target()[key],',
    '    has: (_, key) => key in target(),',
    '  });',
    '}',
    '',
    '/** The exports of one runtime module (`./agent.js`). */',
    'export function runtimeModule(id) {',
    '  const known = evaluated.get(id);',
    '  if (known !== undefined) return known.exports;',
    '  if (builtins.has(id)) return lazyBuiltin(id);',
    '  const define = definitions[id];',
    '  if (define === undefined) throw new Error(`adcp-codegen runtime: no module ${id}`);',
    '  const module = { exports: {} };',
    '  evaluated.set(id, module);',
    '  define.call(module.exports, module.exports, runtimeModule);',
    '  return module.exports;',
    '}',
    '',
    "export const { createAgent } = runtimeModule('./agent.js');",
    '',
  ].join('\n');
  return { bundle, facades };
}

function moduleSpecifiers(file: ts.SourceFile): string[] {
  const out: string[] = [];
  for (const st of file.statements) {
    if ((ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) && st.moduleSpecifier !== undefined && ts.isStringLiteral(st.moduleSpecifier)) {
      out.push(st.moduleSpecifier.text);
    }
  }
  return out;
}

/** The value names an ES module exports (types are gone from the compiled .js). */
function exportedNames(file: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const st of file.statements) {
    const exported = ts.canHaveModifiers(st) && (ts.getModifiers(st) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (exported && (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) && st.name !== undefined) names.push(st.name.text);
    else if (exported && ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (!ts.isIdentifier(d.name)) throw new Error(`${file.fileName}: destructured exports are not supported in the runtime`);
        names.push(d.name.text);
      }
    } else if (ts.isExportDeclaration(st) && !st.isTypeOnly && st.exportClause !== undefined && ts.isNamedExports(st.exportClause)) {
      for (const e of st.exportClause.elements) if (!e.isTypeOnly) names.push(e.name.text);
    } else if (ts.isExportAssignment(st)) {
      throw new Error(`${file.fileName}: a default export is not supported in the runtime`);
    }
  }
  return names.sort();
}
