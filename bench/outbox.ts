import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../test/helpers/fixture-release.js';
import { startPostgres, type PostgresServer } from '../test/helpers/postgres.js';
import { repoRoot } from '../test/helpers/releases.js';
import { median } from './stats.js';

/**
 * Webhook deliveries per second to a local receiver (node:http on 127.0.0.1 answering 204), in one run, as ratios
 * against plain unsigned fetch deliveries of the same body at the same concurrency:
 * - @adcp/sdk's emitter alone (RFC 9421 signing per attempt, the pin-and-bind SSRF fetch), no store: what signing and
 *   the safe fetch cost;
 * - the outbox on the embedded store (SQLite, WAL, synchronous FULL) and on PostgreSQL (test/helpers/postgres.ts: a
 *   local server, fsync off): lease, sign, post, record. Delivery is timed on its own (events enqueued first by an agent
 *   that does not deliver, then one delivering agent started), enqueue too (sequential awaited enqueues).
 * The agent: the committed guaranteed-publisher profile in development mode (a sandbox: development key, loopback
 * receivers allowed), `webhooks: { concurrency: 16 }`. Rounds interleaved, medians. The receiver runs in this process, so every figure pays for it alike.
 */
const EVENTS = 400;
const CONCURRENCY = 16;
const ROUNDS = 5;

type Agent = {
  ready(): Promise<void>;
  close(): Promise<void>;
  webhooks: { enqueue(e: Record<string, unknown>): Promise<{ eventId: string }> };
};
type LoadProfile = (name: string, options: Record<string, unknown>) => Promise<Agent>;

const payload = (i: number) => ({
  task_id: `task_${i}`,
  task_type: 'create_media_buy',
  protocol: 'media-buy',
  status: 'completed',
  message: 'Media buy created',
  result: { media_buy_id: `mb_${i}`, status: 'active', packages: [{ package_id: 'pkg_1' }, { package_id: 'pkg_2' }], context: { correlation_id: `c_${i}` } },
});

export async function run(): Promise<string[]> {
  const { loadProfile } = (await import(pathToFileURL(join(repoRoot, 'generated/index.js')).href)) as { loadProfile: LoadProfile };
  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const waitFor = async (count: number): Promise<void> => {
    while (received < count) await new Promise((resolve) => setTimeout(resolve, 2));
  };
  const pool = async (n: number, one: (i: number) => Promise<void>): Promise<void> => {
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < n; i = next++) await one(i);
    }));
  };
  const perSecond = (n: number, ms: number): number => (n * 1000) / ms;

  const body = (i: number) => JSON.stringify({ idempotency_key: `whk_${String(i).padStart(32, '0')}`, ...payload(i), operation_id: `op_${i}`, timestamp: new Date().toISOString() });
  const plain = async (): Promise<number> => {
    const start = performance.now();
    await pool(EVENTS, async (i) => {
      const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(i) });
      await r.body?.cancel();
    });
    return perSecond(EVENTS, performance.now() - start);
  };

  const server = createRequire(join(repoRoot, 'package.json'))('@adcp/sdk/server') as {
    createWebhookEmitter(o: Record<string, unknown>): { emit(p: Record<string, unknown>): Promise<{ delivered: boolean }> };
    createPinAndBindFetch(o: Record<string, unknown>): unknown;
    LOOPBACK_OK_WEBHOOK_SSRF_POLICY: unknown;
  };
  const { generateKeyPairSync } = await import('node:crypto');
  const jwk = { ...(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'bench', alg: 'EdDSA', use: 'sig', key_ops: ['sign'], adcp_use: 'request-signing' };
  const emitterFetch = server.createPinAndBindFetch({ policy: server.LOOPBACK_OK_WEBHOOK_SSRF_POLICY });
  const emitterOnly = async (): Promise<number> => {
    const emitter = server.createWebhookEmitter({ signerKey: { keyid: 'bench', alg: 'ed25519', privateKey: jwk }, fetch: emitterFetch, retries: { maxAttempts: 1 } });
    const start = performance.now();
    await pool(EVENTS, async (i) => {
      const r = await emitter.emit({ url, payload: payload(i), operation_id: `op_${i}_${start}` });
      if (!r.delivered) throw new Error('the emitter did not deliver');
    });
    return perSecond(EVENTS, performance.now() - start);
  };

  let round = 0;
  const outbox = async (store: Record<string, unknown>): Promise<{ deliver: number; enqueue: number }> => {
    round++;
    const producer = await loadProfile('guaranteed-publisher', { mode: 'development', store, webhooks: { deliver: false } });
    await producer.ready();
    const startEnqueue = performance.now();
    for (let i = 0; i < EVENTS; i++) await producer.webhooks.enqueue({ url, dedupeKey: `bench:${round}:${i}`, operationId: `op_${i}`, payload: payload(i) });
    const enqueue = perSecond(EVENTS, performance.now() - startEnqueue);
    await producer.close();
    const target = received + EVENTS;
    const deliverer = await loadProfile('guaranteed-publisher', { mode: 'development', store, webhooks: { concurrency: CONCURRENCY, pollIntervalMs: 20 } });
    const start = performance.now();
    await deliverer.ready();
    await waitFor(target);
    const deliver = perSecond(EVENTS, performance.now() - start);
    await deliverer.close();
    return { deliver, enqueue };
  };

  let pg: PostgresServer | undefined;
  let pgProblem: string | undefined;
  try {
    pg = await startPostgres({ name: 'bench_outbox' });
  } catch (e) {
    pgProblem = (e as Error).message.split('\n')[0];
  }
  const figures = { plain: [] as number[], emitter: [] as number[], sqlite: [] as { deliver: number; enqueue: number }[], postgres: [] as { deliver: number; enqueue: number }[] };
  try {
    // Warm: the SDK's modules, the agent's store code, undici's pools.
    await plain();
    await emitterOnly();
    await outbox({ stateDir: tempDir('adcp-bench-outbox-') });
    for (let r = 0; r < ROUNDS; r++) {
      figures.plain.push(await plain());
      figures.emitter.push(await emitterOnly());
      figures.sqlite.push(await outbox({ stateDir: tempDir('adcp-bench-outbox-') }));
      if (pg !== undefined) figures.postgres.push(await outbox({ url: pg.url }));
    }
  } finally {
    await pg?.stop();
    receiver.closeAllConnections();
    receiver.close();
  }
  const base = median(figures.plain);
  const line = (label: string, value: number) => `${label.padEnd(62)} ${value.toFixed(0).padStart(6)}/s  ${(value / base).toFixed(2)}x`;
  const lines = [
    `${EVENTS} events a round, ${CONCURRENCY} in flight, ${ROUNDS} rounds, medians; ratios against plain fetch`,
    line('plain fetch, unsigned (baseline)', base),
    line('@adcp/sdk emitter: RFC 9421 signed, pin-and-bind fetch, no store', median(figures.emitter)),
    line('outbox, embedded store (SQLite): deliveries', median(figures.sqlite.map((f) => f.deliver))),
    line('outbox, embedded store (SQLite): enqueues (one at a time)', median(figures.sqlite.map((f) => f.enqueue))),
  ];
  if (pg !== undefined) {
    lines.push(line('outbox, PostgreSQL (local, fsync off): deliveries', median(figures.postgres.map((f) => f.deliver))));
    lines.push(line('outbox, PostgreSQL (local, fsync off): enqueues (one at a time)', median(figures.postgres.map((f) => f.enqueue))));
  } else {
    lines.push(`outbox, PostgreSQL: not measured (${pgProblem})`);
  }
  return lines;
}
