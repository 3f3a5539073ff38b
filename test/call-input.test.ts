import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { runCli } from './helpers/cli.js';
import { tempDir, tinyRelease, writeTree } from './helpers/fixture-release.js';
import { setAt } from './helpers/generated.js';

/**
 * agent.call never throws for anything its caller passes: every read of caller data goes through the parse-once
 * step, and what cannot be read there is an AdCP INVALID_REQUEST (no context echo when the context itself cannot
 * be read). A freshly generated set (tiny fixture release), so the runtime under test is this source's.
 */
const work = tempDir('adcp-call-input-');
const caps = { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] };
writeTree({ 'profiles/seller.json': { name: 'seller', tools: ['get_adcp_capabilities', 'get_things', 'make_thing'], capabilities: caps } }, work);

type Body = { adcp_error?: { code: string; issues?: { pointer: string; keyword: string }[] }; context?: unknown; things?: unknown };
type Agent = { call(tool: string, args: unknown, handler: (...a: unknown[]) => unknown, ctx?: unknown): Promise<{ content: { text: string }[]; isError?: boolean }> };
let agent: Agent;

test('setup: generate the set', async () => {
  const run = await runCli(['generate', '--release', tinyRelease(), '--profile', 'profiles/seller.json', '--out', 'out'], work);
  assert.is(run.code, 0, run.stderr);
  agent = (await (await setAt(join(work, 'out'))).loadProfile('seller' as never)) as unknown as Agent;
});

const throwing = (): never => {
  throw new Error('getter says no');
};
const withGetter = (base: Record<string, unknown>, field: string): Record<string, unknown> => Object.defineProperty({ ...base }, field, { enumerable: true, get: throwing });
const context = { correlation_id: 'c-1' };

async function rejected(args: unknown, pointer: string, echo: boolean, tool = 'get_things'): Promise<void> {
  let called = false;
  const result = await agent.call(tool, args, () => ((called = true), { things: [] }));
  const body = JSON.parse(result.content[0]!.text) as Body;
  assert.is(result.isError, true);
  assert.is(body.adcp_error?.code, 'INVALID_REQUEST', JSON.stringify(body));
  assert.is(body.adcp_error?.issues?.[0]?.pointer, pointer);
  if (echo) assert.equal(body.context, context);
  else assert.is(body.context, undefined, 'no echo');
  assert.is(called, false, 'the handler never saw it');
}

test('throwing getters on adcp_version, adcp_major_version, context and tool arguments are INVALID_REQUEST', async () => {
  await rejected(withGetter({ context }, 'adcp_version'), '/adcp_version', true);
  await rejected(withGetter({ context }, 'adcp_major_version'), '/adcp_major_version', true);
  await rejected(withGetter({ limit: 3 }, 'context'), '/context', false);
  await rejected(withGetter({ context }, 'limit'), '/limit', true);
  await rejected(withGetter({ context }, 'thing'), '/thing', true, 'make_thing');
  await rejected({ context, thing: withGetter({}, 'id') }, '/thing', true, 'make_thing');
  await rejected({ context: withGetter({}, 'correlation_id') }, '/context', false);
});

test('proxies, cycles, BigInts and throwing toJSON are INVALID_REQUEST, never an exception', async () => {
  const trap = (): never => {
    throw new Error('trap');
  };
  await rejected(new Proxy({}, { ownKeys: trap, get: trap, getOwnPropertyDescriptor: trap, has: trap, getPrototypeOf: trap }), '', false);
  await rejected({ context, limit: new Proxy({}, { get: trap, ownKeys: trap }) }, '/limit', true);
  const cyclic: Record<string, unknown> = { context };
  cyclic.limit = { back: cyclic };
  await rejected(cyclic, '/limit', true);
  await rejected({ context, limit: 1n }, '/limit', true);
  await rejected({ context, limit: { toJSON: throwing } }, '/limit', true);
  await rejected({ context: { toJSON: throwing } }, '/context', false);
  // The arguments are read exactly once, through the copy: a getter that answers differently each time cannot
  // show release selection one value and validation another.
  let reads = 0;
  const flip = Object.defineProperty({ context }, 'adcp_version', { enumerable: true, get: () => (reads++ === 0 ? '9.1' : 'not-a-version') });
  const result = await agent.call('get_things', flip, () => ({ things: [] }));
  assert.is(reads, 1);
  assert.is(result.isError, undefined, result.content[0]!.text);
});

test('a hostile handler result or thrown value is the agent’s failure (CONFIGURATION_ERROR, not retryable), not an exception', async () => {
  const warn = process.emitWarning;
  process.emitWarning = () => undefined; // the runtime logs the handler's failure; keep the test output clean
  try {
    const outcomes = [
      await agent.call('get_things', { context }, () => withGetter({}, 'things')),
      await agent.call('get_things', { context }, () => ({ things: [], n: 1n })),
      await agent.call('get_things', { context }, () => {
        throw new Proxy({}, { get: throwing, getPrototypeOf: throwing });
      }),
      await agent.call('get_things', { context }, () => Promise.reject({ toString: throwing })),
      await agent.call('get_things', { context }, () => ({ get then(): never { return throwing(); } })),
      await agent.call('get_things', { context }, () => ({}), withGetter({}, 'auth')),
    ];
    for (const r of outcomes) {
      const body = JSON.parse(r.content[0]!.text) as Body;
      assert.is(body.adcp_error?.code, 'CONFIGURATION_ERROR', r.content[0]!.text);
      assert.equal(body.context, context);
    }
  } finally {
    process.emitWarning = warn;
  }
});


test('an unknown tool with unreadable arguments is still an AdCP error, never an exception', async () => {
  const { unknownToolResult } = await import('../runtime/agent.js');
  const result = unknownToolResult('no_such_tool', withGetter({ context }, 'adcp_version'), ['9.0']);
  const body = JSON.parse(result.content[0]!.text) as Body & { adcp_version?: string };
  assert.is(body.adcp_error?.code, 'UNSUPPORTED_FEATURE');
  assert.equal(body.context, context);
  assert.is(body.adcp_version, '9.0');
  const hostile = unknownToolResult('no_such_tool', withGetter({}, 'context'), ['9.0']);
  assert.is((JSON.parse(hostile.content[0]!.text) as Body).context, undefined, 'no echo of an unreadable context');
});

test.run();
