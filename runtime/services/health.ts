import type { RuntimeLog } from '../ops/log.js';
import type { Store } from '../stores/open.js';
import { beforeDeadline, LATE } from '../wire/deadline.js';
import { firstLine } from '../wire/report.js';
import type { SigningKeys } from './keys/keys.js';

/**
 * Whether the agent should be sent calls (its readiness, `GET /readyz`; docs/operating.md): it is not draining nor
 * stopped, its store answers, and its signing key is loaded. The store is asked at most once a `probeMs` (one
 * `SELECT 1`, bounded by `timeoutMs`), however often probes come, and asked again after that: a database that went
 * away turns readiness off, and one that came back turns it on, with no restart. An agent that keeps nothing in a
 * store (no replay window, nothing signed, no store opened yet) is not made to open one by a probe.
 *
 * What the probe answers publicly is a word (`draining`, `store`, `signing_key`, `stopped`); the cause (a host, a
 * driver's error) goes to the log, once when readiness turns off and once when it turns back on.
 */
export type Readiness = { readonly ready: true } | { readonly ready: false; readonly reason: 'draining' | 'store' | 'signing_key' | 'stopped'; readonly detail: string };

export interface Health {
  readiness(): Promise<Readiness>;
  /** A drain began (a server closing, a signal): readiness is `draining` until the returned function ends it. */
  drain(): () => void;
  /** The agent was closed (its store released), or made ready again. */
  stopped(stopped: boolean): void;
}

export interface HealthDeps {
  readonly profile: string;
  /** The store, when the agent keeps something in one (else undefined: nothing to probe). */
  readonly store: () => Store | undefined;
  readonly keys?: SigningKeys;
  readonly log: RuntimeLog;
  readonly probeMs?: number;
  readonly timeoutMs?: number;
}

const PROBE_MS = 1_000;
const TIMEOUT_MS = 2_000;

export function agentHealth(deps: HealthDeps): Health {
  const probeMs = deps.probeMs ?? PROBE_MS;
  const timeoutMs = deps.timeoutMs ?? TIMEOUT_MS;
  let draining = 0;
  let stopped = false;
  let probed: { at: number; verdict: Promise<Readiness> } | undefined;
  let last: Readiness = { ready: true };

  const probe = async (): Promise<Readiness> => {
    const store = deps.store();
    if (store !== undefined) {
      const answered = await within(
        (async () => (await store.open()).query('SELECT 1'))(),
        timeoutMs,
      ).then(
        (ok) => (ok ? undefined : `${store.where}: no answer within ${timeoutMs / 1000} s`),
        (e: unknown) => firstLine(e),
      );
      if (answered !== undefined) return { ready: false, reason: 'store', detail: answered };
    }
    if (deps.keys !== undefined) {
      const failed = await deps.keys.pair().then(
        () => undefined,
        (e: unknown) => firstLine(e),
      );
      if (failed !== undefined) return { ready: false, reason: 'signing_key', detail: failed };
    }
    return { ready: true };
  };

  const said = (now: Readiness): Readiness => {
    if (now.ready !== last.ready || (!now.ready && !last.ready && now.reason !== last.reason)) {
      if (!now.ready) deps.log.warn('not_ready', `adcp-codegen: ${deps.profile} is not ready (${now.reason}): ${now.detail}`, { reason: now.reason });
      else deps.log.info('ready', `adcp-codegen: ${deps.profile} is ready again`);
    }
    last = now;
    return now;
  };

  return {
    async readiness() {
      if (stopped) return { ready: false, reason: 'stopped', detail: 'the agent was closed' };
      if (draining > 0) return { ready: false, reason: 'draining', detail: 'the agent is draining' };
      const now = Date.now();
      if (probed === undefined || now - probed.at >= probeMs) probed = { at: now, verdict: probe().then(said) };
      return probed.verdict;
    },
    drain() {
      draining += 1;
      let ended = false;
      return () => {
        if (!ended) draining -= 1;
        ended = true;
      };
    },
    stopped(value) {
      stopped = value;
      if (value) probed = undefined;
    },
  };
}

/** Whether `work` settled within `ms` (true), or not yet (false); its rejection passed on. */
function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  return beforeDeadline(work, ms, { unref: true }).then((settled) => settled !== LATE);
}
