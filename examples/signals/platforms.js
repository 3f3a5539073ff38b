// @ts-check
import { createHash } from 'node:crypto';

/**
 * Where this agent can put a segment to work: the DSPs it has a seat integration with, and sales agents, reached by
 * URL. Pushing a segment to a DSP seat gives the buyer that DSP's segment id to target (`segment_id` activation key);
 * a sales agent receives a key-value pair it matches in its ad server. A DSP whose integration onboards segments in a
 * batch takes `onboarding_minutes` before the segment is live there; the others are live when the push returns.
 *
 * Here the integrations are records of what each DSP was told, kept in memory — the seam where a real agent calls
 * each DSP's segment API (and where a failure to reach it becomes an activation error the buyer sees).
 *
 * @typedef {{ type: 'platform', platform: string, account?: string } | { type: 'agent', agent_url: string, account?: string }} Destination
 * @typedef {{ destination: Destination, segment: string, activation_key: Record<string, string>, deployed_at: string, live_at: number }} Deployment
 */

/** @type {Record<string, { name: string, onboarding_minutes: number, key_prefix: string }>} */
const DSPS = {
  'the-trade-desk': { name: 'The Trade Desk', onboarding_minutes: 0, key_prefix: 'ttd' },
  'pinnacle-dsp': { name: 'Pinnacle DSP', onboarding_minutes: 0, key_prefix: 'pdsp' },
  'amazon-dsp': { name: 'Amazon DSP', onboarding_minutes: 45, key_prefix: 'amzn' },
};

/** Identifies a destination (and the seat on it) across requests. */
export function destinationKey(/** @type {Destination} */ d) {
  return d.type === 'platform' ? `platform\0${d.platform}\0${d.account ?? ''}` : `agent\0${new URL(d.agent_url).href}\0${d.account ?? ''}`;
}

/** @param {{ now: () => Date }} deps */
export function createPlatforms({ now }) {
  return {
    /** Whether a destination is one this agent can deliver to, and if not, why (for the buyer). */
    refuses(/** @type {Destination} */ d) {
      if (d.type === 'platform' && DSPS[d.platform] === undefined) return `no seat integration with ${d.platform}; this agent activates on ${Object.keys(DSPS).join(', ')} and on sales agents by URL`;
      if (d.type === 'agent' && new URL(d.agent_url).protocol !== 'https:') return 'a sales agent destination must be an https URL';
      return undefined;
    },
    /** Whether a signal can be put on a destination at all (a sales agent takes any segment). */
    carries: (/** @type {Destination} */ d, /** @type {string[]} */ platforms) => d.type === 'agent' || platforms.includes(d.platform),
    /** Pushes a segment to a destination; the deployment the buyer will target. */
    push(/** @type {Destination} */ d, /** @type {string} */ segment) {
      const t = now();
      // The destination's own id for the segment, stable for (destination, seat, segment).
      const id = createHash('sha256').update(`${destinationKey(d)}\0${segment}`).digest('hex').slice(0, 10);
      const dsp = d.type === 'platform' ? DSPS[d.platform] : undefined;
      /** @type {Deployment} */
      const deployment = {
        destination: d,
        segment,
        activation_key: dsp !== undefined ? { type: 'segment_id', segment_id: `${dsp.key_prefix}_${id}` } : { type: 'key_value', key: 'adcp_signal', value: `${segment}_${id}` },
        deployed_at: t.toISOString(),
        live_at: t.getTime() + (dsp?.onboarding_minutes ?? 0) * 60_000,
      };
      return deployment;
    },
    /** The estimated onboarding time of a destination a segment is not live on. */
    onboardingMinutes: (/** @type {Destination} */ d) => (d.type === 'platform' ? (DSPS[d.platform]?.onboarding_minutes ?? 0) : 0),
    /** The platforms a signal is offered on, as destinations (for a discovery that names none). */
    destinationsOf: (/** @type {string[]} */ platforms) => platforms.filter((p) => DSPS[p] !== undefined).map((platform) => /** @type {Destination} */ ({ type: 'platform', platform })),
  };
}

/** @typedef {ReturnType<typeof createPlatforms>} Platforms */
