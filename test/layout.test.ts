import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ts } from 'ts-morph';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stronglyConnected } from '../generator/shared/index.js';

/**
 * The layout rules of generator/ and runtime/ (README, "How it is built"), checked on the sources so they hold
 * as the code changes: no circular imports; code outside a generator/ folder imports only that folder's
 * index.ts; and stages import downward only (shared ← load ← select ← project ← compile ← emit ← format ← write,
 * cli/generate/index on top). Type-only imports count: a cycle of types is still two files that cannot be read
 * one without the other.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Cycles still present, each as its sorted member list: none. Kept as a list so a cycle that must be tolerated for
 * a while is written down here; the test fails on an entry that no longer matches a cycle, so it can only shrink.
 */
const ALLOWED_CYCLES: readonly string[][] = [];

/** Stage order: a module may import its own stage and the ones before it. */
const STAGES = ['shared', 'load', 'select', 'project', 'compile', 'emit', 'format', 'write', ''] as const;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir)).sort()) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Every relative module a source imports or re-exports, statically or with `import()`, as a repository path. */
function importsOf(path: string): string[] {
  const file = ts.createSourceFile(path, readFileSync(join(root, path), 'utf8'), ts.ScriptTarget.ES2022, true);
  const specs: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      specs.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined && ts.isStringLiteral(node.arguments[0])) {
      specs.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return specs.filter((s) => s.startsWith('.')).map((s) => relative(root, resolve(root, dirname(path), s)).replace(/\.js$/, '.ts'));
}

const modules = [...sources('generator'), ...sources('runtime')];
const graph = new Map(modules.map((m) => [m, importsOf(m)]));

/** `generator/compile/strip/analysis.ts` → `['compile', 'strip']`; runtime/ and top-level files → []. */
const foldersOf = (path: string): string[] => (path.startsWith('generator/') ? path.split('/').slice(1, -1) : []);

test('no circular imports in generator/ and runtime/ (beyond the listed ones)', () => {
  for (const [from, to] of graph) for (const t of to) assert.ok(graph.has(t), `${from} imports ${t}, which does not exist`);
  const cycles = stronglyConnected(modules, (m) => graph.get(m)!, (a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .filter((c) => c.length > 1 || graph.get(c[0]!)!.includes(c[0]!))
    .map((c) => [...c].sort());
  const key = (c: readonly string[]): string => c.join(' ↔ ');
  const allowed = new Set(ALLOWED_CYCLES.map(key));
  assert.equal(cycles.map(key).filter((c) => !allowed.has(c)), [], 'circular imports');
  assert.equal([...allowed].filter((a) => !cycles.some((c) => key(c) === a)), [], 'ALLOWED_CYCLES names a cycle that is gone: remove it');
});

test("code outside a generator/ folder imports only that folder's index.ts", () => {
  const bad: string[] = [];
  for (const [from, to] of graph) {
    for (const t of to.filter((t) => t.startsWith('generator/'))) {
      const target = foldersOf(t);
      // The outermost folder of the target that does not hold the importer is the door the import must use.
      for (let depth = 1; depth <= target.length; depth++) {
        const folder = ['generator', ...target.slice(0, depth)].join('/');
        if (from.startsWith(folder + '/')) continue;
        if (t !== `${folder}/index.ts`) bad.push(`${from} → ${t} (use ${folder}/index.ts)`);
        break;
      }
    }
  }
  assert.equal(bad, []);
});

test('stages import downward only; the runtime imports nothing from the generator', () => {
  const stage = (path: string): number => STAGES.indexOf((foldersOf(path)[0] ?? '') as (typeof STAGES)[number]);
  const bad: string[] = [];
  for (const [from, to] of graph) {
    for (const t of to) {
      if (from.startsWith('runtime/') && !t.startsWith('runtime/')) bad.push(`${from} → ${t}`);
      if (!from.startsWith('generator/') || !t.startsWith('generator/')) continue;
      assert.ok(stage(from) >= 0 && stage(t) >= 0, `${from} or ${t} is in no known stage folder: add it to STAGES`);
      if (stage(t) > stage(from)) bad.push(`${from} → ${t}`);
    }
  }
  assert.equal(bad, []);
});

/** Runtime folders by concern (README, "How it is built"); only the agent itself sits at runtime/'s top. */
const RUNTIME_FOLDERS = new Set(['api', 'artifacts', 'call', 'issues', 'ops', 'services', 'stores', 'transports', 'wire']);
const RUNTIME_MAX_LINES = 300;
const CREATE_AGENT_MAX_LINES = 80;

test('runtime/: folders by concern, no file over 300 lines, createAgent at most 80 lines', () => {
  const runtime = sources('runtime');
  const misplaced = runtime.filter((p) => p !== 'runtime/agent.ts' && !RUNTIME_FOLDERS.has(p.split('/')[1]!));
  assert.equal(misplaced, [], 'every runtime module lives in a folder of its concern');
  const long = runtime.map((p) => [p, readFileSync(join(root, p), 'utf8').split('\n').length] as const).filter(([, n]) => n > RUNTIME_MAX_LINES);
  assert.equal(long, [], `runtime files over ${RUNTIME_MAX_LINES} lines`);
  const agent = ts.createSourceFile('agent.ts', readFileSync(join(root, 'runtime/agent.ts'), 'utf8'), ts.ScriptTarget.ES2022, true);
  const fn = agent.statements.find((st): st is ts.FunctionDeclaration => ts.isFunctionDeclaration(st) && st.name?.text === 'createAgent');
  assert.ok(fn !== undefined, 'runtime/agent.ts declares createAgent');
  const lines = agent.getLineAndCharacterOfPosition(fn!.getEnd()).line - agent.getLineAndCharacterOfPosition(fn!.getStart()).line + 1;
  assert.ok(lines <= CREATE_AGENT_MAX_LINES, `createAgent is ${lines} lines`);
});

/** Where the project's own source lives (generated/ is output, node_modules and dist are not ours). */
const SOURCE_ROOTS = ['bin', 'bench', 'examples', 'generator', 'runtime', 'templates', 'test'];
const SOURCE_FILE = /\.(ts|js|mjs|cjs|hbs)$/;
const SOURCE_MAX_LINES = 450;

/** Every source file under `dir`, as a repository path. */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir)).sort()) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) out.push(...sourceFiles(path));
    else if (SOURCE_FILE.test(name)) out.push(path);
  }
  return out;
}

test(`no source file over ${SOURCE_MAX_LINES} lines (generator, runtime, bench, test, examples, bin, templates)`, () => {
  const files = SOURCE_ROOTS.flatMap(sourceFiles);
  assert.ok(files.includes('test/layout.test.ts') && files.includes('examples/seller-agent.js'), 'the walk finds the sources');
  const lines = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const long = files.map((p) => [p, lines(readFileSync(join(root, p), 'utf8'))] as const).filter(([, n]) => n > SOURCE_MAX_LINES);
  assert.equal(long, [], `source files over ${SOURCE_MAX_LINES} lines: split each into files with one job`);
});

test.run();
