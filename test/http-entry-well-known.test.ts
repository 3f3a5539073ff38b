import { request as httpsRequest } from 'node:https';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { committedSet, exampleHandlers } from './helpers/generated.js';
import { http } from './helpers/http.js';
import { tempDir } from './helpers/temp.js';
import { loopbackCertificate } from './helpers/tls.js';

/**
 * The agent's signing keys published by the HTTP entry (issue 30 point 2): brand.json and the JWKS at the agent's
 * public URL, public (no credentials), as `application/json` (AdCP's grader reads JSON only with that type), brand.json
 * naming the agent's MCP URL byte for byte and the JWKS holding public halves only. A development agent with webhooks
 * on makes its key in its store.
 */
const { loadProfile, apiKeyAuth } = await committedSet();

test('GET /.well-known/brand.json and /.well-known/jwks.json: public, application/json, the MCP URL and the public key', async () => {
  const agent = await loadProfile('guaranteed-publisher', { mode: 'development', store: { stateDir: tempDir() }, webhooks: {} });
  const served = await agent.serve(await exampleHandlers(agent), { port: 0, authenticate: apiKeyAuth({ sk_key: { principal: 'b' } }) });
  try {
    const base = served.url.replace(/\/mcp$/, '');
    const brand = await http(`${base}/.well-known/brand.json`);
    assert.is(brand.status, 200, brand.text);
    assert.match(String(brand.headers['content-type']), /^application\/json/);
    const doc = JSON.parse(brand.text) as { agents: { url: string; jwks_uri: string }[] };
    assert.equal(doc.agents.map((a) => a.url), [served.url, `${base}/a2a`, base], 'MCP, A2A at its card\'s URL and at the base URL');
    const jwks = await http(doc.agents[0]!.jwks_uri);
    assert.is(jwks.status, 200);
    assert.match(String(jwks.headers['content-type']), /^application\/json/);
    const { keys } = JSON.parse(jwks.text) as { keys: Record<string, unknown>[] };
    assert.ok(keys.length >= 1);
    for (const k of keys) {
      assert.is(k.d, undefined, 'no private member');
      assert.is(k.adcp_use, 'request-signing');
    }
    assert.is((await http(`${base}/.well-known/unknown.json`)).status, 404);
    assert.is((await http(`${base}/.well-known/brand.json`, { method: 'HEAD' })).status, 200);
  } finally {
    await served.close();
  }
});

test('an entry serving no A2A (a2a: false) names only its MCP URL in brand.json', async () => {
  const agent = await loadProfile('guaranteed-publisher', { mode: 'development', store: { stateDir: tempDir() }, webhooks: {} });
  const served = await agent.serve(await exampleHandlers(agent), { port: 0, a2a: false, authenticate: apiKeyAuth({ sk_key: { principal: 'b' } }) });
  try {
    const doc = JSON.parse((await http(served.url.replace(/\/mcp$/, '/.well-known/brand.json'))).text) as { agents: { url: string }[] };
    assert.equal(doc.agents.map((a) => a.url), [served.url]);
  } finally {
    await served.close();
  }
});

test('served over HTTPS (tls): the MCP URL, brand.json, JWKS and the A2A card are https; a client trusting the certificate calls it', async () => {
  const certificate = loopbackCertificate();
  const agent = await loadProfile('guaranteed-publisher', { mode: 'development', store: { stateDir: tempDir() }, webhooks: {} });
  const served = await agent.serve(await exampleHandlers(agent), { port: 0, tls: certificate, authenticate: apiKeyAuth({ sk_key: { principal: 'b' } }) });
  const get = (url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = httpsRequest(url, { method: init.method ?? 'GET', headers: init.headers, ca: certificate.cert }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      req.end(init.body);
    });
  try {
    assert.match(served.url, /^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const doc = JSON.parse((await get(served.url.replace(/\/mcp$/, '/.well-known/brand.json'))).text) as { agents: { url: string; jwks_uri: string }[] };
    assert.is(doc.agents[0]!.url, served.url);
    assert.match(doc.agents[0]!.jwks_uri, /^https:\/\//);
    assert.is((await get(doc.agents[0]!.jwks_uri)).status, 200);
    // The A2A card sends clients to the scheme the request came in on, never to plain http on a TLS port.
    const card = JSON.parse((await get(served.url.replace(/\/mcp$/, '/.well-known/agent-card.json'))).text) as { url: string };
    assert.is(card.url, served.url.replace(/\/mcp$/, '/a2a'));
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_adcp_capabilities', arguments: {} } };
    const answered = await get(served.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(call) });
    assert.is(answered.status, 200, answered.text);
    // A client that does not trust the certificate does not get in.
    const untrusted = await new Promise<string>((resolve) => httpsRequest(served.url, { method: 'POST' }, () => resolve('connected')).on('error', (e) => resolve(e.message)).end());
    assert.match(untrusted, /self[- ]signed|certificate/i);
  } finally {
    await served.close();
  }
});

test.run();
