import type { Server } from 'node:net';

/**
 * Fairness between clients: at most `max` open connections from one client address, beside the server's own cap on
 * all of them (maxConnections). Whatever a client holds them with — headers sent a byte at a time (until
 * headersTimeoutMs), a body that never ends (until requestTimeoutMs), idle keep-alive sockets (until
 * keepAliveTimeoutMs) — its connections past the cap are closed as they are accepted, so one client can never fill the
 * server's cap and keep the others out: measured before, 1,100 slow connections from one address reset every other
 * caller for 13 to 33 s.
 *
 * A client is its IP address; an IPv6 client its /64 (one host holds a whole /64, and would otherwise hold a cap per
 * address in it), an IPv4-mapped one its IPv4 address. Behind a reverse proxy every connection is the proxy's: there,
 * raise the cap to maxConnections and let the proxy limit per client.
 */
export function capPerClient(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const client = clientOf(socket.remoteAddress);
    const held = open.get(client) ?? 0;
    if (held >= max) {
      socket.destroy();
      return;
    }
    open.set(client, held + 1);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left === 0) open.delete(client);
      else open.set(client, left);
    });
  });
}

/** The client a remote address belongs to. */
export function clientOf(address: string | undefined): string {
  if (address === undefined || address === '') return '';
  if (!address.includes(':')) return address;
  if (address.toLowerCase().startsWith('::ffff:') && address.includes('.')) return address.slice('::ffff:'.length);
  let hex: string;
  try {
    // WHATWG's form: lowercase hex, `::` for the longest zero run, never a dotted tail.
    hex = new URL(`http://[${address.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
  const [head = '', tail] = hex.split('::');
  const first = head === '' ? [] : head.split(':');
  const last = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? first : [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
  return `${groups.slice(0, 4).join(':')}::/64`;
}
