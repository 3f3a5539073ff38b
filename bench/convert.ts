import { requestGaps } from '../generator/compile/index.js';
import { conversionSet, measureDown, measureUp, responseCorpus, validRequest } from '../test/helpers/corpus.js';
import { sharedComplianceDir, sharedReleaseDir } from '../test/helpers/releases.js';
import { median } from './stats.js';

/**
 * Conversions between AdCP 3.2.0-beta.5 and 3.0.6 (issue 21), over the corpus of test/helpers/corpus.ts: the share
 * of valid 3.2 response bodies a 3.0.6 buyer could take as they are, against the share valid after down-conversion
 * (goal: all of them, an answer that has no 3.0 form being refused with an AdCP error by a rule); the share of 3.0.6
 * storyboard requests valid in 3.2 as they are, after up-conversion, and but for the fields 3.0 does not send; and
 * what converting costs a call, against the same call answered in its own release, in the same run.
 */
export async function run(): Promise<string[]> {
  const newerDir = sharedReleaseDir();
  if (newerDir === undefined) return ['(conversion figures need ../shared/adcp/3.2.0-beta.5)'];
  const set = await conversionSet(newerDir, sharedComplianceDir());
  const corpus = await responseCorpus(set);
  const down = await measureDown(set, corpus);
  const refused = down.filter((m) => m.issues[0]?.startsWith(' answered as an error') === true);
  const valid = down.filter((m) => m.issues.length === 0);
  const invalid = down.length - valid.length - refused.length;
  const asIs = down.filter((m) => m.validAsIs).length;
  const pct = (n: number, of: number): string => `${((100 * n) / of).toFixed(1)}%`;
  const bySource = [...new Set(corpus.map((c) => c.source))].map((s) => `${corpus.filter((c) => c.source === s).length} ${s}`).join(', ');

  const up = await measureUp(set, (tool) => requestGaps(set.newer, set.older, tool));

  // One create_media_buy call answered by a handler in 3.2's shape: to a 3.2 buyer (nothing converted) and to a 3.0
  // buyer (request up, answer down and deep-stripped), production mode, alternating rounds.
  const body = corpus.find((c) => c.tool === 'create_media_buy' && c.source === 'sampled rich')?.body ?? corpus.find((c) => c.tool === 'create_media_buy')!.body;
  const request = validRequest(set, set.older, 'create_media_buy');
  const pinned = { ...request, adcp_version: set.older.key };
  const latest = { ...request, adcp_version: set.newer.key };
  const handler = (): Record<string, unknown> => body;
  const round = async (args: Record<string, unknown>, n: number): Promise<number> => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await set.production.call('create_media_buy', args, handler);
    return Number(process.hrtime.bigint() - t0) / n;
  };
  await round(pinned, 200);
  await round(latest, 200);
  const converted: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < 7; i++) {
    converted.push(await round(pinned, 300));
    plain.push(await round(latest, 300));
  }
  const mc = median(converted);
  const mp = median(plain);

  return [
    `corpus: ${corpus.length} valid AdCP ${set.newer.version} response bodies of the ${set.tools.length} tools both releases serve (${bySource})`,
    `down to AdCP ${set.older.version}: valid as they are ${asIs}/${down.length} (${pct(asIs, down.length)}); after conversion ${valid.length} valid + ${refused.length} refused by a rule (no 3.0 form) = ${pct(valid.length + refused.length, down.length)} (goal 100%: ${invalid === 0 ? 'met' : `NOT met, ${invalid} invalid`})`,
    `up from AdCP ${set.older.version}: ${up.length} storyboard requests valid there; valid in ${set.newer.version} as they are ${up.filter((u) => u.validAsIs).length} (${pct(up.filter((u) => u.validAsIs).length, up.length)}), after up-conversion ${up.filter((u) => u.valid).length} (${pct(up.filter((u) => u.valid).length, up.length)}), but for the fields 3.0 does not send ${up.filter((u) => u.validButGaps).length} (${pct(up.filter((u) => u.validButGaps).length, up.length)})`,
    `per call (create_media_buy, production): converted for a 3.0 buyer ${(mc / 1000).toFixed(1)} µs vs the same call unconverted ${(mp / 1000).toFixed(1)} µs = ${(mc / mp).toFixed(2)}×`,
  ];
}
