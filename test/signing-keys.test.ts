import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configuredKey } from '../runtime/services/keys/key-material.js';
import { committedSet, setAt } from './helpers/generated.js';
import { tempDir } from './helpers/temp.js';
import { STATED_BRAND_JSON, webhookSet } from './helpers/webhook-set.js';
import { expectWarnings } from './helpers/warnings.js';

// The warnings this file provokes on purpose (test/helpers/warnings.ts): captured, and each must occur.
expectWarnings(/hooks-production advertises webhook_signing but no identity\.brand_json_url/);

/**
 * The agent's signing key and its publication (security.mdx, Webhook callbacks: Key publication; "Discovering an
 * agent's signing keys via brand_json_url"): a configured key is checked without ever showing its private member; a
 * sandbox agent makes one development key in its store and keeps it; a production agent whose profile advertises
 * webhook signing refuses to start without a key; brand.json and the JWKS are served as the grader reads them, and
 * `identity.brand_json_url` is filled in where the release declares it and the profile does not state it.
 */
const { loadProfile } = await setAt(await webhookSet());
type Options = NonNullable<Parameters<typeof loadProfile>[1]>;
const agentOf = (name: string, options: Options) => loadProfile(name as never, options);

function ed25519(kid: string): Record<string, unknown> {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
  return { ...jwk, kid };
}

const throws = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('did not throw');
};

test('a configured key is checked: curve, kid, private and public members, what it states; no message shows d', () => {
  const good = ed25519('seller-2026-01');
  const secret = String(good.d);
  const pair = configuredKey(good, 'the test');
  assert.equal(pair.publicJwk, { kty: 'OKP', crv: 'Ed25519', x: good.x, kid: 'seller-2026-01', alg: 'EdDSA', use: 'sig', key_ops: ['verify'], adcp_use: 'request-signing' });
  assert.is(pair.signer.alg, 'ed25519');
  assert.is(pair.signer.keyid, 'seller-2026-01');
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
  assert.is(configuredKey({ ...ec, kid: 'ec-1' }, 'the test').publicJwk.alg, 'ES256');
  const other = ed25519('other');
  const ecOther = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const cases: [Record<string, unknown> | string, RegExp][] = [
    ['not an object', /is not a JWK/],
    [{ ...good, kid: undefined }, /needs a kid/],
    [{ ...good, crv: 'X25519' }, /Ed25519 \(kty OKP\) or P-256/],
    [{ ...good, d: undefined }, /no private member d/],
    [{ ...good, x: undefined }, /no public member x/],
    [{ ...good, x: other.x }, /public x that is not its private key's/],
    // A P-256 key whose x and y are another key's: Node 20 imports it as stated, so only the probe signature tells.
    [{ ...ec, kid: 'ec-2', x: ecOther.x, y: ecOther.y }, /public x and y that are not its private key's/],
    [{ ...good, x: 'AAAA' }, /public x that is not a valid Ed25519 public key|public x that is not its private key's/],
    [{ ...good, d: 'AAAA' }, /not a valid Ed25519 private key/],
    [{ ...good, alg: 'ES256' }, /states alg "ES256"/],
    [{ ...good, adcp_use: 'webhook-signing' }, /adcp_use "webhook-signing"/],
    [{ ...good, key_ops: ['verify'] }, /key_ops without "sign"/],
  ];
  for (const [jwk, expected] of cases) {
    const message = throws(() => configuredKey(jwk, 'ADCP_SIGNING_KEY'));
    assert.match(message, expected);
    assert.match(message, /^adcp-codegen: the signing key in ADCP_SIGNING_KEY /);
    assert.not.ok(message.includes(secret), 'never the private member');
    assert.not.match(message, /\n/);
  }
});

test('a sandbox agent makes one development key in its store, publishes it, and keeps it across restarts and instances', async () => {
  const stateDir = tempDir();
  const publicUrl = 'https://seller.example';
  const first = await agentOf('hooks-sandbox', { store: { stateDir }, publicUrl });
  await first.ready();
  const jwks = await first.wellKnown('/.well-known/jwks.json');
  assert.ok(jwks !== undefined);
  assert.is(jwks!.headers['content-type'], 'application/json', 'application/json: the grader parses no other');
  const keys = (JSON.parse(jwks!.body) as { keys: Record<string, unknown>[] }).keys;
  assert.is(keys.length, 1);
  const [key] = keys;
  assert.match(String(key!.kid), /^adcp-dev-[0-9a-f]{12}$/);
  assert.equal({ ...key, x: undefined, kid: undefined }, { kty: 'OKP', crv: 'Ed25519', x: undefined, kid: undefined, alg: 'EdDSA', use: 'sig', key_ops: ['verify'], adcp_use: 'request-signing' });
  assert.not.ok('d' in key!, 'public half only');
  const brand = JSON.parse((await first.wellKnown('/.well-known/brand.json'))!.body) as { agents: Record<string, unknown>[] };
  // One entry per URL the HTTP entry answers AdCP at (a verifier matches the URL it talks to, byte for byte).
  const jwks_uri = 'https://seller.example/.well-known/jwks.json';
  assert.equal(brand, {
    agents: [
      { type: 'sales', id: 'hooks_sandbox', url: 'https://seller.example/mcp', jwks_uri },
      { type: 'sales', id: 'hooks_sandbox_a2a', url: 'https://seller.example/a2a', jwks_uri },
      { type: 'sales', id: 'hooks_sandbox_a2a_base', url: 'https://seller.example', jwks_uri },
    ],
  });
  assert.is(await first.wellKnown('/.well-known/other.json'), undefined);
  // A second instance on the same store, while the first runs, and a restart: one key.
  const second = await agentOf('hooks-sandbox', { store: { stateDir }, publicUrl });
  await second.ready();
  assert.is(JSON.parse((await second.wellKnown('/.well-known/jwks.json'))!.body).keys[0].kid, key!.kid);
  await first.close();
  await second.close();
  const restarted = await agentOf('hooks-sandbox', { store: { stateDir } });
  await restarted.ready();
  assert.is(JSON.parse((await restarted.wellKnown('/.well-known/jwks.json'))!.body).keys[0].kid, key!.kid);
  assert.is(await restarted.wellKnown('/.well-known/brand.json'), undefined, 'no public URL known: no brand.json');
  await restarted.close();
  // Mode development is a sandbox too, on a production profile.
  const dev = await agentOf('hooks-production', { store: { stateDir }, mode: 'development' });
  await dev.ready();
  assert.is(JSON.parse((await dev.wellKnown('/.well-known/jwks.json'))!.body).keys[0].kid, key!.kid);
  await dev.close();
});

test('production: no key and webhook_signing advertised fails ready() in one line; a configured key (option, file, environment) is what it publishes', async () => {
  const stateDir = tempDir();
  const none = await agentOf('hooks-production', { store: { stateDir } });
  const e = await none.ready().then(() => undefined, (x: Error) => x);
  assert.ok(e instanceof Error);
  assert.match(e!.message, /hooks-production has no signing key: set ADCP_SIGNING_KEY_FILE/);
  assert.not.match(e!.message, /\n/);
  assert.is(await none.wellKnown('/.well-known/jwks.json'), undefined, 'no key, no JWKS');
  await none.close();

  const key = ed25519('seller-prod-1');
  const file = join(tempDir(), 'key.json');
  writeFileSync(file, JSON.stringify(key), { mode: 0o600 });
  const byOption = await agentOf('hooks-production', { store: { stateDir }, signing: { key: key as never } });
  const byFile = await agentOf('hooks-production', { store: { stateDir }, signing: { key: { file } } });
  process.env.ADCP_SIGNING_KEY_FILE = file;
  const byEnv = await agentOf('hooks-production', { store: { stateDir } });
  delete process.env.ADCP_SIGNING_KEY_FILE;
  process.env.ADCP_SIGNING_KEY = JSON.stringify(key);
  const byEnvJson = await agentOf('hooks-production', { store: { stateDir } });
  delete process.env.ADCP_SIGNING_KEY;
  for (const agent of [byOption, byFile, byEnv, byEnvJson]) {
    await agent.ready();
    const published = JSON.parse((await agent.wellKnown('/.well-known/jwks.json'))!.body).keys;
    assert.equal(published, [{ kty: 'OKP', crv: 'Ed25519', x: key.x, kid: 'seller-prod-1', alg: 'EdDSA', use: 'sig', key_ops: ['verify'], adcp_use: 'request-signing' }]);
    await agent.close();
  }
  // A bad file fails the start naming the file, never its content.
  writeFileSync(file, JSON.stringify({ ...key, kid: undefined }));
  const bad = await agentOf('hooks-production', { store: { stateDir }, signing: { key: { file } } });
  const e2 = await bad.ready().then(() => undefined, (x: Error) => x);
  assert.match(e2!.message, /the signing key in the file .*key\.json needs a kid/);
  assert.not.ok(e2!.message.includes(String(key.d)));
  writeFileSync(file, `{"d": "${String(key.d)}", oops`);
  const e3 = await (await agentOf('hooks-production', { store: { stateDir }, signing: { key: { file } } })).ready().then(() => undefined, (x: Error) => x);
  assert.match(e3!.message, /does not hold a JWK: it is not JSON/);
  assert.not.ok(e3!.message.includes(String(key.d)), 'a JSON parse error would quote the text: not ours');
  await bad.close();
  // The profile advertises ed25519: a P-256 key contradicts it.
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const wrongAlg = await agentOf('hooks-production', { store: { stateDir }, signing: { key: { ...ec, kid: 'ec' } as never } });
  assert.match(String(await wrongAlg.ready().catch((x: Error) => x.message)), /advertises webhook_signing.algorithms \["ed25519"\], but the signing key \(kid ec\) signs ecdsa-p256-sha256/);
  await wrongAlg.close();
});

test('capabilities: identity.brand_json_url from the https public URL where the release declares it; the profile\'s own kept; none from http', async () => {
  const key = ed25519('k1');
  const at = async (name: string, options: Options) => {
    const agent = await agentOf(name, { store: 'memory', signing: { key: key as never }, ...options });
    const caps = agent.capabilities();
    await agent.close();
    return caps as { identity?: Record<string, unknown>; webhook_signing?: unknown };
  };
  assert.equal((await at('hooks-production', { publicUrl: 'https://seller.example/' })).identity, { brand_json_url: 'https://seller.example/.well-known/brand.json' });
  assert.equal((await at('hooks-production', { publicUrl: 'https://seller.example', publication: { brandJsonUrl: 'https://corp.example/.well-known/brand.json' } })).identity, { brand_json_url: 'https://corp.example/.well-known/brand.json' });
  assert.equal((await at('hooks-stated', { publicUrl: 'https://seller.example' })).identity, { brand_json_url: STATED_BRAND_JSON }, 'the profile states it: kept');
  assert.is((await at('hooks-production', { publicUrl: 'http://127.0.0.1:3000' })).identity, undefined, 'the schema requires https');
  assert.is((await at('hooks-production', {})).identity, undefined, 'no public URL');
  process.env.ADCP_PUBLIC_URL = 'https://env.example';
  assert.equal((await at('hooks-production', {})).identity, { brand_json_url: 'https://env.example/.well-known/brand.json' });
  delete process.env.ADCP_PUBLIC_URL;
  // The served get_adcp_capabilities carries it, and a development agent's response validation accepts it.
  const dev = await agentOf('hooks-sandbox', { store: 'memory', mode: 'development', publicUrl: 'https://seller.example' });
  const r = await dev.call('get_adcp_capabilities', {}, () => dev.capabilities());
  assert.not.ok(r.isError, r.content[0]!.text);
  assert.is((r.structuredContent as { identity: { brand_json_url: string } }).identity.brand_json_url, 'https://seller.example/.well-known/brand.json');
  await dev.close();
  // AdCP 3.0 declares no identity.brand_json_url: the committed 3.0 set never gets one.
  const committed = await (await committedSet()).loadProfile('guaranteed-publisher', { store: 'memory', mode: 'development', publicUrl: 'https://seller.example', webhooks: {} });
  assert.is((committed.capabilities() as { identity?: unknown }).identity, undefined);
  assert.ok(await committed.wellKnown('/.well-known/brand.json'), 'its documents are served all the same');
  await committed.close();
  // A public URL that is not one fails the start.
  const bad = await agentOf('hooks-production', { store: 'memory', publicUrl: 'https://seller.example/?x=1' }).then(() => undefined, (x: Error) => x);
  assert.match(bad!.message, /AgentOptions.publicUrl must be a plain base URL/);
});

test.run();
