import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Health } from '../../services/health.js';
import { HEALTHZ_PATH, READYZ_PATH } from '../../wire/paths.js';
import { methodNotAllowed, sendJson } from './respond.js';

/**
 * The entry's probes, public, for load balancers and Kubernetes (docs/operating.md):
 * - `GET /healthz`, liveness: 200 whenever the process serves HTTP at all. It asks nothing of the store: a database
 *   outage must not get a live process restarted.
 * - `GET /readyz`, readiness: 200 `{"status":"ready"}` when the agent should be sent calls (services/health.ts),
 *   else 503 `{"status":"not_ready","reason":…}` with `Retry-After`, the reason a word (`draining`, `store`,
 *   `signing_key`, `stopped`); its cause goes to the agent's log, not to whoever asks.
 * Both are `no-store`, and answer HEAD too (node:http sends no body to a HEAD). True when the request was one of
 * them (answered here).
 */
const NO_STORE = { 'cache-control': 'no-store' };
const NOT_READY = { ...NO_STORE, 'retry-after': '1' };

export function healthProbes(health: () => Health): (req: IncomingMessage, res: ServerResponse, path: string) => boolean {
  return (req, res, path) => {
    if (path !== HEALTHZ_PATH && path !== READYZ_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      methodNotAllowed(res, 'GET');
      return true;
    }
    if (path === HEALTHZ_PATH) {
      sendJson(res, 200, { status: 'ok' }, NO_STORE);
      return true;
    }
    health()
      .readiness()
      .then(
        (r) => (r.ready ? sendJson(res, 200, { status: 'ready' }, NO_STORE) : sendJson(res, 503, { status: 'not_ready', reason: r.reason }, NOT_READY)),
        () => sendJson(res, 503, { status: 'not_ready', reason: 'error' }, NOT_READY),
      );
    return true;
  };
}

