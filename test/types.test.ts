import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from './helpers/releases.js';
import { typecheck as typecheckAt } from './helpers/typecheck.js';
import { twoReleaseSet } from './helpers/two-release-set.js';

/**
 * Generated entries under TypeScript strict, module NodeNext, as an agent repository compiles them: handlers are
 * typed by each tool's request and response types, per release, and a wrong one does not compile.
 */
const committed = join(repoRoot, 'generated/index.js');
const typecheck = (source: string, entry = committed) => typecheckAt(source, entry);

/** Handlers for the tools of the committed guaranteed-publisher set (AdCP 3.0.6) other than the ones a test varies. */
const PUBLISHER_REST = `
  get_media_buys: () => ({ media_buys: [] }),
  get_media_buy_delivery: () => ({ reporting_period: { start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z' }, currency: 'USD', media_buy_deliveries: [] }),
  provide_performance_feedback: () => ({ success: true as const }),
  sync_creatives: () => ({ creatives: [] }),
  list_creatives: () => ({ query_summary: { total_matching: 0, returned: 0 }, pagination: { has_more: false }, creatives: [] }),
  list_accounts: () => ({ accounts: [] }),
  sync_accounts: () => ({ accounts: [] }),
  list_creative_formats: () => ({ formats: [] }),
  update_media_buy: () => new AdcpError('MEDIA_BUY_NOT_FOUND', 'no such media buy', { recovery: 'correctable' }),
`;

test('the committed entry type-checks under strict NodeNext, with typed handlers and AdcpError as a value', () => {
  const r = typecheck(`
import { AdcpError, loadProfile, profiles, type RequestOf, type V3_0 } from GENERATED;
const agent = await loadProfile('guaranteed-publisher', { mode: 'development' });
const names: readonly string[] = profiles;
const release: string = agent.releases[0]!;
agent.registerMcp({}, {
  create_media_buy: async (args, ctx) => ({ media_buy_id: args.idempotency_key + ctx.release, packages: [] }),
  get_products: (args) => ({ products: [] as V3_0.Product[], ...(args.brief === undefined ? {} : {}) }),
${PUBLISHER_REST}
});
const request: RequestOf<'create_media_buy'> = { idempotency_key: 'k', account: { account_id: 'a' }, brand: { domain: 'acme.example' }, start_time: 'asap', end_time: '2027-01-01T00:00:00Z' };
const verdict = agent.validateRequest('create_media_buy', request);
if (!verdict.ok) for (const issue of verdict.issues) console.log(issue.pointer, issue.keyword);
const normalized = agent.normalize('create_media_buy', request);
console.log(names, release, normalized.applied.map((a) => a.rule));
`);
  assert.ok(r.ok, r.output);
});

test('a handler returning the wrong shape, a missing handler, or a tool outside the profile does not compile', () => {
  const wrongShape = typecheck(`
import { AdcpError, loadProfile } from GENERATED;
const agent = await loadProfile('guaranteed-publisher');
agent.registerMcp({}, { get_products: () => ({ products: 42 }), create_media_buy: () => ({ media_buy_id: 'm', packages: [] }), ${PUBLISHER_REST} });
`);
  assert.not.ok(wrongShape.ok);
  assert.match(wrongShape.output, /products/);
  const missing = typecheck(`
import { loadProfile } from GENERATED;
const agent = await loadProfile('guaranteed-publisher');
agent.registerMcp({}, { get_products: () => ({ products: [] }) });
`);
  assert.not.ok(missing.ok, 'registration refuses a missing handler, so the types do too');
  assert.match(missing.output, /create_media_buy/);
  const wrongTool = typecheck(`
import { loadProfile } from GENERATED;
const agent = await loadProfile('signals-agent');
agent.validateRequest('create_media_buy', {});
`);
  assert.not.ok(wrongTool.ok);
  assert.match(wrongTool.output, /create_media_buy/);
});

// ---------------------------------------------------------------------------------------------------------------
// Two releases: a handler is typed by the release its body is sent as.

const THINGS_REST = `make_thing: (args) => ({ thing: args.thing }),`;

test('two releases: per-release handlers each see their own request and must answer their own response', async () => {
  const entry = join(await twoReleaseSet(), 'index.js');
  const ok = typecheck(
    `
import { AdcpError, loadProfile, type RequestOf, type ResponseOf } from GENERATED;
const agent = await loadProfile('things-seller');
agent.registerMcp({}, {
  get_things: {
    '9.2': (args, ctx) => {
      const release: '9.2' = ctx.release;
      const mode: 'brief' | 'wholesale' = args.mode;
      if (mode === 'wholesale') return { status: 'rejected', reason: 'no wholesale feed here (' + release + ')' };
      return { things: [], cache_scope: 'public' };
    },
    '9.1': (args, ctx) => {
      const release: '9.1' = ctx.release;
      return args.limit === 0 ? new AdcpError('UNSUPPORTED_FEATURE', 'limit 0 in ' + release) : { things: [{ id: 't1' }] };
    },
  },
  ${THINGS_REST}
});
// One function is written in the newest release's shape (9.2): its args are 9.2's request with what a 9.1 buyer
// does not send optional (mode), and it answers 9.2's response (make_thing's thing_status); ctx.release says who asked.
agent.registerMcp({}, {
  get_things: (args, ctx) => {
    const mode: 'brief' | 'wholesale' | undefined = args.mode;
    const order: 'name' | 'newest' | undefined = args.order;
    return { things: [{ id: String(mode) + String(order) }], cache_scope: ctx.release === '9.2' ? 'account' : 'public' };
  },
  make_thing: (args) => ({ thing: { ...args.thing, label: 'new in 9.2' }, thing_status: 'active' }),
});
const request: RequestOf<'get_things', '9.2'> = { mode: 'brief' };
const body: ResponseOf<'get_things', '9.1'> = { things: [] };
console.log(request, body);
`,
    entry,
  );
  assert.ok(ok.ok, ok.output);

  const bad = (handler: string): string => {
    const r = typecheck(`import { loadProfile } from GENERATED;\nconst agent = await loadProfile('things-seller');\nagent.registerMcp({}, { get_things: ${handler}, ${THINGS_REST} });\n`, entry);
    assert.not.ok(r.ok, `${handler} compiled`);
    return r.output;
  };
  // The gap is a gap: a 9.1 buyer's request has no mode, so a handler cannot take it for granted.
  assert.match(bad(`(args) => { const mode: 'brief' | 'wholesale' = args.mode; return { things: [{ id: mode }], cache_scope: 'public' }; }`), /undefined/);
  // One function answers 9.2's shape: 9.1's own status is no 9.2 status (the runtime converts thing_status for 9.1).
  const once = typecheck(`import { loadProfile } from GENERATED;\nconst agent = await loadProfile('things-seller');\nagent.registerMcp({}, { get_things: () => ({ things: [], cache_scope: 'public' as const }), make_thing: () => ({ status: 'active' as const }) });\n`, entry);
  assert.not.ok(once.ok, 'a 9.1-shaped make_thing function does not compile');
  // 9.2 requires cache_scope (its else arm): a body valid only in 9.1 is rejected, alone or from one shared function.
  assert.match(bad(`{ '9.2': () => ({ things: [] }), '9.1': () => ({ things: [] }) }`), /cache_scope/);
  assert.match(bad(`async () => ({ things: [] })`), /cache_scope/);
  // The rejected arm requires its reason; the status of a plain answer is the runtime's.
  assert.match(bad(`{ '9.2': () => ({ status: 'rejected' }), '9.1': () => ({ things: [] }) }`), /reason/);
  assert.match(bad(`{ '9.2': () => ({ things: [], cache_scope: 'public', status: 'bogus' }), '9.1': () => ({ things: [] }) }`), /bogus/);
  // The envelope is the runtime's: a handler cannot set adcp_version or context.
  assert.match(bad(`{ '9.2': () => ({ things: [], cache_scope: 'public', adcp_version: '9.1' }), '9.1': () => ({ things: [] }) }`), /'string' is not assignable to type 'undefined'/);
  assert.match(bad(`{ '9.2': () => ({ things: [], cache_scope: 'public' }), '9.1': () => ({ things: [], context: { a: 1 } }) }`), /'\{ a: number; \}' is not assignable to type 'undefined'/);
  // Every served release needs its handler, and only served releases have one.
  assert.match(bad(`{ '9.2': () => ({ things: [], cache_scope: 'public' }) }`), /9\.1/);
  assert.match(bad(`{ '9.2': () => ({ things: [], cache_scope: 'public' }), '9.1': () => ({ things: [] }), '9.0': () => ({ things: [] }) }`), /9\.0/);
  // 9.1's make_thing defines its own status values; 9.2's does not.
  const make = (handler: string) => typecheck(`import { loadProfile } from GENERATED;\nconst agent = await loadProfile('things-seller');\nagent.registerMcp({}, { get_things: (_a, ctx) => ({ things: [], cache_scope: 'public' as const, r: ctx.release }), make_thing: ${handler} });\n`, entry);
  const active = make(`{ '9.1': () => ({ status: 'active' }), '9.2': () => ({}) }`);
  assert.ok(active.ok, active.output);
  assert.not.ok(make(`{ '9.1': () => ({}), '9.2': () => ({ status: 'active' }) }`).ok);
  // A 9.1 request has no mode.
  assert.match(bad(`{ '9.2': () => ({ things: [], cache_scope: 'public' }), '9.1': (args) => ({ things: [{ id: args.mode }] }) }`), /mode/);
});

test.run();
