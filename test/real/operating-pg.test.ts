import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { http, rpc, toolsCall } from '../helpers/http.js';
import { createMediaBuyRequest } from '../helpers/payloads.js';
import { startPostgres } from '../helpers/postgres.js';
import { logLines, sellerScript, startSeller, type SellerProcess } from '../helpers/seller-process.js';

/**
 * Operating agents on one real PostgreSQL (issue 40 points 1 and 2), each the reference seller on agent.serve in a
 * process of its own, with its default signal handling; create_media_buy records each execution in a table of its
 * own before it answers, so a count of executions is a count of side effects.
 *
 * - A rolling restart under load: a balancer in this process (as a load balancer does: it polls /readyz, routes to
 *   the instances that answer ready, and resends a request whose connection failed to another one) keeps eight
 *   buyers sending create_media_buy while each instance in turn gets SIGTERM, drains, exits 0 and is replaced. Every
 *   call is answered with its media buy, and none executes twice.
 * - A database outage: /readyz turns 503 `store` while PostgreSQL is stopped, /healthz stays 200, and both turn back
 *   when it returns, the same process serving calls again.
 */
const KEY = 'sk_ops_pg_key_01';
const server = await startPostgres({ name: 'operating' });
const db = new pg.Client({ connectionString: server.url });
await db.connect();
// The outage test stops the server under this connection: its end is expected.
db.on('error', () => undefined);
await db.query('CREATE TABLE executions (idem_key TEXT NOT NULL, pid INTEGER NOT NULL)');

const script = sellerScript({
  preamble: [`import pg from 'pg';`, `const side = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });`],
  agentOptions: '{ idempotency: { writes: { sustainedPerSecond: 1e6, burstPerSecond: 1e6 } } }',
  handlers: [
    `const handlers = { ...seller, create_media_buy: async (args, ctx) => {`,
    `  await new Promise((r) => setTimeout(r, 150));`,
    `  await side.query('INSERT INTO executions VALUES ($1, $2)', [args.idempotency_key, process.pid]);`,
    `  return seller.create_media_buy(args, ctx);`,
    `} };`,
  ],
  serveOptions: 'drainDelayMs: 600,',
  key: KEY,
  principal: 'buyer-ops',
});

/** An instance, and what the balancer makes of it. */
interface Instance extends SellerProcess {
  /** What the balancer last saw of its readiness. */
  ready: boolean;
  readonly seen: Set<string>;
  readonly pool: Agent;
}

async function start(): Promise<Instance> {
  const p = await startSeller(script, { DATABASE_URL: server.url, ADCP_LOG_LEVEL: 'info' }, server.password);
  return Object.assign(p, { ready: false, seen: new Set<string>(), pool: new Agent({ keepAlive: true }) });
}

const auth = { authorization: `Bearer ${KEY}` };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The balancer: polls each instance's /readyz and sends calls to the ready ones, resending on a failed connection. */
class Balancer {
  readonly instances: Instance[] = [];
  resent = 0;
  private next = 0;
  private polling = true;
  private readonly poller: Promise<void>;

  constructor() {
    this.poller = (async () => {
      while (this.polling) {
        await Promise.all(this.instances.map((i) => this.probe(i)));
        await sleep(100);
      }
    })();
  }

  private async probe(i: Instance): Promise<void> {
    try {
      const r = await http(`${i.base}/readyz`);
      const status = (JSON.parse(r.text) as { status: string; reason?: string });
      i.seen.add(status.reason ?? status.status);
      i.ready = r.status === 200;
    } catch {
      i.ready = false;
      i.seen.add('unreachable');
    }
  }

  async call(request: Record<string, unknown>): Promise<Record<string, any>> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const ready = this.instances.filter((i) => i.ready);
      if (ready.length === 0) {
        await sleep(50);
        continue;
      }
      const target = ready[this.next++ % ready.length]!;
      try {
        const r = await rpc(target.url, toolsCall('create_media_buy', request), auth, target.pool);
        assert.is(r.status, 200, r.text);
        return JSON.parse(r.text).result.structuredContent as Record<string, any>;
      } catch (e) {
        if (e instanceof assert.Assertion) throw e;
        // The connection failed (refused, reset, closed before an answer): another instance, the same request.
        this.resent++;
        target.ready = false;
      }
    }
    throw new Error('no instance answered');
  }

  async stop(): Promise<void> {
    this.polling = false;
    await this.poller;
    for (const i of this.instances) i.pool.destroy();
  }
}

test('a rolling restart of two instances under load drops no call and executes none twice', async () => {
  const lb = new Balancer();
  lb.instances.push(await start(), await start());
  while (!lb.instances.every((i) => i.ready)) await sleep(50);
  const answers: Record<string, any>[] = [];
  let sending = true;
  const buyers = Array.from({ length: 8 }, async () => {
    while (sending) {
      const request = createMediaBuyRequest({ account: { account_id: 'acc_1' }, idempotency_key: randomUUID() });
      const body = await lb.call(request);
      answers.push({ key: request.idempotency_key, body });
    }
  });
  const exits: (number | null)[] = [];
  const drained: Instance[] = [];
  for (let turn = 0; turn < 2; turn++) {
    await sleep(700);
    const old = lb.instances[0]!;
    old.child.kill('SIGTERM');
    exits.push(await old.exited);
    drained.push(old);
    const fresh = await start();
    lb.instances.shift();
    lb.instances.push(fresh);
    while (!fresh.ready) await sleep(50);
  }
  await sleep(500);
  sending = false;
  await Promise.all(buyers);
  await lb.stop();

  assert.equal(exits, [0, 0], drained.map((i) => i.stderr()).join('\n'));
  for (const i of drained) assert.ok(i.seen.has('draining'), `the balancer saw ${[...i.seen].join(', ')}`);
  assert.ok(answers.length > 40, `${answers.length} calls answered`);
  const failed = answers.filter((a) => a.body.adcp_error !== undefined || typeof a.body.media_buy_id !== 'string');
  assert.equal(failed, [], 'every call answered with its media buy');
  const rows = (await db.query('SELECT idem_key, count(*)::int AS n FROM executions GROUP BY idem_key')).rows as { idem_key: string; n: number }[];
  assert.equal(rows.filter((r) => r.n > 1), [], 'no call executed twice');
  const executed = new Set(rows.map((r) => r.idem_key));
  assert.ok(answers.every((a) => executed.has(a.key)), 'every answered call executed once');
  for (const i of drained) {
    const events = logLines(i.stderr()).map((l) => l.event);
    assert.ok(events.includes('draining') && events.includes('stopped'), events.join(', '));
  }
  for (const i of lb.instances) {
    i.child.kill('SIGTERM');
    assert.is(await i.exited, 0);
  }
  console.log(`    rolling restart: ${answers.length} calls answered, ${lb.resent} resent after a failed connection`);
});

test('a database outage turns readiness off (503 store), liveness stays on; both back when it returns, no restart', async () => {
  const agent = await start();
  try {
    const ready = async () => (await http(`${agent.base}/readyz`)).status;
    assert.is(await ready(), 200);
    await server.halt();
    let seen = 0;
    for (let i = 0; i < 60 && seen !== 503; i++, await sleep(100)) seen = await ready();
    assert.is(seen, 503);
    assert.equal(JSON.parse((await http(`${agent.base}/readyz`)).text), { status: 'not_ready', reason: 'store' });
    assert.is((await http(`${agent.base}/healthz`)).status, 200);
    await server.resume();
    for (let i = 0; i < 100 && seen !== 200; i++, await sleep(100)) seen = await ready();
    assert.is(seen, 200);
    const r = await rpc(agent.url, toolsCall('create_media_buy', createMediaBuyRequest({ account: { account_id: 'acc_1' } })), auth);
    assert.match(JSON.parse(r.text).result.structuredContent.media_buy_id, /^mb_/);
    assert.is(agent.child.exitCode, null, 'the same process');
    const lines = logLines(agent.stderr()) as { event?: string; reason?: string; msg: string }[];
    const notReady = lines.find((l) => l.event === 'not_ready');
    assert.is(notReady?.reason, 'store');
    assert.not.match(notReady!.msg, new RegExp(server.password));
    assert.ok(lines.some((l) => l.event === 'ready'), 'readiness back, said once');
  } finally {
    agent.child.kill('SIGTERM');
    await agent.exited;
  }
});

test.after(async () => {
  await db.end();
  await server.stop();
});

test.run();
