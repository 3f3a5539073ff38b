import { lookup } from 'node:dns';
import { isIP } from 'node:net';
import { agentPackage } from '../../artifacts/packages.js';
import { sdkServer, ssrfPolicy, type FetchLike, type SdkServer, type SsrfPolicy } from './sdk.js';

/**
 * The addresses a push or webhook URL may reach, on top of @adcp/sdk's webhook SSRF policy (whose CIDR lists miss
 * TEST-NET, benchmarking, 6to4 and IPv4-compatible loopback, and whose sandbox preset lets `[::]` through): an address
 * is refused when it, or an IPv4 address it embeds, lies in a special-purpose block of IANA's IPv4 and IPv6
 * Special-Purpose Address Registries — as ipaddr.js (its `range()`, kept in step with those registries) names them,
 * not a list of our own — or, for IPv6, outside 2000::/3, the only space IANA allocates for global unicast. The
 * embedded forms are decoded so a refusal says what they reach: IPv4-mapped and IPv4-compatible (::/96), IPv4-
 * translated, 6to4 (2002::/16), NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48, RFC 6052's layout) and Teredo
 * (2001::/32, its server and its client, obfuscated). A sandbox may reach loopback (127.0.0.0/8, ::1: conformance
 * receivers) and nothing else special.
 *
 * Checked on a push URL when the call registering it arrives (push-config.ts: its literal host, or every address its
 * name resolves to now), and again at delivery: the pin-and-bind fetch resolves through `lookup` here, which refuses
 * a name resolving to any such address before the SDK's own policy pins the connection to one it also allows.
 */

interface Address {
  kind(): 'ipv4' | 'ipv6';
  range(): string;
  toByteArray(): number[];
  toString(): string;
}

interface Ipaddr {
  parse(address: string): Address;
  isValid(address: string): boolean;
  fromByteArray(bytes: number[]): Address;
}

let ipaddr: Ipaddr | undefined;
const library = (): Ipaddr => (ipaddr ??= agentPackage<Ipaddr>('ipaddr.js', 'checking webhook URLs'));

/** Why `address` may not be reached, or undefined when it may. */
export function refusedAddress(address: string, sandbox: boolean): string | undefined {
  const lib = library();
  const host = canonical(address.replace(/^\[|\]$/g, ''));
  if (host === undefined || !lib.isValid(host)) return `${address} is not an IP address`;
  const ip = lib.parse(host);
  const range = ip.range();
  if (sandbox && range === 'loopback') return undefined;
  if (ip.kind() === 'ipv4') return range === 'unicast' ? undefined : `${host} is in a special-purpose block (${range})`;
  const embeds = embeddedIPv4(ip.toByteArray()).map(({ form, v4 }) => `${form} of ${lib.fromByteArray(v4).toString()} (${lib.fromByteArray(v4).range()})`);
  const reaching = embeds.length > 0 ? `, the ${embeds.join(' and ')}` : '';
  if (range !== 'unicast') return `${host} is in a special-purpose block (${range}${reaching})`;
  if (ip.toByteArray()[0]! >> 5 !== 0b001) return `${host} is outside IPv6's global unicast space 2000::/3${reaching}`;
  return undefined;
}

/**
 * The address as the connection reads it: an IPv6 literal as WHATWG's URL parser (which fetch uses) writes it, all in
 * hex. ipaddr.js reads a dotted tail as IPv4-mapped whatever precedes it (`::127.0.0.1` as `::ffff:7f00:1`), where
 * the address is IPv4-compatible `::7f00:1` — and a resolver prints that one with a dotted tail (inet_ntop) — so the
 * library is only ever given the hex form.
 */
function canonical(host: string): string | undefined {
  if (isIP(host) !== 6) return host;
  try {
    return new URL(`http://[${host}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/** The IPv4 addresses an IPv6 address carries in a form of its own, with the form's name. */
function embeddedIPv4(b: readonly number[]): { form: string; v4: number[] }[] {
  const zero = (from: number, to: number): boolean => b.slice(from, to).every((x) => x === 0);
  const last = b.slice(12, 16);
  const found: { form: string; v4: number[] }[] = [];
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) found.push({ form: 'IPv4-mapped form', v4: last });
  else if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) found.push({ form: 'IPv4-translated form', v4: last });
  else if (zero(0, 12) && !zero(12, 15)) found.push({ form: 'IPv4-compatible form', v4: last });
  if (b[0] === 0x20 && b[1] === 0x02) found.push({ form: '6to4 form', v4: b.slice(2, 6) });
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    if (zero(4, 12)) found.push({ form: 'NAT64 form', v4: last });
    else if (b[4] === 0 && b[5] === 1) found.push({ form: 'local-use NAT64 form', v4: [b[6]!, b[7]!, b[9]!, b[10]!] });
  }
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0) {
    found.push({ form: 'Teredo server', v4: b.slice(4, 8) }, { form: 'Teredo client', v4: last.map((x) => x ^ 0xff) });
  }
  return found;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, addresses?: { address: string; family: number }[]) => void;

/**
 * The SDK's pin-and-bind fetch with this policy under its own: names resolve through a lookup that refuses any
 * address of a special-purpose block, and a literal host is checked before the request starts (undici never looks a
 * literal up).
 */
export function pinnedFetch(sdk: Pick<SdkServer, 'createPinAndBindFetch'>, policy: SsrfPolicy, sandbox: boolean): FetchLike {
  const guarded = (hostname: string, options: Record<string, unknown>, callback: LookupCallback): void => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) return callback(error);
      const refused = addresses.map((a) => refusedAddress(a.address, sandbox)).find((r) => r !== undefined);
      if (refused !== undefined) return callback(Object.assign(new Error(`pin-and-bind: ${hostname} resolves to an address webhooks may not reach: ${refused}`), { code: 'EADCP_SSRF_BLOCKED' }));
      callback(null, addresses);
    });
  };
  const fetch = sdk.createPinAndBindFetch({ policy, lookup: guarded });
  return async (url, init) => {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    const refused = isIP(host) !== 0 ? refusedAddress(host, sandbox) : undefined;
    if (refused !== undefined) throw Object.assign(new Error(`pin-and-bind: ${refused}`), { code: 'EADCP_SSRF_BLOCKED' });
    return fetch(url, init);
  };
}

/** The fetch every delivery and endpoint proof goes through: the SDK's pin-and-bind, under both policies. */
export function webhookFetch(sandbox: boolean): FetchLike {
  return pinnedFetch(sdkServer(), ssrfPolicy(sandbox), sandbox);
}
