import { hashJson } from '../shared/index.js';
import { checkFormat } from './check-format.js';
import type { JsonValue } from './model.js';
import { readJson } from './read-json.js';

/**
 * Overlay files (format: schemas/overlay.schema.json, docs/projection.md) read and checked against their format.
 * What an entry does to a release's schemas is the project stage's (project/overlay.ts).
 */

/** The annotation that limits an optional property to the capabilities it applies to (DESIGN.md). */
export const APPLIES_WHEN = 'x-adcp-applies-when';
/** The marker of a schema whose objects are accepted records (kept whole by projection). */
export const ACCEPTED_RECORD = 'x-adcp-accepted-record';

export interface OverlayEntry {
  /** Release-relative path (`pricing-options/cpm-option.json`) or a schema `$id`. */
  readonly schema: string;
  /** RFC 6901 pointer inside the target file. */
  readonly pointer: string;
  readonly appliesWhen?: JsonValue;
  readonly acceptedRecord?: true;
  /** Release keys (`3.2`) or full versions the entry is limited to; undefined = every release. */
  readonly releases?: readonly string[];
  readonly note?: string;
}

export interface Overlay {
  /** The overlay file as given (display path; named by every error). */
  readonly file: string;
  readonly hash: string;
  readonly entries: readonly OverlayEntry[];
}

export function loadOverlays(files: readonly string[]): Overlay[] {
  return files.map((file) => {
    const raw = readJson(file, file);
    checkFormat('overlay.schema.json', raw, file);
    const doc = raw as { annotations: Record<string, JsonValue>[] };
    const entries = doc.annotations.map((e): OverlayEntry => ({
      schema: e.schema as string,
      pointer: e.pointer as string,
      appliesWhen: e[APPLIES_WHEN] === undefined ? undefined : deepFreeze(e[APPLIES_WHEN]),
      acceptedRecord: e[ACCEPTED_RECORD] === true ? true : undefined,
      releases: e.releases as string[] | undefined,
      note: e.note as string | undefined,
    }));
    return { file, hash: hashJson(raw), entries };
  });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
