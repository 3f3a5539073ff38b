import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EXAMPLE_ACCOUNTS } from '../helpers/generated.js';
import { a2aSend, rpc, toolsCall, type Exchange } from '../helpers/http.js';
import { createMediaBuyRequest } from '../helpers/payloads.js';
import { startPostgres } from '../helpers/postgres.js';
import { repoRoot } from '../helpers/releases.js';
import { tempDir } from '../helpers/temp.js';

/**
 * PostgreSQL stopped and restarted under load, over MCP and A2A (issue 39 points 2 and 8): the reference seller in a
 * process of its own on a real PostgreSQL server, buyers creating media buys with idempotency keys over both
 * transports and retrying each transient answer with the same key, as AdCP's buyer obligations say. Mid-load the
 * database is shut down (its connections cut), held down, and started again. The seller's create_media_buy records
 * each execution in a file (PostgreSQL is the thing that goes away), so a count of lines is a count of side effects.
 *
 * - the process lives through it, and recovers without a restart;
 * - the outage is answered as transient (SERVICE_UNAVAILABLE with retry_after, or a 503 with Retry-After), never as
 *   the agent's fault, and discovery keeps answering over both transports meanwhile;
 * - nothing is lost or done twice: every key ends with one media buy, executed once, which a retry replays.
 */
const KEY = 'sk_outage_key_01';
const AUTH = { authorization: `Bearer ${KEY}` };
const pg = await startPostgres({ name: 'outage' });
const agentDir = tempDir();
symlinkSync(join(repoRoot, 'node_modules'), join(agentDir, 'node_modules'), 'dir');
const executions = join(agentDir, 'executions.log');
writeFileSync(executions, '');
const script = join(agentDir, 'agent.mjs');
writeFileSync(
  script,
  [
    `import { appendFileSync } from 'node:fs';`,
    `const { loadProfile, apiKeyAuth } = await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'generated/index.js')).href)});`,
    `const { createSellerHandlers } = await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'examples/seller-agent.js')).href)});`,
    // A claim left by a completion the outage interrupted lapses within 5 s, not the default 120.
    `const agent = await loadProfile('guaranteed-publisher', { idempotency: { handlerTimeoutSeconds: 5 } });`,
    `const seller = createSellerHandlers(agent, { accounts: ${JSON.stringify(EXAMPLE_ACCOUNTS)} });`,
    `const handlers = { ...seller, create_media_buy: (args, ctx) => (appendFileSync(${JSON.stringify(executions)}, args.idempotency_key + '\\n'), seller.create_media_buy(args, ctx)) };`,
    `const served = await agent.serve(handlers, { port: 0, authenticate: apiKeyAuth({ ${JSON.stringify(KEY)}: { principal: 'buyer-outage' } }) });`,
    `process.stdout.write(served.url + '\\n');`,
  ].join('\n'),
);

/** One answer of a create_media_buy, over either transport: the media buy, or the AdCP error's code. */
type Outcome = { kind: 'ok'; id: string; replayed: boolean } | { kind: 'transient'; code: string } | { kind: 'other'; what: string };

function outcomeOf(x: Exchange, transport: 'mcp' | 'a2a'): Outcome {
  if (x.status === 503) return { kind: 'transient', code: `HTTP 503 retry-after ${String(x.headers['retry-after'])}` };
  let body: Record<string, any> | undefined;
  try {
    const json = JSON.parse(x.text) as Record<string, any>;
    body = transport === 'mcp' ? json.result?.structuredContent : json.result?.artifacts?.[0]?.parts?.[0]?.data;
  } catch {
    return { kind: 'other', what: `${x.status} ${x.text.slice(0, 200)}` };
  }
  if (body === undefined) return { kind: 'other', what: `${x.status} ${x.text.slice(0, 200)}` };
  const error = body.adcp_error as { code?: string; recovery?: string; retry_after?: number } | undefined;
  if (error === undefined) return { kind: 'ok', id: String(body.media_buy_id), replayed: body.replayed === true };
  if (error.recovery === 'transient' && typeof error.retry_after === 'number') return { kind: 'transient', code: String(error.code) };
  return { kind: 'other', what: JSON.stringify(error) };
}

test('PostgreSQL stopped and restarted under load: the agent lives, answers the outage as transient over MCP and A2A, and loses nothing nor does anything twice', async () => {
  const child: ChildProcess = spawn(process.execPath, [script], { cwd: agentDir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATABASE_URL: pg.url } });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let exited: string | undefined;
  child.on('exit', (code, signal) => (exited = String(code ?? signal)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', () => reject(new Error(`the agent exited before it served: ${stderr}`)));
    });
    const a2aUrl = url.replace(/\/mcp$/, '/a2a');
    const send = (transport: 'mcp' | 'a2a', request: Record<string, unknown>, id: number): Promise<Exchange> =>
      transport === 'mcp' ? rpc(url, toolsCall('create_media_buy', request, id), AUTH) : rpc(a2aUrl, a2aSend('create_media_buy', request, id), AUTH);
    const keys = Array.from({ length: 40 }, (_, i) => ({ key: randomUUID(), transport: (i % 2 === 0 ? 'mcp' : 'a2a') as 'mcp' | 'a2a' }));
    const requests = new Map(keys.map(({ key }) => [key, createMediaBuyRequest({ idempotency_key: key })]));
    const transients: string[] = [];
    const others: string[] = [];
    const answered = new Map<string, string>();
    let done = 0;
    let next = 0;
    let id = 0;
    const buyer = async (): Promise<void> => {
      for (let k = keys[next++]; k !== undefined; k = keys[next++]) {
        const deadline = Date.now() + 60_000;
        for (;;) {
          const o = outcomeOf(await send(k.transport, requests.get(k.key)!, ++id), k.transport);
          if (o.kind === 'ok') {
            answered.set(k.key, o.id);
            done++;
            break;
          }
          if (o.kind === 'other') others.push(`${k.transport}: ${o.what}`);
          else transients.push(`${k.transport}: ${o.code}`);
          if (o.kind === 'other' || Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, buyer));
    // A quarter in, the database goes away (its connections cut), for two seconds.
    while (done < keys.length / 4) await new Promise((r) => setTimeout(r, 20));
    await pg.halt();
    await new Promise((r) => setTimeout(r, 1_000));
    // Meanwhile discovery answers over both transports, anonymous and keyed (a keyed A2A Task cannot be kept now).
    const mcpCaps = JSON.parse((await rpc(url, toolsCall('get_adcp_capabilities', {}, 1))).text);
    assert.equal(mcpCaps.result.structuredContent.adcp.supported_versions, ['3.0']);
    const a2aCaps = JSON.parse((await rpc(a2aUrl, a2aSend('get_adcp_capabilities', {}, 2))).text);
    assert.is(a2aCaps.result.status.state, 'completed');
    const keyedCaps = JSON.parse((await rpc(a2aUrl, a2aSend('get_adcp_capabilities', {}, 3), AUTH)).text);
    assert.is(keyedCaps.result.artifacts[0].parts[0].data.adcp_error.code, 'SERVICE_UNAVAILABLE', JSON.stringify(keyedCaps));
    const taskRead = await rpc(a2aUrl, { jsonrpc: '2.0', id: 4, method: 'tasks/get', params: { id: 'task-x' } }, AUTH);
    assert.equal([taskRead.status, taskRead.headers['retry-after']], [503, '5']);
    await new Promise((r) => setTimeout(r, 1_000));
    await pg.resume();
    await load;

    assert.is(exited, undefined, `the agent process ended: ${stderr.slice(-2_000)}`);
    assert.equal(others, [], 'every error was transient');
    assert.ok(transients.length > 0, 'the outage was met');
    assert.ok(transients.some((t) => t.startsWith('mcp')) && transients.some((t) => t.startsWith('a2a')), `met on both transports: ${transients.slice(0, 5).join('; ')}`);
    assert.is(answered.size, keys.length, 'every key ended with a media buy');
    const ran = readFileSync(executions, 'utf8').split('\n').filter(Boolean);
    const over = (t: string): number => transients.filter((x) => x.startsWith(t)).length;
    console.log(`  ${keys.length} keys over MCP and A2A, ${transients.length} transient answers during the outage (${over('mcp')} MCP, ${over('a2a')} A2A), ${ran.length} executions`);
    const counts = new Map<string, number>();
    for (const key of ran) counts.set(key, (counts.get(key) ?? 0) + 1);
    assert.equal([...counts.values()].filter((n) => n > 1), [], 'no key executed twice');
    assert.is(counts.size, keys.length, 'every key executed once');
    // Nothing lost: each key's answer is recorded, and a retry replays it.
    for (const { key, transport } of keys.slice(0, 10)) {
      const o = outcomeOf(await send(transport, requests.get(key)!, ++id), transport);
      assert.equal(o, { kind: 'ok', id: answered.get(key)!, replayed: true }, key);
    }
  } finally {
    child.kill('SIGKILL');
    await pg.stop();
  }
});

test.run();
