import { ARTIFACT_PATHS, type ConvertGapsModule, type ConvertModule, type NormalizeFn, type ResponseStripModule, type StripFn } from './contract.js';
import { agentFault, type AdcpErrorBody } from '../wire/errors.js';
import { loadArtifact } from './loader.js';
import type { RuntimeLog } from '../ops/log.js';
import { faultText } from '../wire/report.js';

/**
 * Conversions between two served releases (docs/conversions.md), for a handler written in the newer one answering a
 * buyer pinned to the older: the request converted up (the pair's rules, then the newer release's normalizer and
 * deep-strip) and the answer converted down (the pair's rules, then the older release's response deep-strip). The
 * modules load on the first converted call of a tool, like every artifact.
 */
interface Release {
  readonly key: string;
}

interface Slot<R extends Release> {
  readonly release: R;
  readonly tool: string;
  responseStrip?: ResponseStripModule;
}

export interface ConversionSources<R extends Release, S extends Slot<R>> {
  readonly outDir: string;
  readonly cached: <T>(key: string, make: () => T) => T;
  /** The tool's slot in a release (its artifacts, loaded once). */
  readonly slotIn: (release: R, tool: string) => S | undefined;
  readonly normalize: (slot: S) => NormalizeFn;
  readonly strip: (slot: S) => StripFn;
}

export function conversions<R extends Release, S extends Slot<R>>(src: ConversionSources<R, S>) {
  const module = (newer: R, older: R, tool: string): ConvertModule =>
    src.cached(`convert\0${newer.key}\0${older.key}\0${tool}`, () => {
      const index = loadArtifact(src.outDir, ARTIFACT_PATHS.convert(older.key, newer.key)) as Record<string, ConvertModule>;
      // Both come from one regeneration: a tool missing from the index means a set edited by hand.
      if (!Object.prototype.hasOwnProperty.call(index, tool)) throw new Error(`no conversion of ${tool} from AdCP ${newer.key} to AdCP ${older.key} in this set; run adcp-codegen generate`);
      return index[tool]!;
    });
  const responseStrip = (s: S): ResponseStripModule => (s.responseStrip ??= loadArtifact(src.outDir, ARTIFACT_PATHS.responseStrip(s.release.key, s.tool)) as ResponseStripModule);
  return {
    /** The request places the newer release requires that an older request may lack (the pair's gaps.cjs). */
    gaps(newer: R, older: R, tool: string): readonly string[] {
      const all = src.cached(`gaps\0${newer.key}\0${older.key}`, () => loadArtifact(src.outDir, ARTIFACT_PATHS.convertGaps(older.key, newer.key)) as ConvertGapsModule);
      return Object.prototype.hasOwnProperty.call(all, tool) ? all[tool]! : [];
    },
    /** An older release's validated request, as the newer release's handler takes it: converted, normalized, stripped. */
    convertUp(newer: R, older: R, tool: string, request: Record<string, unknown>): Record<string, unknown> {
      const target = src.slotIn(newer, tool)!;
      const converted = module(newer, older, tool).request(request).value;
      return src.strip(target)(src.normalize(target)(converted).value).value as Record<string, unknown>;
    },
    /**
     * A newer release's answer, as the buyer pinned to the older one reads it: converted, then that release's
     * deep-strip; or, for an answer the older release has no form for, why.
     */
    convertDown(newer: R, older: R, tool: string, body: Record<string, unknown>, request: Record<string, unknown>): { body: Record<string, unknown> } | { refused: string } {
      const result = module(newer, older, tool).response(body, request);
      if (typeof result.refused === 'string') return { refused: result.refused };
      const converted = result.value as Record<string, unknown>;
      const strips = responseStrip(src.slotIn(older, tool)!);
      // An async answer is stripped by its own schema, picked by its status as the validators pick theirs.
      const status = converted.status;
      const strip = typeof status === 'string' && Object.prototype.hasOwnProperty.call(strips.stripAsync, status) ? strips.stripAsync[status]! : strips.strip;
      return { body: strip(converted).value as Record<string, unknown> };
    },
  };
}

/**
 * A conversion that threw (a generated module missing or damaged): the agent's fault, logged with the cause and
 * answered without it.
 */
export function conversionFailed(tool: string, what: string, e: unknown, log: RuntimeLog, fields?: Record<string, unknown>): AdcpErrorBody {
  log.error('conversion_failed', `adcp-codegen: converting ${what} for ${tool} failed: ${faultText(e)}`, { tool, ...fields });
  return agentFault(tool, `converting ${what} failed (details are in the agent's log)`);
}
