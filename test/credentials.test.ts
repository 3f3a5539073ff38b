import { DEFAULT_CREDENTIAL_PATTERNS, verifyApiKey } from '@adcp/sdk/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CREDENTIAL_NAME_PATTERNS, credentialNames } from '../runtime/wire/credential-names.js';
import { committedSet, exampleHandlers } from './helpers/generated.js';
import { createMediaBuyRequest } from './helpers/payloads.js';

/**
 * Credentials in a tool's arguments are refused (call/credentials.ts, the stage right after `read`): AdCP's
 * CREDENTIAL_IN_ARGS, with the credential neither echoed nor reaching a handler, while the credential-looking
 * fields AdCP itself declares (a property list's `auth_token`, a push notification's `authentication.credentials`)
 * pass. On real AdCP 3.0.6 requests of the committed set, through agent.call and over MCP.
 */

const { loadProfile } = await committedSet();
const agent = await loadProfile('guaranteed-publisher', { mode: 'development' });
const handlers = await exampleHandlers(agent);
let called = 0;
const counted = <A, C, R>(fn: (a: A, c: C) => R) => (a: A, c: C): R => (called++, fn(a, c));
const getProducts = counted(handlers.get_products);
const createMediaBuy = counted(handlers.create_media_buy);
const products = (extra: Record<string, unknown> = {}) => ({ buying_mode: 'brief', brief: 'video on the homepage', ...extra });
type Body = Record<string, any>;
const bodyOf = (r: { structuredContent?: Record<string, unknown> }): Body => r.structuredContent as Body;

test('a bearer token in context, an API key in ext or at the top: CREDENTIAL_IN_ARGS, terminal, the field named, the value nowhere', async () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['get_products', products({ context: { correlation_id: 'c-1', authorization: 'Bearer eyJhbGciOi.secret' } }), 'context.authorization'],
    ['get_products', products({ ext: { vendor: { api_key: 'sk_live_secret' } } }), 'ext.vendor.api_key'],
    ['create_media_buy', createMediaBuyRequest({ api_key: 'sk_live_secret', context: { correlation_id: 'c-2' } }), 'api_key'],
    ['create_media_buy', createMediaBuyRequest({ context: { session: { access_token: 'at_secret' }, password: 'hunter2' } }), 'context.session.access_token'],
  ];
  for (const [tool, args, field] of cases) {
    const before = called;
    const r = await agent.call(tool, args, tool === 'get_products' ? getProducts : createMediaBuy);
    const body = bodyOf(r);
    assert.ok(r.isError, tool);
    assert.is(body.adcp_error.code, 'CREDENTIAL_IN_ARGS');
    assert.is(body.adcp_error.recovery, 'terminal');
    assert.is(body.adcp_error.field, field);
    assert.is(body.adcp_error.details, undefined);
    assert.not.match(JSON.stringify(r), /secret|hunter2/, 'the credential is not echoed');
    assert.is(called, before, 'no handler ran');
  }
  // The context comes back without the credentials found in it, the rest as sent.
  const echoed = bodyOf(await agent.call('get_products', products({ context: { correlation_id: 'c-1', authorization: 'Bearer x', keep: { a: 1 } } }), getProducts));
  assert.equal(echoed.context, { correlation_id: 'c-1', keep: { a: 1 } });
});

test('refused before validation: an invalid request that carries a credential is CREDENTIAL_IN_ARGS, not INVALID_REQUEST', async () => {
  const r = bodyOf(await agent.call('get_products', { brief: 'x', cookie: 'session=1' }, getProducts));
  assert.is(r.adcp_error.code, 'CREDENTIAL_IN_ARGS');
  assert.is(r.adcp_error.field, 'cookie');
});

test("the fields AdCP declares pass: a property list's auth_token, a push notification's authentication.credentials", async () => {
  const before = called;
  const list = await agent.call('get_products', products({ property_list: { agent_url: 'https://lists.example/mcp', list_id: 'pl_1', auth_token: 'eyJ.list.token' } }), getProducts);
  assert.not.ok(list.isError, JSON.stringify(list.structuredContent));
  const push = await agent.call(
    'create_media_buy',
    createMediaBuyRequest({ push_notification_config: { url: 'https://buyer.example/hooks', authentication: { schemes: ['Bearer'], credentials: 'w'.repeat(32) } } }),
    createMediaBuy,
  );
  assert.not.ok(push.isError, JSON.stringify(push.structuredContent));
  assert.is(called, before + 2);
});

test('over MCP with a valid Authorization header, a credential in the arguments is still CREDENTIAL_IN_ARGS', async () => {
  const served = await agent.serve(handlers, { port: 0, authenticate: verifyApiKey({ keys: { sk_header: { principal: 'buyer' } } }) });
  const client = new Client({ name: 'leaky-buyer', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: 'Bearer sk_header' } } }));
    const r = (await client.callTool({ name: 'get_products', arguments: products({ context: { correlation_id: 'm-1', authorization: 'Bearer sk_header' } }) })) as {
      isError?: boolean;
      structuredContent?: Body;
    };
    assert.ok(r.isError);
    assert.is(r.structuredContent!.adcp_error.code, 'CREDENTIAL_IN_ARGS');
    assert.equal(r.structuredContent!.context, { correlation_id: 'm-1' });
    const ok = (await client.callTool({ name: 'get_products', arguments: products({ context: { correlation_id: 'm-2' } }) })) as { isError?: boolean };
    assert.not.ok(ok.isError);
  } finally {
    await client.close();
    await served.close();
  }
});

test("the patterns are @adcp/sdk/server's DEFAULT_CREDENTIAL_PATTERNS and a few more; only names are read", () => {
  const ours = CREDENTIAL_NAME_PATTERNS.map(String);
  for (const p of DEFAULT_CREDENTIAL_PATTERNS) assert.ok(ours.includes(String(p)), String(p));
  assert.equal(
    credentialNames({ a: [{ refresh_token: 1 }], 'x/y': { jwks_uri: 'u' }, ok: { token_count: 3, secretary: 'no', credentials: 'pushed' } }),
    [
      { pointer: '/a/0/refresh_token', name: 'refresh_token' },
      { pointer: '/x~1y/jwks_uri', name: 'jwks_uri' },
    ],
  );
  assert.equal(credentialNames({ auth_token: 't' }, new Set(['auth_token'])), []);
});

test.run();
