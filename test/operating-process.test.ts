import { generateKeyPairSync } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { http, rpc, toolsCall } from './helpers/http.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { logLines, sellerScript, startSeller, type SellerProcess } from './helpers/seller-process.js';
import { tempDir } from './helpers/temp.js';

/**
 * An agent process as operators run one (issue 40 points 2 and 3): the reference seller on agent.serve with the
 * default logger (pino, JSON lines on stderr) and the default signal handling, on the embedded store.
 * - SIGTERM during a call: the call is answered, the process says it drains and exits 0; a retry on the next process
 *   replays the answer (the claim was completed, not lost).
 * - No secret in any log line: API keys (good and refused), Authorization and x-adcp-auth headers, a buyer's webhook
 *   credentials, a credential sent in the arguments, the webhook signing key, a database password — sent, provoked
 *   and then searched for in every line the process wrote, at the most verbose level.
 */
const KEY = 'sk_live_OPS_SECRET_API_KEY_1';
const SECRETS = {
  apiKey: KEY,
  refusedKey: 'sk_live_OPS_SECRET_WRONG_KEY',
  adcpAuth: 'OPS_SECRET_X_ADCP_AUTH_TOKEN',
  basic: Buffer.from('buyer:OPS_SECRET_BASIC_PASSWORD').toString('base64'),
  webhookCredentials: 'OPS_SECRET_WEBHOOK_CREDENTIALS_0123456789abcdef',
  inArgs: 'OPS_SECRET_IN_ARGUMENTS',
  dbPassword: 'OPS_SECRET_PG_PASSWORD',
};
const signingKey = (() => {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as Record<string, string>;
  return { ...jwk, kid: 'ops-webhook-key', alg: 'EdDSA', use: 'sig' } as Record<string, string>;
})();

const script = sellerScript({
  agentOptions: '{ webhooks: {} }',
  handlers: [
    `const handlers = { ...seller, create_media_buy: async (args, ctx) => {`,
    `  await new Promise((r) => setTimeout(r, Number(process.env.DELAY_MS ?? 0)));`,
    `  return seller.create_media_buy(args, ctx);`,
    `}, get_products: (args, ctx) => { if (args.brief === 'throw') throw new Error('the catalogue is down'); return seller.get_products(args, ctx); } };`,
  ],
  key: KEY,
  principal: 'buyer-ops',
});

const start = (env: Record<string, string>): Promise<SellerProcess> => startSeller(script, { ADCP_SIGNING_KEY: JSON.stringify(signingKey), ...env });
const lines = logLines;
const auth = { authorization: `Bearer ${KEY}` };

test('SIGTERM during a call: it is answered, the process drains and exits 0; the next process replays the call', async () => {
  const stateDir = tempDir();
  const agent = await start({ ADCP_STATE_DIR: stateDir, DELAY_MS: '800', ADCP_LOG_LEVEL: 'info' });
  const request = createMediaBuyRequest({ account: { account_id: 'acc_1' } });
  const pending = rpc(agent.url, toolsCall('create_media_buy', request), auth);
  await new Promise((r) => setTimeout(r, 300));
  agent.child.kill('SIGTERM');
  const answered = await pending;
  assert.is(answered.status, 200);
  const body = JSON.parse(answered.text).result.structuredContent;
  assert.match(body.media_buy_id, /^mb_/, answered.text);
  assert.is(await agent.exited, 0, agent.stderr());
  const events = lines(agent.stderr()).map((l) => l.event);
  for (const e of ['listening', 'call', 'signal', 'draining', 'stopped']) assert.ok(events.includes(e), `${e} in ${events.join(', ')}`);

  const next = await start({ ADCP_STATE_DIR: stateDir });
  try {
    const replay = JSON.parse((await rpc(next.url, toolsCall('create_media_buy', request), auth)).text).result.structuredContent;
    assert.equal([replay.media_buy_id, replay.replayed], [body.media_buy_id, true]);
  } finally {
    next.child.kill('SIGTERM');
    assert.is(await next.exited, 0);
  }
});

test('no secret in any log line: keys, authorization headers, webhook credentials, the signing key, a database password', async () => {
  const agent = await start({ ADCP_STATE_DIR: tempDir(), ADCP_LOG_LEVEL: 'trace' });
  const push = { url: 'https://buyer.example/hooks', operation_id: 'op-1', authentication: { schemes: ['Bearer'], credentials: SECRETS.webhookCredentials } };
  await rpc(agent.url, toolsCall('create_media_buy', createMediaBuyRequest({ account: { account_id: 'acc_1' } })), auth);
  await rpc(agent.url, toolsCall('create_media_buy', createMediaBuyRequest({ account: { account_id: 'acc_1' }, push_notification_config: push })), auth);
  await rpc(agent.url, toolsCall('get_products', { buying_mode: 'brief', brief: 'throw' }), auth);
  await rpc(agent.url, toolsCall('get_products', { buying_mode: 'brief', brief: 'x', context: { api_key: SECRETS.inArgs } }), auth);
  await rpc(agent.url, toolsCall('create_media_buy', createMediaBuyRequest()), { authorization: `Bearer ${SECRETS.refusedKey}` });
  await rpc(agent.url, toolsCall('create_media_buy', createMediaBuyRequest()), { 'x-adcp-auth': SECRETS.adcpAuth });
  await rpc(agent.url, toolsCall('create_media_buy', createMediaBuyRequest()), { authorization: `Basic ${SECRETS.basic}` });
  await http(`${agent.url.replace(/\/mcp$/, '')}/.well-known/jwks.json`);
  agent.child.kill('SIGTERM');
  assert.is(await agent.exited, 0, agent.stderr());
  // A database out of reach fails the start in one line, naming the host, not the password.
  const refused = await start({ DATABASE_URL: `postgres://agent:${SECRETS.dbPassword}@127.0.0.1:9/adcp`, ADCP_LOG_LEVEL: 'trace' }).then(
    () => '',
    (e: Error) => e.message,
  );
  assert.match(refused, /127\.0\.0\.1:9/);

  const written = agent.stderr() + refused;
  const logged = lines(agent.stderr());
  assert.ok(logged.filter((l) => l.event === 'call').length >= 4, 'the calls were logged, so there was something to search');
  assert.ok(logged.some((l) => l.event === 'handler_failed'));
  assert.is(logged.filter((l) => l.event === 'unauthorized').length, 3, 'each refused request was logged');
  for (const [what, secret] of [...Object.entries(SECRETS), ['signing key d', signingKey.d!], ['basic password', 'OPS_SECRET_BASIC_PASSWORD']] as const) {
    assert.not.ok(written.includes(secret), `${what} appears in the log`);
  }
});

test.run();
