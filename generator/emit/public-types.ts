import { posix } from 'node:path';
import type { RuntimeSource } from './runtime-bundle.js';

/**
 * The runtime modules a set's public types reach: the declarations `index.d.ts` imports (`./runtime/agent.js`, …)
 * and, transitively, the declarations those import. Only these get a `runtime/<name>.d.ts` and a facade
 * `runtime/<name>.js` in the set; the rest of the runtime is internal (its code is in the bundles, its comments in
 * runtime/*.ts), and listing its 100-odd declarations and facades doubled the set's file count for no importer.
 *
 * Imports are read from tsc's declaration output, which writes every module specifier as a quoted relative path in
 * `from '…'` or `import('…')`.
 */
export function publicRuntimeModules(indexDeclaration: string, declarations: readonly RuntimeSource[]): Set<string> {
  const byName = new Map(declarations.map((d) => [d.name, d]));
  const reached = new Set<string>();
  const stack = specifiers(indexDeclaration)
    .filter((s) => s.startsWith('./runtime/'))
    .map((s) => declarationName(s.slice('./runtime/'.length)));
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (reached.has(name)) continue;
    const d = byName.get(name);
    if (d === undefined) throw new Error(`index.d.ts imports runtime/${name}, which the runtime does not declare`);
    reached.add(name);
    for (const s of specifiers(d.text)) {
      if (s.startsWith('.')) stack.push(declarationName(posix.normalize(posix.join(posix.dirname(name), s))));
    }
  }
  return reached;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]+)\1/g;

function specifiers(text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((m) => m[2]!);
}

/** `agent.js` → `agent.d.ts`. */
function declarationName(specifier: string): string {
  return specifier.replace(/\.js$/, '.d.ts');
}
