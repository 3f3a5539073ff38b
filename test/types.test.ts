import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from './helpers/fixture-release.js';
import { repoRoot } from './helpers/releases.js';

/**
 * The committed generated set under TypeScript strict, module NodeNext, as an agent repository compiles it:
 * handlers are typed by each tool's request and response types, and a wrong one does not compile.
 */
function typecheck(source: string): { ok: boolean; output: string } {
  const dir = tempDir('adcp-codegen-types-');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true, skipLibCheck: false, types: [] }, files: ['agent.ts'] }),
  );
  writeFileSync(join(dir, 'agent.ts'), source.replace(/GENERATED/g, JSON.stringify(join(repoRoot, 'generated/index.js'))));
  const r = spawnSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

test('the generated entry type-checks under strict NodeNext, with typed handlers', () => {
  const r = typecheck(`
import { loadProfile, profiles, type RequestOf, type V3_0 } from GENERATED;
const agent = await loadProfile('guaranteed-publisher', { mode: 'development' });
const names: readonly string[] = profiles;
const release: string = agent.releases[0]!;
agent.registerMcp({}, {
  create_media_buy: async (args, ctx) => ({ media_buy_id: args.idempotency_key + ctx.release, packages: [] }),
  get_products: (args) => ({ products: [] as V3_0.Product[], ...(args.brief === undefined ? {} : {}) }),
});
const request: RequestOf<'create_media_buy'> = { idempotency_key: 'k', account: { account_id: 'a' }, brand: { domain: 'acme.example' }, start_time: 'asap', end_time: '2027-01-01T00:00:00Z' };
const verdict = agent.validateRequest('create_media_buy', request);
if (!verdict.ok) for (const issue of verdict.issues) console.log(issue.pointer, issue.keyword);
const normalized = agent.normalize('create_media_buy', request);
console.log(names, release, normalized.applied.map((a) => a.rule));
`);
  assert.ok(r.ok, r.output);
});

test('a handler returning the wrong shape, or a tool outside the profile, does not compile', () => {
  const wrongShape = typecheck(`
import { loadProfile } from GENERATED;
const agent = await loadProfile('guaranteed-publisher');
agent.registerMcp({}, { get_products: () => ({ products: 42 }) });
`);
  assert.not.ok(wrongShape.ok);
  assert.match(wrongShape.output, /products/);
  const wrongTool = typecheck(`
import { loadProfile } from GENERATED;
const agent = await loadProfile('signals-agent');
agent.validateRequest('create_media_buy', {});
`);
  assert.not.ok(wrongTool.ok);
  assert.match(wrongTool.output, /create_media_buy/);
});

test.run();
