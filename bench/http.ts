import {
  CREATE_MEDIA_BUY_REQUEST,
  CREATE_MEDIA_BUY_RESPONSE,
  GET_PRODUCTS_REQUEST,
  idempotencyKey,
  INVALID_GET_PRODUCTS_REQUEST,
  INVALID_RESPONSE_BRIEF,
} from './http-bodies.js';
import { load, post, rpcBody, toolsCall, type LoadResult } from './http-load.js';
import { processCpuMs, startServer, type ServerChild, type Side } from './http-spawn.js';
import { addedCost } from './http-services.js';
import { median } from './stats.js';

/**
 * Serving AdCP over real HTTP, ours against the peer, in one run: each server in a child process of its own
 * (http-server.ts; ours: http-ours.ts, the peer: @adcp/sdk 6.11 createAdcpServer + serve(), http-peer.ts), this process
 * the load generator speaking MCP Streamable HTTP stateless JSON-RPC directly (http-load.ts), byte-identical request
 * bodies (http-bodies.ts), every answer checked. Throughput figures are interleaved rounds of a fixed duration, the
 * order alternating round by round, medians; the server's CPU per request comes from /proc. Start-up is spawn() to
 * the first answered tools/call (node's own start included), interleaved spawns, medians.
 *
 * ADCP_BENCH_HTTP_CPU_PROF=<dir> runs the throughput children under `node --cpu-prof` into <dir>.
 */
const ROUNDS = 7;
const ROUND_MS = 500;
const WARM_MS = { getProducts: 3500, createMediaBuy: 2000, toolsList: 800 };
const SPAWNS = 7;
const PEER = '@adcp/sdk serve()';
const OURS_SETUP = 'agent.serve, the committed guaranteed-publisher profile (AdCP 3.0.6, production mode), apiKeyAuth (one static key), idempotency on the embedded store (SQLite, WAL, synchronous NORMAL; insert budgets raised past the load)';
const PEER_SETUP = 'createAdcpServer (legacy/v5) per request, verifyApiKey (one static key), createIdempotencyStore(memoryBackend()), validation at its default (NODE_ENV unset)';

interface Figure {
  label: string;
  concurrency: number;
  /** The next request to `side`: its JSON-RPC id and body. */
  next(side: Side): { id: number; body: string };
}

export async function run(): Promise<string[]> {
  const lines: string[] = [];
  const profDir = process.env.ADCP_BENCH_HTTP_CPU_PROF;
  const nodeArgs = profDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profDir}`];
  const servers = { ours: await startServer('ours', nodeArgs), peer: await startServer('peer', nodeArgs) };
  const sides = ['ours', 'peer'] as const;
  // Per server: the JSON-RPC ids and create_media_buy idempotency keys it has been sent (the same sequence for both).
  const ids = { ours: 0, peer: 0 };
  const buys = { ours: 0, peer: 0 };
  const getProducts = (side: Side) => {
    const id = ++ids[side];
    return { id, body: toolsCall(id, 'get_products', GET_PRODUCTS_REQUEST) };
  };
  const createMediaBuy = (side: Side) => {
    const id = ++ids[side];
    return { id, body: toolsCall(id, 'create_media_buy', { ...CREATE_MEDIA_BUY_REQUEST, idempotency_key: idempotencyKey(buys[side]++) }) };
  };
  const toolsList = (side: Side) => {
    const id = ++ids[side];
    return { id, body: rpcBody(id, 'tools/list', {}) };
  };
  try {
    // Both answer tools/call with no initialize first (stateless Streamable HTTP), with the bodies they were given.
    const lists = { ours: await check(servers.ours, getProducts, createMediaBuy, toolsList), peer: await check(servers.peer, getProducts, createMediaBuy, toolsList) };
    lines.push(`ours: ${OURS_SETUP}; ${describe(lists.ours)}`);
    lines.push(`${PEER}: ${PEER_SETUP}; ${describe(lists.peer)}`);
    lines.push(`both: stateless Streamable HTTP, tools/call answered with no initialize first, as ${[...new Set(sides.map((x) => lists[x].contentType.split(';')[0]))].join(' / ')}`);
    lines.push(`validation, probed once per server before measuring (an invalid get_products request; a handler answering an invalid body):`);
    for (const side of sides) lines.push(`  ${name(side)}: ${await probeValidation(servers[side], () => ++ids[side])}`);
    const names = (side: Side) => lists[side].tools.join(',');
    if (names('ours') !== names('peer')) lines.push(`  (tools differ: ours ${lists.ours.tools.join(' ')}; peer ${lists.peer.tools.join(' ')})`);

    // Warm both before any round counts: the first call's lazy loads, and above all V8's tiering and heap sizing, which
    // take both servers several thousand requests (5-8 s at full load, measured) to reach their steady rate; a 1.5 s
    // warm-up left both at half speed in the first rounds. tools/call's costs are mostly shared between the two tools.
    for (const [next, ms] of [[getProducts, WARM_MS.getProducts], [createMediaBuy, WARM_MS.createMediaBuy], [toolsList, WARM_MS.toolsList]] as const) {
      for (const side of sides) await load(servers[side].url, 16, ms, () => next(side));
    }

    const figures: Figure[] = [
      { label: 'tools/call get_products c=1', concurrency: 1, next: getProducts },
      { label: 'tools/call get_products c=16', concurrency: 16, next: getProducts },
      { label: 'tools/call create_media_buy c=1 (fresh idempotency_key each)', concurrency: 1, next: createMediaBuy },
      { label: 'tools/call create_media_buy c=16 (fresh idempotency_key each)', concurrency: 16, next: createMediaBuy },
      { label: `tools/list c=16 (ours ${kb(lists.ours.wireBytes)}, peer ${kb(lists.peer.wireBytes)} on the wire)`, concurrency: 16, next: toolsList },
    ];
    lines.push(
      `throughput, ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s per server (order alternating), medians; ours ÷ peer paired ` +
        `within each round, median [min–max]; ` +
        `server CPU per request from /proc; the load generator's CPU (this process) as % of one core, ours' rounds / the peer's:`,
    );
    for (const f of figures) {
      const rounds = { ours: [] as Round[], peer: [] as Round[] };
      for (let r = 0; r < ROUNDS; r++) {
        for (const side of r % 2 === 0 ? sides : ([...sides].reverse() as Side[])) rounds[side].push(await round(servers[side], f.concurrency, () => f.next(side)));
      }
      const rps = { ours: median(rounds.ours.map((x) => x.rps)), peer: median(rounds.peer.map((x) => x.rps)) };
      // Paired within each round (the two sides' rounds are adjacent in time, so a load swing on the machine hits both).
      const ratios = rounds.ours.map((o, i) => o.rps / rounds.peer[i]!.rps);
      const cpu = { ours: medianOf(rounds.ours.map((x) => x.serverCpuMsPerRequest)), peer: medianOf(rounds.peer.map((x) => x.serverCpuMsPerRequest)) };
      const client = { ours: median(rounds.ours.map((x) => x.clientCpuShare)), peer: median(rounds.peer.map((x) => x.clientCpuShare)) };
      lines.push(
        `  ${f.label}: ours ${int(rps.ours)} req/s, ${PEER} ${int(rps.peer)} req/s: ${median(ratios).toFixed(2)}x ` +
          `[${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}]` +
          (cpu.ours !== undefined && cpu.peer !== undefined ? `; server CPU per request ours ${ms(cpu.ours)} ms, peer ${ms(cpu.peer)} ms (ours ÷ peer ${(cpu.ours / cpu.peer).toFixed(2)})` : '') +
          `; load generator ${pct(client.ours)} / ${pct(client.peer)}`,
      );
    }
  } finally {
    await Promise.all(sides.map((s) => servers[s].stop()));
  }

  // Start-up: a new child each time, spawn() → "listening" → the first get_products answered; one unmeasured spawn of
  // each first (disk cache, the generated set's code cache), then interleaved, the order alternating.
  const starts = { ours: [] as Start[], peer: [] as Start[] };
  for (const side of sides) await firstAnswer(side, () => getProducts(side));
  for (let i = 0; i < SPAWNS; i++) for (const side of i % 2 === 0 ? sides : ([...sides].reverse() as Side[])) starts[side].push(await firstAnswer(side, () => getProducts(side)));
  const first = { ours: median(starts.ours.map((s) => s.firstMs)), peer: median(starts.peer.map((s) => s.firstMs)) };
  const ready = { ours: median(starts.ours.map((s) => s.readyMs)), peer: median(starts.peer.map((s) => s.readyMs)) };
  const startRatios = starts.ours.map((o, i) => o.firstMs / starts.peer[i]!.firstMs);
  lines.push(
    `process start (spawn, node's own start included) to the first answered tools/call get_products, ${SPAWNS} interleaved spawns each, medians: ` +
      `ours ${int(first.ours)} ms (listening at ${int(ready.ours)} ms), ${PEER} ${int(first.peer)} ms (listening at ${int(ready.peer)} ms): ours ÷ peer ${median(startRatios).toFixed(2)} ` +
      `[${Math.min(...startRatios).toFixed(2)}–${Math.max(...startRatios).toFixed(2)}] paired by spawn, ${(1 / median(startRatios)).toFixed(1)}x faster`,
  );
  lines.push(...(await addedCost()));
  return lines;

  function name(side: Side): string {
    return side === 'ours' ? 'ours' : PEER;
  }
}

interface Round {
  rps: number;
  serverCpuMsPerRequest: number | undefined;
  clientCpuShare: number;
}

async function round(server: ServerChild, concurrency: number, next: () => { id: number; body: string }): Promise<Round> {
  const cpu0 = processCpuMs(server.child.pid);
  const r: LoadResult = await load(server.url, concurrency, ROUND_MS, next);
  const cpu1 = processCpuMs(server.child.pid);
  return {
    rps: r.requests / r.seconds,
    serverCpuMsPerRequest: cpu0 === undefined || cpu1 === undefined ? undefined : (cpu1 - cpu0) / r.requests,
    clientCpuShare: r.clientCpuMs / (r.seconds * 1000),
  };
}

interface ListInfo {
  tools: string[];
  /** Tools whose inputSchema declares no properties (describes nothing of the request). */
  openInputs: number;
  wireBytes: number;
  contentType: string;
}

/** One of each request, the answers' bodies checked beyond "not an error": the handlers' fixed bodies came back. */
async function check(
  server: ServerChild,
  getProducts: (s: Side) => { id: number; body: string },
  createMediaBuy: (s: Side) => { id: number; body: string },
  toolsList: (s: Side) => { id: number; body: string },
): Promise<ListInfo> {
  const gp = getProducts(server.side);
  const products = bodyOf((await post(server.url, gp.body, gp.id)).result).products as { product_id: string }[] | undefined;
  if (products?.[0]?.product_id !== 'homepage_takeover') throw new Error(`bench/http: ${server.side} get_products answered ${JSON.stringify(products)}`);
  const cmb = createMediaBuy(server.side);
  const buy = bodyOf((await post(server.url, cmb.body, cmb.id)).result);
  if (buy.media_buy_id !== CREATE_MEDIA_BUY_RESPONSE.media_buy_id) throw new Error(`bench/http: ${server.side} create_media_buy answered ${JSON.stringify(buy)}`);
  const tl = toolsList(server.side);
  const list = await post(server.url, tl.body, tl.id);
  const entries = list.result.tools as { name: string; inputSchema?: { properties?: object } }[] | undefined;
  const tools = entries?.map((t) => t.name).sort();
  if (entries === undefined || tools === undefined || !tools.includes('get_products') || !tools.includes('create_media_buy')) throw new Error(`bench/http: ${server.side} tools/list: ${JSON.stringify(tools)}`);
  const openInputs = entries.filter((t) => Object.keys(t.inputSchema?.properties ?? {}).length === 0).length;
  return { tools, openInputs, wireBytes: list.wireBytes, contentType: list.contentType };
}

/** What `server` does with an invalid request and with a handler's invalid body. */
async function probeValidation(server: ServerChild, nextId: () => number): Promise<string> {
  const logged = server.stderr().length;
  let id = nextId();
  const request = (await post(server.url, toolsCall(id, 'get_products', INVALID_GET_PRODUCTS_REQUEST), id, undefined, true)).result;
  await new Promise((r) => setTimeout(r, 100));
  const log = server.stderr().slice(logged);
  id = nextId();
  const response = (await post(server.url, toolsCall(id, 'get_products', { ...GET_PRODUCTS_REQUEST, brief: INVALID_RESPONSE_BRIEF }), id, undefined, true)).result;
  const requestSays = request.isError === true ? `refused (${errorCode(request)})` : `answered${/valid/i.test(log) ? ', a warning logged' : ' (nothing logged)'}`;
  const responseSays = response.isError === true ? `refused (${errorCode(response)})` : 'sent as is';
  return `invalid request ${requestSays}; invalid handler body ${responseSays}`;
}

function errorCode(result: Record<string, unknown>): string {
  const body = bodyOf(result) as { adcp_error?: { code?: string }; errors?: { code?: string }[] } | null;
  return body?.adcp_error?.code ?? body?.errors?.[0]?.code ?? 'isError';
}

/** A tool result's AdCP body: structuredContent, else the first text content parsed. */
function bodyOf(result: Record<string, unknown>): Record<string, unknown> {
  if (result.structuredContent !== undefined) return result.structuredContent as Record<string, unknown>;
  const text = (result.content as { type: string; text?: string }[] | undefined)?.find((c) => c.type === 'text')?.text;
  try {
    return JSON.parse(text ?? 'null') as Record<string, unknown>;
  } catch {
    return { text };
  }
}

function describe(list: ListInfo): string {
  return `tools/list ${list.tools.length} tools, ${int(list.wireBytes)} bytes, ${list.openInputs} with an open inputSchema (no properties)`;
}

interface Start {
  readyMs: number;
  firstMs: number;
}

async function firstAnswer(side: Side, next: () => { id: number; body: string }): Promise<Start> {
  const server = await startServer(side);
  try {
    const { id, body } = next();
    await post(server.url, body, id);
    return { readyMs: server.readyMs, firstMs: performance.now() - server.spawnedAt };
  } finally {
    await server.stop();
  }
}

function medianOf(xs: (number | undefined)[]): number | undefined {
  return xs.some((x) => x === undefined) ? undefined : median(xs as number[]);
}

function int(x: number): string {
  return Math.round(x).toLocaleString('en-US');
}

function ms(x: number): string {
  return x.toFixed(x < 1 ? 3 : 2);
}

function pct(x: number): string {
  return `${Math.round(x * 100)}%`;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}
