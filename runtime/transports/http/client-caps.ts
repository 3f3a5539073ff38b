import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Fairness between clients: at most `max` connections held by one client address, beside the server's own cap on all
 * of them (maxConnections). A connection is held while it has yet to send a whole request (headers a byte at a time,
 * until headersTimeoutMs; a body that never ends, until requestTimeoutMs) or awaits its answer. An idle keep-alive
 * connection, between requests, holds nothing: a client at its cap that opens another has its idle one closed to make
 * room (clients that keep pools of idle sockets — AdCP's grader, undici with a client per call — reopen one when they
 * need it), and only when none is idle is the new one closed at accept. The one closed is the one idle longest: a pool
 * reuses its preferred sockets (undici's its oldest, Node's agent its most recent), and closing one it is about to
 * reuse loses that request to the race every keep-alive close has ("fetch failed": measured with AdCP's grader
 * when the oldest idle socket was closed). So one client can never fill the server's cap
 * and keep the others out: measured before, 1,100 slow connections from one address reset every other caller for 13 to
 * 33 s.
 *
 * A client is its IP address; an IPv6 client its /64 (one host holds a whole /64, and would otherwise hold a cap per
 * address in it), an IPv4-mapped one its IPv4 address. Behind a reverse proxy every connection is the proxy's: there,
 * raise the cap to maxConnections and let the proxy limit per client.
 */

/**
 * One connection: requests in progress, whether it has carried one (an idle keep-alive socket has, and none is), and
 * since when it is idle.
 */
interface Held {
  readonly socket: Socket;
  busy: number;
  served: boolean;
  idleSince: number;
}

export function capPerClient(server: Server, max: number): void {
  const clients = new Map<string, Map<string, Held>>();
  // A connection by its remote address and port: the same for the TCP socket and, over TLS, the socket requests use.
  const keyOf = (socket: Socket): string => `${socket.remoteAddress ?? ''}|${socket.remotePort ?? ''}`;
  server.on('connection', (socket: Socket) => {
    const client = clientOf(socket.remoteAddress);
    let held = clients.get(client);
    if (held === undefined) clients.set(client, (held = new Map()));
    if (held.size >= max) {
      let idle: Held | undefined;
      for (const h of held.values()) if (h.busy === 0 && h.served && (idle === undefined || h.idleSince < idle.idleSince)) idle = h;
      if (idle === undefined) return void socket.destroy();
      held.delete(keyOf(idle.socket));
      idle.socket.destroy();
    }
    const key = keyOf(socket);
    held.set(key, { socket, busy: 0, served: false, idleSince: 0 });
    socket.once('close', () => {
      const own = clients.get(client);
      if (own?.get(key)?.socket !== socket) return;
      own.delete(key);
      if (own.size === 0) clients.delete(client);
    });
  });
  server.on('request', (req, res) => {
    const held = clients.get(clientOf(req.socket.remoteAddress))?.get(keyOf(req.socket));
    if (held === undefined) return;
    held.busy++;
    held.served = true;
    res.once('close', () => {
      held.busy--;
      held.idleSince = performance.now();
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
