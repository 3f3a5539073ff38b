import { randomUUID } from 'node:crypto';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/fixture-release.js';
import { setAt } from '../helpers/generated.js';
import { createMediaBuyRequest } from '../helpers/payloads.js';
import { repoRoot, sdkReleaseDir, sharedReleaseDir, sharedReleaseKey } from '../helpers/releases.js';
import { typecheck } from '../helpers/typecheck.js';

/** The shared 3.2 release's key (`3.2-beta.5`): its AdCP wire version. */
const K32 = sharedReleaseKey();
const NS32 = `V${K32.replace(/[.-]/g, '_')}`;

/**
 * Handlers typed per release against the real releases: the example guaranteed-publisher over AdCP 3.2.0-beta.5 and
 * 3.0.6. 3.2's get_products requires `cache_scope` (in an `if`/`then`/`else` of its response schema), 3.0.6's does
 * not know it; the README's per-release snippet compiles, a body valid only in 3.0 does not, and in development the
 * runtime refuses to send it as a 3.2 answer.
 */
const release32 = sharedReleaseDir();
if (release32 === undefined) throw new Error('../shared/adcp/3.2.0-beta.5 is required for the real-release suite');

const work = tempDir('adcp-codegen-real-types-');
symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
writeTree(
  {
    'package.json': { name: 'agent', private: true, type: 'module' },
    'profiles/guaranteed-publisher.json': readFileSync(join(repoRoot, 'schemas/profiles/guaranteed-publisher.json'), 'utf8'),
    'adcp-codegen.config.json': {
      releases: [sdkReleaseDir(), release32],
      profiles: ['profiles/*.json'],
      normalizations: [join(repoRoot, 'schemas/normalizations/*.json')],
      overlays: [join(repoRoot, 'schemas/overlays/*.json')],
    },
  },
  work,
);
const out = join(work, 'generated');
const entry = join(out, 'index.js');

test('generate guaranteed-publisher over 3.2 and 3.0.6', async () => {
  const run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
});

test("one handler per tool is written in 3.2's shape: the README's old `({ products: [] })` does not compile, with cache_scope it does", () => {
  const r = typecheck(`import type { HandlerFor } from GENERATED;\nexport const h: HandlerFor<'guaranteed-publisher', 'get_products'> = async () => ({ products: [] });\n`, entry);
  assert.not.ok(r.ok);
  const both = typecheck(`import type { HandlerFor } from GENERATED;\nexport const h: HandlerFor<'guaranteed-publisher', 'get_products'> = async (_args, ctx) => ({ products: [], cache_scope: 'public', note: ctx.release });\n`, entry);
  assert.ok(both.ok, both.output);
  // 3.2's create_media_buy: the media buy's state in media_buy_status (3.0's `status: 'pending_creatives'` is no 3.2
  // task status), the request's packages optional (a 3.0 buyer's may lack what 3.2 requires of them).
  const buy = (body: string) =>
    typecheck(`import type { HandlerFor } from GENERATED;\nexport const h: HandlerFor<'guaranteed-publisher', 'create_media_buy'> = (args, ctx) => { const n: number = (args.packages ?? []).length; const r: string = ctx.release; return ${body}; };\n`, entry);
  const ok = buy(`{ media_buy_id: 'mb' + n + r, media_buy_status: 'pending_creatives' as const, confirmed_at: null, revision: 1, packages: [] }`);
  assert.ok(ok.ok, ok.output);
  assert.not.ok(buy(`{ media_buy_id: 'mb' + n + r, status: 'pending_creatives' as const, confirmed_at: null, revision: 1, packages: [] }`).ok, "3.0's status in a 3.2 body");
});

test('docs/agent.md\'s per-release get_products snippet compiles against 3.2 + 3.0.6', () => {
  const doc = readFileSync(join(repoRoot, 'docs/agent.md'), 'utf8');
  // The snippet sits in a list item: its lines are indented two spaces.
  const snippet = /^ {2}```ts\n((?: {2}.*\n)*?) {2}```$/m.exec(doc)?.[1]?.replace(/^ {2}/gm, '');
  assert.type(snippet, 'string', 'docs/agent.md shows a per-release get_products handler');
  assert.match(snippet!, /^get_products: \{/);
  const r = typecheck(
    `import type { HandlerFor, ${NS32}, V3_0 } from GENERATED;\ndeclare const products: ${NS32}.Product[];\ndeclare const products30: V3_0.Product[];\nexport const handlers: { get_products: HandlerFor<'guaranteed-publisher', 'get_products'> } = {\n${snippet}};\n`,
    entry,
  );
  assert.ok(r.ok, r.output);
  const without = typecheck(
    `import type { HandlerFor, ${NS32}, V3_0 } from GENERATED;\ndeclare const products: ${NS32}.Product[];\ndeclare const products30: V3_0.Product[];\nexport const handlers: { get_products: HandlerFor<'guaranteed-publisher', 'get_products'> } = {\n${snippet!.replace("cache_scope: 'public'", '')}};\n`,
    entry,
  );
  assert.not.ok(without.ok, 'without cache_scope the 3.2 handler does not compile');
});

test('at run time: a 3.0 body sent as 3.2 is the agent\'s error in development; per-release handlers answer each pin', async () => {
  const { loadProfile } = await setAt(out);
  const agent = await loadProfile('guaranteed-publisher', { mode: 'development' });
  // Pinned to the pre-release: a call that pins no release is served the stable 3.0.
  const args = { brief: 'homepage', buying_mode: 'brief', adcp_version: K32, context: { trace: 'p' } };
  const wrong = JSON.parse((await agent.call('get_products', args, () => ({ products: [] }))).content[0]!.text) as Record<string, any>;
  assert.is(wrong.adcp_error.code, 'CONFIGURATION_ERROR');
  assert.is(wrong.adcp_error.recovery, 'terminal');
  assert.match(wrong.adcp_error.message, new RegExp(`AdCP ${K32.replace(/\./g, '\\.')} response schema: .*cache_scope`));
  const perRelease = { [K32]: () => ({ products: [], cache_scope: 'public' }), '3.0': () => ({ products: [] }) };
  const r32 = await agent.call('get_products', args, perRelease);
  assert.equal(r32.structuredContent, { products: [], cache_scope: 'public', status: 'completed', adcp_version: K32, context: { trace: 'p' } });
  const r30 = await agent.call('get_products', { ...args, adcp_version: '3.0' }, perRelease);
  assert.equal(r30.structuredContent, { products: [], status: 'completed', adcp_version: '3.0', context: { trace: 'p' } });
  // 3.0's create_media_buy carries the media buy's own status: a per-release 3.0 handler states it there; one
  // function in 3.2's shape states media_buy_status, which a 3.0 buyer gets in status.
  const buy = createMediaBuyRequest({ adcp_version: '3.0' });
  const created = await agent.call('create_media_buy', buy, { [K32]: () => ({}), '3.0': () => ({ media_buy_id: 'mb', packages: [], status: 'active' }) });
  assert.is(created.structuredContent?.status, 'active', created.content[0]!.text);
  const once = () => ({ media_buy_id: 'mb', packages: [], confirmed_at: '2026-01-01T00:00:00Z', revision: 1, media_buy_status: 'active' });
  // Another request, so its own key: the same key again is a replay of the answer above.
  const converted = await agent.call('create_media_buy', { ...buy, idempotency_key: randomUUID() }, once);
  assert.equal(converted.structuredContent, { media_buy_id: 'mb', packages: [], confirmed_at: '2026-01-01T00:00:00Z', revision: 1, status: 'active', adcp_version: '3.0' });
});

test.run();
