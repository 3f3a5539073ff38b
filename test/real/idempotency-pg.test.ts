import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rpc, toolsCall } from '../helpers/http.js';
import { createMediaBuyRequest } from '../helpers/payloads.js';
import { startPostgres } from '../helpers/postgres.js';
import { sellerScript, startSeller, type SellerProcess } from '../helpers/seller-process.js';

/**
 * Idempotency shared by every instance (issue 29 point 6): a real PostgreSQL server on loopback and agent processes
 * on it, each the reference seller on the product's HTTP entry (agent.serve, Bearer API key), as a load balancer would
 * use them. create_media_buy's handler records each execution in a table of its own before it answers, so a count of
 * executions is a count of side effects, whatever answered the buyer.
 *
 * - one media buy per key across instances: the second instance replays the first's answer;
 * - twenty concurrent retries split over both instances execute once and all answer one media buy;
 * - `kill -9` during a handler, then a retry on the other instance: it executes once, after the dead claim's
 *   handler timeout;
 * - a restart (`kill -9`, start again) still replays.
 */
const KEY = 'sk_pg_test_key_01';
const server = await startPostgres({ name: 'agents' });
const db = new pg.Client({ connectionString: server.url });
await db.connect();
await db.query('CREATE TABLE executions (idem_key TEXT NOT NULL, pid INTEGER NOT NULL, at BIGINT NOT NULL)');

// The reference seller, its create_media_buy recording each execution (pg beside it for its side-effect log).
const script = sellerScript({
  preamble: [`import pg from 'pg';`, `const side = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });`],
  agentOptions: '{ idempotency: { handlerTimeoutSeconds: Number(process.env.HANDLER_TIMEOUT_S) } }',
  handlers: [
    `const handlers = { ...seller, create_media_buy: async (args, ctx) => {`,
    `  await new Promise((r) => setTimeout(r, Number(process.env.DELAY_MS ?? 0)));`,
    `  await side.query('INSERT INTO executions VALUES ($1, $2, $3)', [args.idempotency_key, process.pid, Date.now()]);`,
    `  return seller.create_media_buy(args, ctx);`,
    `} };`,
  ],
  key: KEY,
  principal: 'buyer-pg',
});

type Instance = SellerProcess;

function start(env: Record<string, string> = {}): Promise<Instance> {
  return startSeller(script, { DATABASE_URL: server.url, HANDLER_TIMEOUT_S: '3', ...env }, server.password);
}

function kill(instance: Instance): Promise<void> {
  return new Promise((resolve) => {
    instance.child.once('exit', () => resolve());
    instance.child.kill('SIGKILL');
  });
}

const auth = { authorization: `Bearer ${KEY}` };
async function create(instance: Instance, request: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await rpc(instance.url, toolsCall('create_media_buy', request), auth);
  assert.is(r.status, 200, r.text);
  return JSON.parse(r.text).result.structuredContent as Record<string, any>;
}
const executions = async (key: unknown): Promise<number> => Number((await db.query('SELECT count(*) AS n FROM executions WHERE idem_key = $1', [key])).rows[0].n);

let a: Instance;
let b: Instance;

test('two instances on one PostgreSQL: one media buy per key; the other instance replays it', async () => {
  [a, b] = await Promise.all([start(), start()]);
  const request = createMediaBuyRequest({ account: { account_id: 'acc_1' } });
  const first = await create(a, request);
  assert.match(first.media_buy_id, /^mb_/, JSON.stringify(first));
  const second = await create(b, { ...request, context: { via: 'b' } });
  assert.is(second.media_buy_id, first.media_buy_id);
  assert.is(second.replayed, true);
  assert.equal(second.context, { via: 'b' });
  assert.is(await executions(request.idempotency_key), 1);
});

test('twenty concurrent retries of one request, split over both instances, execute once and answer one media buy', async () => {
  const request = createMediaBuyRequest({ account: { account_id: 'acc_1' } });
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i % 2 === 0 ? a : b, request)));
  assert.ok(answers.every((x) => x.adcp_error === undefined), JSON.stringify(answers.find((x) => x.adcp_error !== undefined)));
  assert.is(new Set(answers.map((x) => x.media_buy_id)).size, 1);
  assert.is(answers.filter((x) => x.replayed === true).length, 19);
  assert.is(await executions(request.idempotency_key), 1);
});

test('kill -9 during a handler, then a retry on the other instance: it executes once, once the dead claim\'s handler timeout passed', async () => {
  const slow = await start({ DELAY_MS: '5000' });
  const request = createMediaBuyRequest({ account: { account_id: 'acc_1' } });
  const pending = rpc(slow.url, toolsCall('create_media_buy', request), auth).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 700));
  await kill(slow);
  await pending;
  assert.is(await executions(request.idempotency_key), 0, 'the killed handler never got to its side effect');
  // The claim lives until the dead handler's deadline (3 s): the retry waits for it, then executes.
  const retried = await create(a, request);
  assert.match(retried.media_buy_id, /^mb_/, JSON.stringify(retried));
  assert.is(await executions(request.idempotency_key), 1);
  assert.is((await create(b, request)).replayed, true);
  assert.is(await executions(request.idempotency_key), 1);
});

test('a restart still replays: kill -9 both instances, start one again, and the key answers its first media buy', async () => {
  const request = createMediaBuyRequest({ account: { account_id: 'acc_1' }, idempotency_key: randomUUID() });
  const first = await create(a, request);
  await Promise.all([kill(a), kill(b)]);
  const again = await start();
  try {
    const replayed = await create(again, request);
    assert.is(replayed.media_buy_id, first.media_buy_id);
    assert.is(replayed.replayed, true);
    assert.is(await executions(request.idempotency_key), 1);
  } finally {
    await kill(again);
  }
});

test('a DATABASE_URL that cannot be reached fails the start in one line naming the host, never the password', async () => {
  const refused = await start({ DATABASE_URL: `postgres://agent:pg-secret-0001@127.0.0.1:9/agents` }).then(
    () => undefined,
    (e: Error) => e.message,
  );
  assert.match(String(refused), /127\.0\.0\.1:9/);
  assert.not.match(String(refused), /pg-secret-0001/);
});

test('teardown', async () => {
  await db.end();
  await server.stop();
});

test.run();
