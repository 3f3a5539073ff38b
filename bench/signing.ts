import { spawnSync } from 'node:child_process';
import { createMediaBuyRequest } from '../test/helpers/payloads.js';
import { repoRoot } from '../test/helpers/releases.js';
import { setAt } from '../test/helpers/generated.js';
import { freshKey, signed, signingProfileSet, toolCall, type PlainRequest } from '../test/helpers/signing.js';
import { tempDir } from '../test/helpers/temp.js';
import { median } from './stats.js';

/**
 * Issue 30 point 1: what verifying a signed request adds. One agent (the guaranteed-publisher profile with
 * request_signing, AdCP 3.0.6, production mode) over the embedded store (SQLite in a state directory), in one process:
 * the same create_media_buy as the HTTP entry would handle it — `requestSignatures.verify` then `agent.call` — unsigned
 * (with another authenticator's credentials, so the required_for operation passes) and signed by @adcp/sdk's signer
 * (Ed25519, content-digest covered; signing itself is the buyer's and is done beforehand). Rounds alternate sides, so
 * both see the same machine; figures are medians of the rounds.
 */
const ROUNDS = 5;
const PER_ROUND = 300;
const URL_ = 'https://seller.example/mcp';

export async function run(): Promise<string[]> {
  const { loadProfile } = await setAt(await signingProfileSet());
  const key = freshKey('ed25519');
  const agent = await loadProfile('signing-publisher' as never, {
    store: { stateDir: tempDir('adcp-bench-signing-') },
    signing: { requests: { trust: [{ jwks: { keys: [key.jwk] }, principal: 'buyer' }] } },
    // A bench is one buyer at full speed: the idempotency insert budget would otherwise refuse it.
    idempotency: { writes: { sustainedPerSecond: 1e6, burstPerSecond: 1e6 } },
  });
  const verifier = agent.requestSignatures!;
  const handler = () => ({ media_buy_id: 'mb_1', packages: [] });
  const request = (): PlainRequest => toolCall(URL_, 'create_media_buy', createMediaBuyRequest());

  // What the first signed request of a process pays (agent.ready() starts it in the background after start): loading
  // @adcp/sdk's verifier, timed in a fresh process (this one loaded the SDK's signer for the buyer's side).
  const loads = Array.from({ length: 3 }, () => {
    const r = spawnSync(process.execPath, ['-e', "const t = performance.now(); require('@adcp/sdk/signing/server'); console.log(performance.now() - t)"], { cwd: repoRoot, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`bench/signing: ${r.stderr}`);
    return Number(r.stdout.trim());
  });

  const side = async (sign: boolean): Promise<{ verify: number; total: number }> => {
    const requests = Array.from({ length: PER_ROUND }, () => (sign ? signed(request(), key, { profile: 'legacy-3.1' }) : request()));
    let verifyMs = 0;
    const start = performance.now();
    for (const r of requests) {
      const v0 = performance.now();
      const verdict = await verifier.verify({ ...r, authenticated: !sign });
      verifyMs += performance.now() - v0;
      if (!verdict.ok || verdict.authenticatedBy !== (sign ? 'signature' : 'fallback')) throw new Error(`bench/signing: ${JSON.stringify(verdict)}`);
      const result = await agent.call('create_media_buy', (JSON.parse(r.body) as { params: { arguments: unknown } }).params.arguments, handler, { principal: 'buyer' });
      if (result.isError) throw new Error(`bench/signing: ${JSON.stringify(result.structuredContent)}`);
    }
    return { verify: (verifyMs * 1000) / PER_ROUND, total: ((performance.now() - start) * 1000) / PER_ROUND };
  };
  await side(false);
  await side(true);
  const unsigned: { verify: number; total: number }[] = [];
  const signedRuns: { verify: number; total: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    unsigned.push(await side(false));
    signedRuns.push(await side(true));
  }
  await agent.close();

  // The same verify() over the memory store: the checklist's own CPU (parsing, key import, Ed25519, digest), with no
  // durable write — what the embedded store's fsync adds is the difference.
  const cpuAgent = await loadProfile('signing-publisher' as never, { store: 'memory', signing: { requests: { trust: [{ jwks: { keys: [key.jwk] } }] } } });
  const cpu: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const requests = Array.from({ length: PER_ROUND }, () => signed(request(), key, { profile: 'legacy-3.1' }));
    const t0 = performance.now();
    for (const r of requests) if (!(await cpuAgent.requestSignatures!.verify(r)).ok) throw new Error('bench/signing: memory store');
    cpu.push(((performance.now() - t0) * 1000) / PER_ROUND);
  }
  await cpuAgent.close();
  const u = { verify: median(unsigned.map((x) => x.verify)), total: median(unsigned.map((x) => x.total)) };
  const s = { verify: median(signedRuns.map((x) => x.verify)), total: median(signedRuns.map((x) => x.total)) };
  return [
    `verify() per create_media_buy (embedded store, ${ROUNDS}×${PER_ROUND}): signed ${s.verify.toFixed(0)} µs (checklist, Ed25519, digest, replay insert); unsigned ${u.verify.toFixed(1)} µs (envelope read only)`,
    `  of which without a durable write (memory store): ${median(cpu).toFixed(0)} µs — @adcp/sdk's checklist; the rest is the embedded store's synchronous replay insert`,
    `verify() + agent.call per create_media_buy: signed ${s.total.toFixed(0)} µs, unsigned ${u.total.toFixed(0)} µs → signing adds ${((s.total / u.total - 1) * 100).toFixed(0)}% (×${(s.total / u.total).toFixed(2)})`,
    `once per process, on the first signed request unless ready() already did it in the background: loading @adcp/sdk/signing/server ${median(loads).toFixed(0)} ms (a fresh process); an unsigned request never loads it`,
  ];
}
