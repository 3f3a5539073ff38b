import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { committedSet } from './helpers/generated.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { repoRoot } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';
import { expectWarnings } from './helpers/warnings.js';

// The warnings this file provokes on purpose (test/helpers/warnings.ts): captured, and each must occur.
expectWarnings(
  /the handler for create_media_buy did not finish within/,
  /handler for create_media_buy failed: Error: downstream ad server timed out/,
  /create_media_buy: the idempotency store failed: PostgreSQL at 127\.0\.0\.1:9/,
  /guaranteed-publisher keeps idempotency keys in memory/,
);

/**
 * AdCP's replay contract in the runtime (security.mdx, Idempotency, rules 1–9), over the committed set's
 * guaranteed-publisher profile (AdCP 3.0.6, replay_ttl_seconds 86400) and the embedded store: SQLite in a state
 * directory, really opened. test/real/idempotency-pg.test.ts runs the same over a real PostgreSQL server and two
 * agent processes.
 */
const { loadProfile } = await committedSet();
type Agent = Awaited<ReturnType<typeof loadProfile>>;
type Body = Record<string, unknown>;

/** A create_media_buy handler counting its executions, each a new media buy. */
function counting(delayMs = 0) {
  const seen: Body[] = [];
  const handler = async (args: Body) => {
    seen.push(args);
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    return { media_buy_id: `mb_${seen.length}_${randomUUID().slice(0, 8)}`, packages: [] };
  };
  return { seen, handler };
}

const body = (r: { structuredContent?: Body }): Body => r.structuredContent!;
const error = (r: { structuredContent?: Body }): Body => body(r).adcp_error as Body;
const agentIn = (stateDir: string, options: Record<string, unknown> = {}): Promise<Agent> =>
  loadProfile('guaranteed-publisher', { store: { stateDir }, ...options } as Parameters<typeof loadProfile>[1]);

test('replay: the first success is canonical; the same key and payload replays it with replayed: true and the new context', async () => {
  const agent = await agentIn(tempDir());
  const { seen, handler } = counting();
  const request = createMediaBuyRequest({ context: { correlation_id: 'first' } });
  const first = await agent.call('create_media_buy', request, handler);
  assert.not.ok(first.isError, JSON.stringify(body(first)));
  assert.is(body(first).replayed, undefined, 'a fresh execution does not say replayed');
  const again = await agent.call('create_media_buy', { ...request, context: { correlation_id: 'retry' } }, handler);
  assert.not.ok(again.isError);
  assert.is(seen.length, 1, 'the handler ran once');
  assert.is(body(again).media_buy_id, body(first).media_buy_id);
  assert.is(body(again).replayed, true);
  assert.equal(body(again).context, { correlation_id: 'retry' }, 'the context is the retry\'s own (it is outside the hash)');
  const { context: _a, replayed: _r, ...replayedInner } = body(again);
  const { context: _b, ...firstInner } = body(first);
  assert.equal(replayedInner, firstInner, 'byte for byte the first answer');
  await agent.close();
});

test('conflict: the same key with another payload (ext, a field the strip removes, another tool) is IDEMPOTENCY_CONFLICT echoing nothing', async () => {
  const agent = await agentIn(tempDir());
  const { seen, handler } = counting();
  const request = createMediaBuyRequest({ context: { correlation_id: 'c1' } });
  assert.not.ok((await agent.call('create_media_buy', request, handler)).isError);
  const variants: [string, Body][] = [
    ['another budget', { ...request, packages: [{ ...(request.packages as Body[])[0], budget: 2000 }] }],
    ['ext (part of the payload)', { ...request, ext: { trace: 'x' } }],
    // Production strips unknown fields before the handler sees them; the hash covers the request as sent.
    ['an unknown field the strip removes', { ...request, brand: { ...(request.brand as Body), not_in_any_release: true } }],
    ['an added optional field', { ...request, po_number: 'PO-1' }],
  ];
  for (const [what, variant] of variants) {
    const r = await agent.call('create_media_buy', variant, handler);
    assert.ok(r.isError, what);
    const e = error(r);
    assert.is(e.code, 'IDEMPOTENCY_CONFLICT', what);
    assert.equal(Object.keys(e).sort(), ['code', 'message', 'recovery'], `${what}: no field, issues or details`);
    assert.equal(body(r).context, { correlation_id: 'c1' });
  }
  // Reusing a key on another tool is another payload.
  const update = await agent.call('update_media_buy', { idempotency_key: request.idempotency_key, account: request.account, media_buy_id: 'mb_1', paused: true }, () => ({ media_buy_id: 'mb_1', packages: [] }));
  assert.is(error(update).code, 'IDEMPOTENCY_CONFLICT');
  assert.is(seen.length, 1);
  await agent.close();
});

test('payload equivalence: context, governance_context and push credentials are outside the hash; the push URL is inside', async () => {
  const agent = await agentIn(tempDir());
  const { seen, handler } = counting();
  const push = (url: string, credentials: string) => ({ url, authentication: { schemes: ['Bearer'], credentials } });
  const request = createMediaBuyRequest({ context: { x: 1 }, governance_context: 'tok-1', push_notification_config: push('https://buyer.example/hook', 'secret-one-'.padEnd(40, '0')) });
  assert.not.ok((await agent.call('create_media_buy', request, handler)).isError);
  const rotated = { ...request, context: { x: 2 }, governance_context: 'tok-2', push_notification_config: push('https://buyer.example/hook', 'secret-two-'.padEnd(40, '0')) };
  assert.is(body(await agent.call('create_media_buy', rotated, handler)).replayed, true);
  const moved = { ...request, push_notification_config: push('https://other.example/hook', 'secret-one-'.padEnd(40, '0')) };
  assert.is(error(await agent.call('create_media_buy', moved, handler)).code, 'IDEMPOTENCY_CONFLICT');
  assert.is(seen.length, 1);
  await agent.close();
});

test('rule 1 and rule 3: a request its schema refuses never touches the cache; failures are not cached, a retry executes', async () => {
  const agent = await agentIn(tempDir());
  const key = randomUUID();
  const invalid = await agent.call('create_media_buy', createMediaBuyRequest({ idempotency_key: key, end_time: 7 }), () => ({ media_buy_id: 'never', packages: [] }));
  assert.is(error(invalid).code, 'INVALID_REQUEST');
  let runs = 0;
  const failing = () => {
    runs++;
    if (runs === 1) throw new Error('downstream ad server timed out');
    return { media_buy_id: `mb_run_${runs}`, packages: [] };
  };
  const request = createMediaBuyRequest({ idempotency_key: key });
  assert.is(error(await agent.call('create_media_buy', request, failing)).code, 'CONFIGURATION_ERROR');
  const retried = await agent.call('create_media_buy', request, failing);
  assert.not.ok(retried.isError);
  assert.is(body(retried).media_buy_id, 'mb_run_2', 'the retry executed');
  assert.is(body(retried).replayed, undefined);
  assert.is(body(await agent.call('create_media_buy', request, failing)).replayed, true);
  assert.is(runs, 2);
  await agent.close();
});

test('rule 9: twenty concurrent retries of one request execute it once and all answer its media buy', async () => {
  const agent = await agentIn(tempDir());
  const { seen, handler } = counting(150);
  const request = createMediaBuyRequest();
  const answers = await Promise.all(Array.from({ length: 20 }, () => agent.call('create_media_buy', request, handler)));
  assert.is(seen.length, 1);
  assert.ok(answers.every((a) => !a.isError), JSON.stringify(answers.find((a) => a.isError)?.structuredContent));
  assert.is(new Set(answers.map((a) => body(a).media_buy_id)).size, 1);
  assert.is(answers.filter((a) => body(a).replayed === true).length, 19);
  await agent.close();
});

test('rule 9: a concurrent retry past the wait is IDEMPOTENCY_IN_FLIGHT with retry_after; another payload in flight is a conflict at once', async () => {
  const agent = await agentIn(tempDir(), { idempotency: { waitMs: 50 } });
  const { handler } = counting(600);
  const request = createMediaBuyRequest();
  const first = agent.call('create_media_buy', request, handler);
  await new Promise((r) => setTimeout(r, 100));
  const waiting = await agent.call('create_media_buy', request, handler);
  assert.is(error(waiting).code, 'IDEMPOTENCY_IN_FLIGHT');
  assert.is(error(waiting).recovery, 'transient');
  assert.ok(typeof error(waiting).retry_after === 'number' && (error(waiting).retry_after as number) >= 1);
  const other = await agent.call('create_media_buy', { ...request, po_number: 'PO-2' }, handler);
  assert.is(error(other).code, 'IDEMPOTENCY_CONFLICT');
  assert.not.ok((await first).isError);
  await agent.close();
});

test('rule 9: a handler past the handler timeout is abandoned (its signal aborts), its claim released, and a retry executes', async () => {
  const agent = await agentIn(tempDir(), { idempotency: { handlerTimeoutSeconds: 0.3 } });
  let aborted = false;
  let runs = 0;
  const handler = async (_args: Body, ctx: { signal?: AbortSignal }) => {
    runs++;
    if (runs === 1) {
      await new Promise((r) => ctx.signal!.addEventListener('abort', r));
      aborted = true;
      return { media_buy_id: 'late', packages: [] };
    }
    return { media_buy_id: 'on_time', packages: [] };
  };
  const request = createMediaBuyRequest();
  const slow = await agent.call('create_media_buy', request, handler);
  assert.is(error(slow).code, 'SERVICE_UNAVAILABLE');
  assert.is(error(slow).recovery, 'transient');
  assert.ok(aborted, 'ctx.signal aborted');
  const retry = await agent.call('create_media_buy', request, handler);
  assert.is(body(retry).media_buy_id, 'on_time');
  await agent.close();
});

test('rule 6: a key past its window (and the 60 s skew) is IDEMPOTENCY_EXPIRED, not a fresh execution', async () => {
  const stateDir = tempDir();
  const agent = await agentIn(stateDir);
  const { seen, handler } = counting();
  const request = createMediaBuyRequest();
  await agent.call('create_media_buy', request, handler);
  await agent.close();
  // The window's end moved back, as 24 hours and a minute would.
  const Database = createRequire(join(repoRoot, 'package.json'))('better-sqlite3') as new (f: string) => { prepare(s: string): { run(...a: unknown[]): unknown }; close(): void };
  const db = new Database(join(stateDir, 'adcp-state.sqlite'));
  db.prepare('UPDATE adcp_idempotency SET expires_at = ? WHERE idem_key = ?').run(Date.now() - 61_000, request.idempotency_key);
  db.close();
  const again = await agentIn(stateDir);
  const r = await again.call('create_media_buy', request, handler);
  assert.is(error(r).code, 'IDEMPOTENCY_EXPIRED');
  assert.is(seen.length, 1);
  await again.close();
});

test('rule 8: new keys past the write budget are RATE_LIMITED with retry_after, not cached; known keys still replay', async () => {
  const agent = await agentIn(tempDir(), { idempotency: { writes: { sustainedPerSecond: 1, burstPerSecond: 1 } } });
  const { handler } = counting();
  const requests = Array.from({ length: 11 }, () => createMediaBuyRequest());
  for (const r of requests.slice(0, 10)) assert.not.ok((await agent.call('create_media_buy', r, handler)).isError);
  const limited = await agent.call('create_media_buy', requests[10]!, handler);
  assert.is(error(limited).code, 'RATE_LIMITED');
  assert.ok((error(limited).retry_after as number) >= 1 && (error(limited).retry_after as number) <= 10);
  assert.is(body(await agent.call('create_media_buy', requests[0]!, handler)).replayed, true, 'a known key replays over budget');
  // Another account has its own budget.
  assert.not.ok((await agent.call('create_media_buy', createMediaBuyRequest({ account: { account_id: 'acc_other' } }), handler)).isError);
  await agent.close();
});

test('scope: keys belong to the authenticated agent; another principal\'s same key and payload is its own request', async () => {
  const agent = await agentIn(tempDir());
  const { seen, handler } = counting();
  const request = createMediaBuyRequest();
  await agent.call('create_media_buy', request, handler, { principal: 'buyer-a' });
  const b = await agent.call('create_media_buy', request, handler, { principal: 'buyer-b' });
  assert.is(body(b).replayed, undefined);
  assert.is(seen.length, 2);
  assert.is(body(await agent.call('create_media_buy', request, handler, { principal: 'buyer-a' })).replayed, true);
  await agent.close();
});

test('durable: kill -9 after an answer, then a new process on the same state directory replays it without running the handler', () => {
  const stateDir = tempDir();
  const script = join(tempDir(), 'agent.mjs');
  writeFileSync(
    script,
    [
      `const { loadProfile } = await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'generated/index.js')).href)});`,
      `const agent = await loadProfile('guaranteed-publisher', { store: { stateDir: process.argv[2] } });`,
      `const request = JSON.parse(process.argv[3]);`,
      `const r = await agent.call('create_media_buy', request, () => ({ media_buy_id: 'mb_' + process.pid, packages: [] }));`,
      `process.stdout.write(JSON.stringify(r.structuredContent));`,
      `process.kill(process.pid, 'SIGKILL');`,
    ].join('\n'),
  );
  const request = JSON.stringify(createMediaBuyRequest());
  const run = () => {
    const r = spawnSync(process.execPath, [script, stateDir, request], { encoding: 'utf8' });
    assert.is(r.signal, 'SIGKILL', r.stderr);
    return JSON.parse(r.stdout) as Body;
  };
  const first = run();
  const second = run();
  assert.is(second.replayed, true);
  assert.is(second.media_buy_id, first.media_buy_id, 'the first process\'s media buy, not the second\'s');
});

test('faults: an unreachable DATABASE_URL or an unusable state directory fails ready() in one line naming where, no secret; a call answers SERVICE_UNAVAILABLE without running the handler', async () => {
  const down = await loadProfile('guaranteed-publisher', { store: { url: 'postgres://agent:s3cr3t-pass@127.0.0.1:9/adcp' } });
  const e = await down.ready().then(() => undefined, (x: Error) => x);
  assert.ok(e instanceof Error);
  assert.match(e!.message, /127\.0\.0\.1:9/);
  assert.not.match(e!.message, /s3cr3t/);
  assert.not.match(e!.message, /\n/);
  let ran = false;
  const r = await down.call('create_media_buy', createMediaBuyRequest(), () => ((ran = true), { media_buy_id: 'x', packages: [] }));
  assert.is(error(r).code, 'SERVICE_UNAVAILABLE');
  assert.not.match(JSON.stringify(r), /s3cr3t/);
  assert.not.ok(ran, 'the handler never runs when its execution cannot be recorded');
  await down.close();
  const file = join(tempDir(), 'not-a-directory');
  writeFileSync(file, 'x');
  const bad = await agentIn(file);
  const e2 = await bad.ready().then(() => undefined, (x: Error) => x);
  assert.match(e2!.message, /not-a-directory/);
});

test('the profile is the truth: a replay window other than the profile\'s fails the start', async () => {
  const e = await loadProfile('guaranteed-publisher', { store: 'memory', idempotency: { replayTtlSeconds: 3600 } }).then(() => undefined, (x: Error) => x);
  assert.match(e!.message, /replay_ttl_seconds 86400/);
  const ok = await loadProfile('guaranteed-publisher', { store: 'memory', idempotency: { replayTtlSeconds: 86400 } });
  await ok.close();
});


test('a completion whose commit landed while its acknowledgement was lost is recorded once, without the "claim outlived its deadline" warning', async () => {
  const { idempotencyService } = await import('../runtime/services/idempotency/service.js');
  const { lazyStore } = await import('../runtime/stores/open.js');
  const { StoreUnavailable } = await import('../runtime/stores/sql.js');
  const real = lazyStore({ stateDir: tempDir() }, 'ack-lost');
  let lost = 0;
  // The store as a connection dropping right after COMMIT shows it: the completion ran, its answer never came back.
  const store = {
    where: real.where,
    log: real.log,
    open: async () => {
      const sql = await real.open();
      return {
        ...sql,
        query: async (text: string, params?: readonly unknown[]) => {
          const r = await sql.query(text, params);
          if (text.startsWith('UPDATE adcp_idempotency') && lost++ === 0) throw new StoreUnavailable('the test store', new Error('connection terminated after COMMIT'));
          return r;
        },
      };
    },
    close: () => real.close(),
  };
  const warned: string[] = [];
  const onWarning = (w: Error): void => void warned.push(w.message);
  process.on('warning', onWarning);
  try {
    const service = idempotencyService(store, { replayTtlSeconds: 3600, handlerTimeoutMs: 5_000, waitMs: 100 });
    const request = { principal: 'p', account: undefined, tool: 'create_media_buy', key: randomUUID(), kind: 'write' as const, args: { a: 1 } };
    const first = await service.begin(request);
    assert.is(first.kind, 'claimed');
    if (first.kind === 'claimed') await first.complete({ media_buy_id: 'mb_1' });
    assert.is(lost, 2, 'the completion was retried once');
    const again = await service.begin(request);
    assert.equal(again, { kind: 'replay', body: { media_buy_id: 'mb_1' } });
    await new Promise((r) => setImmediate(r));
    assert.equal(warned.filter((m) => /outlived its deadline/.test(m)), []);
  } finally {
    process.off('warning', onWarning);
    await real.close();
  }
});

test.run();
