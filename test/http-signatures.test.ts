import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exampleHandlers, setAt, type SellerHandlers } from './helpers/generated.js';
import { a2aSend, http, MCP_HEADERS, type Exchange } from './helpers/http.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { freshKey, signed, signingProfileSet, type PlainRequest } from './helpers/signing.js';
import { tempDir } from './helpers/temp.js';
import { captureLog } from './helpers/log-capture.js';

/**
 * The HTTP entry composes the request's RFC 9421 signature with its other credentials (admit.ts, docs/signing.md),
 * over real sockets, on a profile that requires a signature on create_media_buy and shadows update_media_buy:
 * a valid signature authenticates alone, a bad one is refused whatever Bearer came with it, an unsigned required
 * call needs other credentials, and the signer reaches the handler. Requests are signed by @adcp/sdk's own signer.
 */

const set = await setAt(await signingProfileSet());
const buyer = freshKey('ed25519');
const stranger = freshKey('ed25519');
// Each refused signature is a rejection the agent's log names, at info (the test's last check reads them).
const log = captureLog();
const agent = await set.loadProfile('signing-publisher' as never, {
  store: { stateDir: tempDir() },
  logger: log.logger,
  signing: { requests: { trust: [{ jwks: { keys: [buyer.jwk] }, agentUrl: 'https://buyer.example/mcp' }] } },
});
const base = (await exampleHandlers(agent)) as SellerHandlers;
const seen: { principal?: string; auth?: Record<string, unknown> }[] = [];
const handlers: SellerHandlers = {
  ...base,
  create_media_buy: (args, ctx) => (seen.push(ctx as (typeof seen)[number]), base.create_media_buy(args, ctx)),
};
const served = await agent.serve(handlers as never, { port: 0, authenticate: set.apiKeyAuth({ sk_buyer: { principal: 'buyer-account' } }) });
const mcpUrl = `http://127.0.0.1:${served.port}/mcp`;
const a2aUrl = `http://127.0.0.1:${served.port}/a2a`;
const BEARER = { authorization: 'Bearer sk_buyer' };

/** A JSON-RPC POST of `body` to `url`, signed by `key` unless none; the request's own headers, as signed, on the wire. */
function post(url: string, message: unknown, key?: typeof buyer, extra: Record<string, string> = {}): { request: PlainRequest; send(change?: (r: PlainRequest) => PlainRequest): Promise<Exchange> } {
  const plain: PlainRequest = { method: 'POST', url, headers: { 'content-type': 'application/json', host: new URL(url).host }, body: JSON.stringify(message) };
  const request = key === undefined ? plain : signed(plain, key, { profile: 'legacy-3.1' });
  return {
    request,
    send: (change = (r) => r) => {
      const r = change(request);
      return http(url, { method: 'POST', headers: { ...r.headers, accept: MCP_HEADERS.accept, ...extra }, body: r.body });
    },
  };
}
const createCall = () => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_media_buy', arguments: createMediaBuyRequest() } });
const toolResult = (x: Exchange): Record<string, any> => {
  const line = x.text.split('\n').find((l) => l.startsWith('data: '));
  return (JSON.parse(line !== undefined ? line.slice(6) : x.text) as { result: Record<string, any> }).result;
};

test('a valid signature authenticates a call with no other credentials: the signer is the principal and reaches the handler', async () => {
  seen.length = 0;
  const x = await post(mcpUrl, createCall(), buyer).send();
  assert.is(x.status, 200, x.text);
  assert.is(toolResult(x).isError, undefined, x.text);
  assert.is(seen.length, 1);
  assert.is(seen[0]!.principal, 'https://buyer.example/mcp');
  assert.equal((seen[0]!.auth as { verified_signer?: { keyid?: string; agent_url?: string } }).verified_signer?.keyid, buyer.kid);
});

test('signed and Bearer: the Bearer principal stays (the operator maps credentials to accounts), the signer rides along', async () => {
  seen.length = 0;
  const x = await post(mcpUrl, createCall(), buyer, BEARER).send();
  assert.is(x.status, 200, x.text);
  assert.is(seen[0]!.principal, 'buyer-account');
  assert.is((seen[0]!.auth as { verified_signer?: { agent_url?: string } }).verified_signer?.agent_url, 'https://buyer.example/mcp');
});

test('an unsigned create_media_buy (required_for) without other credentials is 401 Signature request_signature_required; with a Bearer it goes on', async () => {
  seen.length = 0;
  const bare = await post(mcpUrl, createCall()).send();
  assert.is(bare.status, 401);
  assert.is(bare.headers['www-authenticate'], 'Signature error="request_signature_required"');
  assert.is(seen.length, 0);
  const withKey = await post(mcpUrl, createCall(), undefined, BEARER).send();
  assert.is(withKey.status, 200, withKey.text);
  assert.is(seen.length, 1);
  assert.is(seen[0]!.principal, 'buyer-account');
});

test('a bad signature is refused whatever Bearer came with it: tampered body, replayed nonce, unknown key; the handler never runs', async () => {
  seen.length = 0;
  const call = post(mcpUrl, createCall(), buyer, BEARER);
  const tampered = await call.send((r) => ({ ...r, body: r.body.replace('"acc_1"', '"acc_2"') }));
  assert.is(tampered.status, 401);
  assert.is(tampered.headers['www-authenticate'], 'Signature error="request_signature_digest_mismatch"');
  assert.is((await call.send()).status, 200);
  const replayed = await call.send();
  assert.is(replayed.status, 401);
  assert.is(replayed.headers['www-authenticate'], 'Signature error="request_signature_replayed"');
  const unknown = await post(mcpUrl, createCall(), stranger, BEARER).send();
  assert.is(unknown.status, 401);
  assert.match(String(unknown.headers['www-authenticate']), /^Signature error="request_signature_key_unknown"$/);
  assert.is(seen.length, 1, 'only the intact first delivery ran');
});

test('the signed URL is the Host as received: a request signed for another authority is request_target_uri_malformed', async () => {
  const other = post(mcpUrl.replace('127.0.0.1', 'localhost'), createCall(), buyer);
  const x = await http(mcpUrl, { method: 'POST', headers: { ...other.request.headers, host: `127.0.0.1:${served.port}`, accept: MCP_HEADERS.accept }, body: other.request.body });
  assert.is(x.status, 401);
  assert.match(String(x.headers['www-authenticate']), /^Signature error="request_(target_uri_malformed|signature_invalid)"$/);
});

test('discovery stays public and unsigned; a wrong Bearer on it is still invalid_token', async () => {
  const caps = await post(mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_adcp_capabilities', arguments: {} } }).send();
  assert.is(caps.status, 200, caps.text);
  const wrong = await post(mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_adcp_capabilities', arguments: {} } }, undefined, { authorization: 'Bearer nope' }).send();
  assert.is(wrong.status, 401);
  assert.match(String(wrong.headers['www-authenticate']), /^Bearer .*error="invalid_token"/);
});

test('over A2A the same: a signed message/send of create_media_buy runs as its signer, an unsigned one without credentials is refused', async () => {
  seen.length = 0;
  const send = a2aSend('create_media_buy', createMediaBuyRequest());
  const ok = await post(a2aUrl, send, buyer).send();
  assert.is(ok.status, 200, ok.text);
  assert.is(seen.length, 1);
  assert.is(seen[0]!.principal, 'https://buyer.example/mcp');
  const bare = await post(a2aUrl, a2aSend('create_media_buy', createMediaBuyRequest(), 2)).send();
  assert.is(bare.status, 401);
  assert.is(bare.headers['www-authenticate'], 'Signature error="request_signature_required"');
  assert.is(seen.length, 1);
});

test.after(async () => {
  await served.close();
});

test('every refused signature was logged at info, naming the request and the code', () => {
  const refused = log.lines.filter((l) => l.event === 'signature_refused');
  assert.ok(refused.every((l) => l.level === 'info'));
  const said = refused.map((l) => l.msg).join('\n');
  for (const expected of [
    /POST \/mcp: request_signature_required/,
    /POST \/mcp: request_signature_replayed/,
    /POST \/mcp: request_signature_key_unknown/,
    /POST \/mcp: request_signature_invalid/,
    /POST \/mcp: request_signature_digest_mismatch/,
    /POST \/a2a: request_signature_required/,
  ]) {
    assert.match(said, expected);
  }
});

test.run();
