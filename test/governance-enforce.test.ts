import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { FlattenedSign, importJWK } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { governedPayloadHash } from '../runtime/services/governance/hash.js';
import { setAt } from './helpers/generated.js';
import { AUTHORIZATION_HEADER, governanceKey, intentClaims, signToken, type Jwk } from './helpers/governance.js';
import { governanceSet } from './helpers/governance-set.js';
import { tempDir } from './helpers/temp.js';


/**
 * Governance enforcement end to end on loopback (services/governance/enforce.ts, call/governance.ts): a seller whose
 * profile advertises `adcp.governance_enforcement` for make_thing, served by agent.serve with API keys, called with the
 * official MCP client; the buyer's brand.json, the governance JWKS and the signed revocation list served by a real
 * HTTP server on 127.0.0.1 (the seller is a sandbox, whose SSRF rule lets loopback in). A token bound to another
 * payload, task or audience, expired, replayed, revoked or from an issuer the buyer's brand.json does not list is
 * refused with the spec's code and books nothing; a refusal releases the idempotency claim, so the retry with a good
 * token books once.
 */
const { loadProfile } = await setAt(await governanceSet());
const gov = governanceKey('gov-1');
const rogue = governanceKey('rogue-1');
const AUD = 'https://seller.test/mcp';
const CALLER = 'https://buyer.test';

// The buyer's side of the web: brand.json naming its governance agent, that agent's JWKS and revocation list.
const documents = new Map<string, { status: number; body?: unknown }>();
const site: Server = createServer((req, res) => {
  const doc = documents.get(req.url ?? '') ?? { status: 404 };
  res.writeHead(doc.status, { 'content-type': 'application/json' }).end(doc.body === undefined ? undefined : JSON.stringify(doc.body));
});
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
const SITE = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
const ISS = `${SITE}/governance`;
documents.set('/.well-known/brand.json', { status: 200, body: { house: { domain: 'buyer.test', name: 'Buyer' }, brands: [{ id: 'b', agents: [{ type: 'governance', id: 'gov', url: ISS, jwks_uri: `${SITE}/gov/jwks.json` }] }] } });
documents.set('/gov/jwks.json', { status: 200, body: { keys: [gov.publicJwk] } });
// A second buyer whose governance agent's keys are out of reach.
documents.set('/other/brand.json', { status: 200, body: { agents: [{ type: 'governance', id: 'gov', url: ISS, jwks_uri: `${SITE}/down/jwks.json` }] } });
documents.set('/down/jwks.json', { status: 503 });

const booked: string[] = [];
const registered = new Set<string>(['acc_governed']);
const agent = await loadProfile('gov-seller' as never, {
  mode: 'development',
  store: { stateDir: tempDir() },
  governance: {
    audience: AUD,
    buyers: { buyer: { caller: CALLER, brandJson: `${SITE}/.well-known/brand.json` }, buyer2: { caller: CALLER, brandJson: `${SITE}/other/brand.json` } },
    registration: (args: { account: { account_id: string } }) => (registered.has(args.account.account_id) ? { url: 'https://gov.test/mcp' } : undefined),
    tasks: { make_thing: { commitment: (args: { budget: { amount: number; currency: string } }) => args.budget } },
  },
} as never);
const seen: unknown[] = [];
const handlers = {
  make_thing: (args: { idempotency_key: string }, ctx: { governance?: unknown }) => {
    booked.push(args.idempotency_key);
    seen.push(ctx.governance);
    return { thing: { id: `t_${booked.length}` }, media_buy_id: `mb_${booked.length}` };
  },
  create_media_buy: () => ({ thing: { id: 'x' } }),
};
const apiKeyAuth = (await setAt(await governanceSet())).apiKeyAuth;
const served = await agent.serve(handlers as never, { port: 0, host: '127.0.0.1', authenticate: apiKeyAuth({ 'k-buyer': { principal: 'buyer' }, 'k-buyer2': { principal: 'buyer2' }, 'k-stranger': { principal: 'stranger' } }) });

async function call(args: Record<string, unknown>, key = 'k-buyer'): Promise<Record<string, unknown>> {
  const client = new Client({ name: 'governance-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  try {
    return (await client.callTool({ name: 'make_thing', arguments: args })).structuredContent as Record<string, unknown>;
  } finally {
    await client.close();
  }
}

let n = 0;
const request = (over: Record<string, unknown> = {}) => ({ idempotency_key: `idem-enforce-${String(++n).padStart(6, '0')}`, account: { account_id: 'acc_governed' }, budget: { amount: 100, currency: 'USD' }, ...over });
const claims = (req: Record<string, unknown>, over: Record<string, unknown> = {}) =>
  intentClaims(
    { iss: ISS, aud: AUD, caller: CALLER, task: 'make_thing', payloadHash: governedPayloadHash(req), iat: Math.floor(Date.now() / 1000), ttl: 600 },
    { policy_decision_hash: 'f'.repeat(64), ...over },
  );
const token = (c: Record<string, unknown>, key: Jwk = gov.privateJwk, kid = 'gov-1') => signToken({ alg: 'EdDSA', kid, ...AUTHORIZATION_HEADER }, c, key);
const refusedWith = (body: Record<string, unknown>, code: string, governanceError?: string) => {
  const e = body.adcp_error as { code: string; details?: { governance_error?: string }; message: string } | undefined;
  assert.ok(e !== undefined, `refused: ${JSON.stringify(body)}`);
  assert.is(e!.code, code, e!.message);
  if (governanceError !== undefined) assert.is(e!.details?.governance_error, governanceError, e!.message);
};

test('revocation: a jti or kid on the issuer\'s signed list is refused; a list signed by another key is not trusted', async () => {
  const req = request();
  const revoked = claims(req);
  const now = new Date();
  const sign = async (payload: Record<string, unknown>, key: Jwk, kid: string) => {
    const { kid: _k, ...material } = key;
    return new FlattenedSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'adcp-gov-revocation+jws' }).sign(await importJWK(material as never, 'EdDSA'));
  };
  const list = { version: 1, issuer: ISS, updated: now.toISOString(), next_update: new Date(now.getTime() + 60_000).toISOString(), revoked_jtis: [revoked.jti], revoked_kids: [] };
  documents.set('/.well-known/governance-revocations.json', { status: 200, body: await sign(list, gov.privateJwk, 'gov-1') });
  // The seller polls at most once a minute: the list is read at this file's first verification.
  const before = booked.length;
  refusedWith(await call({ ...req, governance_context: await token(revoked) }), 'PERMISSION_DENIED', 'governance_token_revoked');
  assert.is(booked.length, before);
  const other = request();
  assert.ok(typeof (await call({ ...other, governance_context: await token(claims(other)) })).media_buy_id === 'string', 'an unrevoked token from the same issuer');
});

test('a token authorizing exactly this request books once; the handler is told its authorization', async () => {
  const req = request();
  const t = await token(claims(req));
  const before = booked.length;
  const body = await call({ ...req, governance_context: t, context: { trace: 'not bound' } });
  assert.is(body.media_buy_id, `mb_${before + 1}`, JSON.stringify(body));
  assert.is(booked.length, before + 1);
  assert.is((seen.at(-1) as { token: string }).token, t);
  // The same request again: the idempotency replay, nothing booked, whatever the token now is.
  const again = await call({ ...req, governance_context: t });
  assert.is(again.replayed, true);
  assert.is(booked.length, before + 1);
});

test('the version envelope a client adds after authorization is tolerated; anything else added is not', async () => {
  const req = request();
  const before = booked.length;
  // The token binds the request as the buyer formed it; its client library adds adcp_major_version on the wire.
  const body = await call({ ...req, adcp_major_version: 9, governance_context: await token(claims(req)) });
  assert.ok(typeof body.media_buy_id === 'string', JSON.stringify(body));
  const other = request();
  refusedWith(await call({ ...other, note: 'added later', governance_context: await token(claims(other)) }), 'PERMISSION_DENIED', 'governance_token_not_applicable');
  // A token that bound a version binds it: the request without it is another request.
  const pinned: Record<string, unknown> = request({ adcp_major_version: 9 });
  const { adcp_major_version: _v, ...unpinned } = pinned;
  refusedWith(await call({ ...unpinned, governance_context: await token(claims(pinned)) }), 'PERMISSION_DENIED', 'governance_token_not_applicable');
  assert.is(booked.length, before + 1);
});

test('bound to another payload, task or audience, expired, or by an issuer the buyer does not list: refused, nothing booked', async () => {
  const before = booked.length;
  const req = request();
  refusedWith(await call({ ...req, budget: { amount: 101, currency: 'USD' }, governance_context: await token(claims(req)) }), 'PERMISSION_DENIED', 'governance_token_not_applicable');
  refusedWith(await call({ ...req, governance_context: await token(claims(req, { authorized_task: 'create_media_buy' })) }), 'PERMISSION_DENIED', 'governance_token_not_applicable');
  refusedWith(await call({ ...req, governance_context: await token(claims(req, { aud: 'https://other-seller.test/mcp' })) }), 'PERMISSION_DENIED', 'governance_token_not_applicable');
  refusedWith(await call({ ...req, governance_context: await token(claims(req, { iat: 1_700_000_000, exp: 1_700_000_600 })) }), 'PERMISSION_DENIED', 'governance_token_expired');
  refusedWith(await call({ ...req, governance_context: await token(claims(req, { iss: 'https://rogue.test/governance' }), rogue.privateJwk, 'rogue-1') }), 'PERMISSION_DENIED', 'governance_issuer_not_authorized');
  refusedWith(await call({ ...req, governance_context: await token(claims(req, { caller: 'https://someone-else.test' })) }), 'PERMISSION_DENIED', 'governance_token_not_applicable');
  refusedWith(await call({ ...req, governance_context: await token(claims(req)) }, 'k-stranger'), 'PERMISSION_DENIED', 'governance_issuer_not_authorized');
  refusedWith(await call({ ...req, governance_context: 'not-a-jws' }), 'PERMISSION_DENIED', 'governance_token_invalid');
  assert.is(booked.length, before);
  // Every refusal released the idempotency claim: the same request with a good token books, once.
  const body = await call({ ...req, governance_context: await token(claims(req)) });
  assert.ok(typeof body.media_buy_id === 'string', JSON.stringify(body));
  assert.is(booked.length, before + 1);
});

test('a jti another request consumed is a replay; a registered account needs a token, an unregistered one does not', async () => {
  const first = request();
  const jti = `jti-shared-${Date.now()}`;
  assert.ok(typeof (await call({ ...first, governance_context: await token(claims(first, { jti })) })).media_buy_id === 'string');
  const second = request();
  const before = booked.length;
  refusedWith(await call({ ...second, governance_context: await token(claims(second, { jti })) }), 'PERMISSION_DENIED', 'governance_token_replayed');
  refusedWith(await call(request()), 'PERMISSION_DENIED');
  assert.is(booked.length, before);
  const free = request({ account: { account_id: 'acc_free' } });
  assert.ok(typeof (await call(free)).media_buy_id === 'string', 'no governance agent registered: no token needed');
  // A token sent for an unregistered account is verified all the same.
  refusedWith(await call({ ...request({ account: { account_id: 'acc_free' } }), governance_context: await token(claims(free)) }), 'PERMISSION_DENIED', 'governance_token_not_applicable');
});

test('the issuer\'s keys out of reach: GOVERNANCE_UNAVAILABLE (transient), nothing booked', async () => {
  const req = request();
  const before = booked.length;
  const body = await call({ ...req, governance_context: await token(claims(req)) }, 'k-buyer2');
  const e = body.adcp_error as { code: string; recovery: string; details: { governance_error: string } };
  assert.is(e.code, 'GOVERNANCE_UNAVAILABLE', JSON.stringify(e));
  assert.is(e.recovery, 'transient');
  assert.is(e.details.governance_error, 'governance_jwks_unavailable');
  assert.is(booked.length, before);
});

test('what does not start: a task listed without its pricing, a mode without signed_context, a task listed twice', async () => {
  const start = (name: string, governance: Record<string, unknown>) =>
    loadProfile(name as never, { mode: 'development', store: 'memory', governance } as never).then(
      () => 'started',
      (e: Error) => e.message,
    );
  assert.match(await start('gov-seller', { buyers: {} }), /governance\.tasks\.make_thing\.commitment is not given/);
  assert.match(await start('gov-seller-bad-mode', { buyers: {}, tasks: { make_thing: { commitment: () => undefined } } }), /must include signed_context/);
  assert.match(await start('gov-seller-twice', { buyers: {}, tasks: { make_thing: { commitment: () => undefined } } }), /names make_thing twice/);
  assert.match(await start('gov-seller-online', { buyers: {}, tasks: { create_media_buy: { commitment: () => undefined } } }), /plannedDelivery is not given/);
  assert.match(await start('gov-seller', { buyers: {}, tasks: { make_thing: { commitment: () => undefined }, create_media_buy: { commitment: () => undefined } } }), /names create_media_buy, which it does not list/);
});

test('close', async () => {
  await served.close();
  await new Promise((r) => site.close(r));
});

test.run();
