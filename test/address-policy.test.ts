import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pinnedFetch, refusedAddress } from '../runtime/services/webhooks/address-policy.js';
import { setAt } from './helpers/generated.js';
import { webhookSet } from './helpers/webhook-set.js';

/**
 * The outbound address policy under @adcp/sdk's (services/webhooks/address-policy.ts): its decisions only — nothing
 * here connects anywhere. Every IANA special-purpose block is refused (ipaddr.js's tables), IPv6 outside 2000::/3
 * too, and the IPv4 address an IPv6 form embeds is decoded; a sandbox reaches loopback and nothing else.
 */

const REFUSED_EVERYWHERE: readonly [string, RegExp][] = [
  ['0.0.0.0', /unspecified/],
  ['10.1.2.3', /private/],
  ['100.64.0.1', /carrierGradeNat/],
  ['169.254.169.254', /linkLocal/],
  ['172.16.0.1', /private/],
  ['192.0.0.8', /reserved/],
  ['192.0.2.1', /reserved/], // TEST-NET-1
  ['192.31.196.1', /as112/],
  ['192.52.193.1', /amt/],
  ['192.88.99.1', /reserved/], // 6to4 relay anycast
  ['192.168.1.1', /private/],
  ['192.175.48.1', /as112/],
  ['198.18.0.1', /reserved/], // benchmarking
  ['198.51.100.7', /reserved/], // TEST-NET-2
  ['203.0.113.10', /reserved/], // TEST-NET-3
  ['224.0.0.1', /multicast/],
  ['240.0.0.1', /reserved/],
  ['255.255.255.255', /broadcast/],
  ['::', /unspecified/],
  ['::ffff:127.0.0.1', /ipv4Mapped, the IPv4-mapped form of 127\.0\.0\.1 \(loopback\)/],
  ['::ffff:0:a00:1', /rfc6145, the IPv4-translated form of 10\.0\.0\.1 \(private\)/],
  ['::127.0.0.1', /outside IPv6's global unicast space 2000::\/3, the IPv4-compatible form of 127\.0\.0\.1 \(loopback\)/],
  ['::8.8.8.8', /outside IPv6's global unicast space/],
  ['64:ff9b::7f00:1', /rfc6052, the NAT64 form of 127\.0\.0\.1 \(loopback\)/],
  ['64:ff9b:1:7f00:0:100::', /rfc6052, the local-use NAT64 form of 127\.0\.0\.1 \(loopback\)/],
  ['100::1', /discard/],
  ['100:0:0:1::1', /outside IPv6's global unicast space/], // RFC 9780's dummy prefix, newer than the tables
  ['2001::1', /teredo/],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /teredo, the Teredo server of 65\.54\.227\.120 \(unicast\) and Teredo client of 192\.0\.2\.45 \(reserved\)/],
  ['2001:2::1', /benchmarking/],
  ['2001:db8::1', /reserved/],
  ['2002:7f00:1::', /6to4, the 6to4 form of 127\.0\.0\.1 \(loopback\)/],
  ['2002:808:808::1', /6to4, the 6to4 form of 8\.8\.8\.8 \(unicast\)/],
  ['2620:4f:8000::1', /as112v6/],
  ['3fff::1', /reserved/],
  ['5f00::1', /segmentRouting/],
  ['fc00::1', /uniqueLocal/],
  ['fd00:ec2::254', /uniqueLocal/],
  ['fe80::1', /linkLocal/],
  ['fec0::1', /deprecatedSiteLocal/],
  ['ff02::1', /multicast/],
];

test('every IANA special-purpose block is refused, in production and in a sandbox, with the IPv4 an IPv6 form embeds decoded', () => {
  for (const sandbox of [false, true]) {
    for (const [address, why] of REFUSED_EVERYWHERE) {
      const refused = refusedAddress(address, sandbox);
      assert.ok(refused !== undefined, `${address} (sandbox ${sandbox}) is refused`);
      assert.match(refused!, why, address);
    }
  }
});

test('global unicast is allowed; loopback only in a sandbox, and only as itself (not mapped, compatible or 6to4)', () => {
  for (const address of ['8.8.8.8', '1.1.1.1', '93.184.215.14', '2001:4860:4860::8888', '2606:4700:4700::1111', '[2a00:1450:4001:82f::200e]']) {
    assert.is(refusedAddress(address, false), undefined, address);
    assert.is(refusedAddress(address, true), undefined, address);
  }
  for (const address of ['127.0.0.1', '127.255.0.9', '::1']) {
    assert.match(refusedAddress(address, false)!, /loopback/);
    assert.is(refusedAddress(address, true), undefined, `${address} in a sandbox`);
  }
  assert.match(refusedAddress('not an address', false)!, /not an IP address/);
});

test('layered on @adcp/sdk: a push URL is refused where either policy refuses it — literals as the call registers them', async () => {
  const { loadProfile } = await setAt(await webhookSet());
  const prod = await loadProfile('hooks-production' as never, { store: 'memory', signing: { key: { kty: 'OKP', crv: 'Ed25519', kid: 'k', ...edKey() } as never } });
  const sand = await loadProfile('hooks-sandbox' as never, { store: 'memory' });
  try {
    for (const url of ['https://192.0.2.1/h', 'https://198.18.0.1/h', 'https://[2002:7f00:1::]/h', 'https://[::127.0.0.1]/h', 'https://[64:ff9b:1:7f00:0:100::]/h', 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/h']) {
      const e = await prod.webhooks.checkPushUrl(url);
      assert.match(String(e?.message), /must not point at a private, loopback, link-local, reserved or other special-purpose address/, url);
    }
    assert.is(await prod.webhooks.checkPushUrl('https://8.8.8.8/hook'), undefined);
    // The sandbox: loopback and nothing else special (the SDK's sandbox preset lets [::] through).
    for (const url of ['http://[::]:8080/h', 'http://0.0.0.0:8080/h', 'http://[::ffff:127.0.0.1]:8080/h', 'http://198.18.0.1/h', 'http://[2002:7f00:1::]:8080/h']) {
      assert.match(String((await sand.webhooks.checkPushUrl(url))?.message), /special-purpose|private/, url);
    }
    for (const url of ['http://127.0.0.1:8080/h', 'http://[::1]:8080/h']) assert.is(await sand.webhooks.checkPushUrl(url), undefined, url);
  } finally {
    await prod.close();
    await sand.close();
  }
});

test('at delivery: the pin-and-bind fetch resolves through the policy (a name reaching a refused address never connects), and checks a literal before any request', async () => {
  let lookup: ((host: string, options: Record<string, unknown>, cb: (e: Error | null, a?: { address: string }[]) => void) => void) | undefined;
  let fetched = 0;
  const sdk = {
    createPinAndBindFetch(options: { lookup?: typeof lookup }) {
      lookup = options.lookup;
      return async () => (fetched++, { status: 204, headers: { get: () => null } });
    },
  };
  const resolve = (host: string): Promise<string> =>
    new Promise((ok) => lookup!(host, {}, (e, addresses) => ok(e !== null ? `refused: ${e.message}` : `allowed: ${addresses!.map((a) => a.address).join(' ')}`)));
  pinnedFetch(sdk as never, {} as never, false);
  // `localhost` resolves on this machine, no network: loopback, refused outside a sandbox.
  assert.match(await resolve('localhost'), /^refused: pin-and-bind: localhost resolves to an address webhooks may not reach: .*loopback/);
  const sandboxFetch = pinnedFetch(sdk as never, {} as never, true);
  assert.match(await resolve('localhost'), /^allowed: /);
  const refused = await sandboxFetch('http://[2002:7f00:1::]:9/h', {}).then(
    () => 'sent',
    (e: Error) => e.message,
  );
  assert.match(refused, /6to4 form of 127\.0\.0\.1/);
  assert.is(fetched, 0, 'nothing was sent');
});

function edKey(): { x: string; d: string } {
  // A fixed test key (RFC 8032 test vector 1): this test signs nothing, the profile only needs a key to start.
  return { d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
}

test.run();
