import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { governedPayloadHash } from '../runtime/services/governance/hash.js';
import { setAt } from '../test/helpers/generated.js';
import { AUTHORIZATION_HEADER, governanceKey, intentClaims, signToken } from '../test/helpers/governance.js';
import { governanceSet } from '../test/helpers/governance-set.js';
import { tempDir } from '../test/helpers/temp.js';
import { median } from './stats.js';

/**
 * Issue 42 point 4: what verifying a governance_context adds to a governed call, keys cached. One agent (the fixture
 * set's gov-seller: make_thing enforced, signed_context) over the embedded store, in one process; the buyer's
 * brand.json and the governance agent's JWKS on a loopback server, fetched on the first governed call and cached
 * after it (the bench stays inside their cache lifetimes). The baseline is the same call on the same agent without a
 * token (an account with no governance agent registered: no governance work). Tokens are signed beforehand — signing
 * is the governance agent's cost — and each call has its own idempotency key and jti. Rounds alternate sides; medians.
 */
const ROUNDS = 5;
const PER_ROUND = 300;

export async function run(): Promise<string[]> {
  const key = governanceKey('bench-gov');
  const server = createServer((req, res) => {
    const doc = req.url === '/brand.json' ? { agents: [{ type: 'governance', id: 'gov', url: ISS(), jwks_uri: `${base}/jwks.json` }] } : req.url === '/jwks.json' ? { keys: [key.publicJwk] } : undefined;
    if (doc === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ISS = () => `${base}/governance`;
  const AUD = 'https://seller.bench/mcp';
  const { loadProfile } = await setAt(await governanceSet());
  const agent = await loadProfile('gov-seller' as never, {
    mode: 'development',
    store: { stateDir: tempDir('adcp-bench-governance-') },
    idempotency: { writes: { sustainedPerSecond: 1e6, burstPerSecond: 1e6 } },
    governance: { audience: AUD, buyers: { buyer: { caller: 'https://buyer.bench', brandJson: `${base}/brand.json` } }, tasks: { make_thing: { commitment: (args: { budget: { amount: number; currency: string } }) => args.budget } } },
  } as never);
  const handler = () => ({ thing: { id: 't' } });
  let n = 0;
  const batch = async (governed: boolean) =>
    Promise.all(
      Array.from({ length: PER_ROUND }, async () => {
        const args = { idempotency_key: `bench-governance-${String(++n).padStart(10, '0')}`, account: { account_id: 'acc' }, budget: { amount: 100, currency: 'USD' } };
        if (!governed) return args;
        const at = { iss: ISS(), aud: AUD, caller: 'https://buyer.bench', task: 'make_thing', payloadHash: governedPayloadHash(args), iat: Math.floor(Date.now() / 1000), ttl: 900 };
        const claims = intentClaims(at, { policy_decision_hash: 'b'.repeat(64) });
        return { ...args, governance_context: await signToken({ alg: 'EdDSA', kid: 'bench-gov', ...AUTHORIZATION_HEADER }, claims, key.privateJwk) };
      }),
    );
  const side = async (governed: boolean): Promise<number> => {
    const requests = await batch(governed);
    const start = performance.now();
    for (const args of requests) {
      const result = await agent.call('make_thing', args, handler as never, { principal: 'buyer' });
      if (result.isError) throw new Error(`bench/governance: ${JSON.stringify(result.structuredContent)}`);
    }
    return ((performance.now() - start) * 1000) / PER_ROUND;
  };
  // Warm-up: loads jose and @adcp/sdk's pinned fetch, fetches and caches brand.json and the JWKS.
  await side(false);
  await side(true);
  const plain: number[] = [];
  const governed: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    plain.push(await side(false));
    governed.push(await side(true));
  }
  await agent.close();
  await new Promise((r) => server.close(r));
  const p = median(plain);
  const g = median(governed);
  return [
    `make_thing per call (embedded store, ${ROUNDS}×${PER_ROUND}, keys cached): governed ${g.toFixed(0)} µs, ungoverned ${p.toFixed(0)} µs → verification adds ${(g - p).toFixed(0)} µs a call (×${(g / p).toFixed(2)}): the 15-step checklist (parse, jose Ed25519, JCS payload hash), the brand.json and JWKS lookups from cache, the jti insert and its spend after the answer`,
  ];
}
