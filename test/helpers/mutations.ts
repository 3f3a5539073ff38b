import { createHash } from 'node:crypto';
import type { Issue } from '../../runtime/artifacts/contract.js';

/**
 * A corpus of requests with two or three known defects, made from valid storyboard payloads, for measuring how many
 * of a buyer's mistakes the first rejection names (issue 19 point 3). Each defect is a real one on its own: the
 * payload with only that change is invalid, and run-time Ajv with `allErrors` blames that very field (so a change
 * the schema happens to allow, or one that only breaks a distant rule, is never counted as a defect). Defects of one
 * mutant are independent: no pointer lies at or under another's.
 */
export type DefectKind = 'type' | 'enum' | 'required' | 'unknown-field';

export interface Defect {
  readonly kind: DefectKind;
  /** RFC 6901 pointer of the field the defect is about (for a missing one, where it belongs). */
  readonly pointer: string;
}

export interface Mutant {
  readonly id: string;
  readonly data: unknown;
  readonly defects: readonly Defect[];
}

/** What run-time Ajv says about a value (its raw errors, or null when valid). */
export type Check = (data: unknown) => readonly AjvLike[] | null;

export interface AjvLike {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: Record<string, unknown>;
}

/** A value no AdCP enum holds, and the unknown property name added to closed objects. */
const OUT_OF_ENUM = 'adcp-probe-not-a-value';
const UNKNOWN_FIELD = 'adcp_probe_unknown_field';
/** Envelope fields whose defects are answered before validation (VERSION_UNSUPPORTED), or are the caller's own. */
const SKIPPED_ROOT = new Set(['adcp_version', 'adcp_major_version', 'context', 'ext']);
/** Changes tried per payload, and real defects kept from them to combine. */
const MAX_TRIED = 160;
const MAX_SINGLES = 12;

interface Change {
  readonly defect: Defect;
  readonly apply: (root: unknown) => unknown;
}

/**
 * Mutants of one valid payload: one with two defects and one with three, when the payload has that many
 * independent ones. Deterministic for a given `seed`.
 */
export function mutants(id: string, payload: unknown, check: Check, seed = id): Mutant[] {
  const rng = random(seed);
  const singles: Change[] = [];
  for (const c of shuffle(changes(payload), rng).slice(0, MAX_TRIED)) {
    if (blames(check(c.apply(payload)), c.defect)) singles.push(c);
    if (singles.length === MAX_SINGLES) break;
  }
  const out: Mutant[] = [];
  for (const size of [2, 3]) {
    const picked: Change[] = [];
    for (const c of shuffle(singles, rng)) {
      if (picked.some((p) => related(p.defect.pointer, c.defect.pointer))) continue;
      picked.push(c);
      if (picked.length === size) break;
    }
    if (picked.length < size) continue;
    let data = payload;
    for (const c of picked) data = c.apply(data);
    out.push({ id: `${id} [${picked.map((c) => `${c.defect.kind} ${c.defect.pointer}`).join(', ')}]`, data, defects: picked.map((c) => c.defect) });
  }
  return out;
}

/** Whether `pointers` (what a reply names) name the defect: its field, or something inside it. */
export function names(pointers: readonly string[], defect: Defect): boolean {
  return pointers.some((p) => p === defect.pointer || p.startsWith(`${defect.pointer}/`));
}

/** The fields an AdCP rejection's issues name: a missing property by its own pointer, whichever way it is written. */
export function issuePointers(issues: readonly Issue[]): string[] {
  return issues.map((i) => {
    if (i.keyword !== 'required' || i.missingProperty === undefined) return i.pointer;
    const own = `/${escape(i.missingProperty)}`;
    return i.pointer.endsWith(own) ? i.pointer : `${i.pointer}${own}`;
  });
}

/** The fields Ajv's raw errors name. */
export function ajvPointers(errors: readonly AjvLike[]): string[] {
  return errors.map((e) => {
    if (e.keyword === 'required' && typeof e.params.missingProperty === 'string') return `${e.instancePath}/${escape(e.params.missingProperty)}`;
    if (e.keyword === 'additionalProperties' && typeof e.params.additionalProperty === 'string') return `${e.instancePath}/${escape(e.params.additionalProperty)}`;
    return e.instancePath;
  });
}

function blames(errors: readonly AjvLike[] | null, defect: Defect): boolean {
  if (errors === null) return false;
  const at = errors.filter((e) => ajvPointers([e])[0] === defect.pointer);
  switch (defect.kind) {
    case 'required':
      return at.some((e) => e.keyword === 'required');
    case 'unknown-field':
      return at.some((e) => e.keyword === 'additionalProperties');
    case 'enum':
      return at.some((e) => e.keyword === 'enum' || e.keyword === 'const');
    case 'type':
      return at.some((e) => e.keyword === 'type');
  }
}

/** Every single change worth trying on `payload`: remove a property, add an unknown one, break a scalar. */
function changes(payload: unknown): Change[] {
  const out: Change[] = [];
  const visit = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) {
      node.forEach((v, i) => visit(v, `${pointer}/${i}`));
      return;
    }
    if (node !== null && typeof node === 'object') {
      out.push({ defect: { kind: 'unknown-field', pointer: `${pointer}/${UNKNOWN_FIELD}` }, apply: (r) => setAt(r, `${pointer}/${UNKNOWN_FIELD}`, true) });
      for (const [k, v] of Object.entries(node)) {
        if (pointer === '' && SKIPPED_ROOT.has(k)) continue;
        const at = `${pointer}/${escape(k)}`;
        out.push({ defect: { kind: 'required', pointer: at }, apply: (r) => removeAt(r, at) });
        visit(v, at);
      }
      return;
    }
    if (pointer === '') return;
    const wrong = typeof node === 'string' ? 12345 : typeof node === 'number' ? 'not-a-number' : typeof node === 'boolean' ? 'yes' : 'null-was-here';
    out.push({ defect: { kind: 'type', pointer }, apply: (r) => setAt(r, pointer, wrong) });
    if (typeof node === 'string') out.push({ defect: { kind: 'enum', pointer }, apply: (r) => setAt(r, pointer, OUT_OF_ENUM) });
  };
  visit(payload, '');
  return out;
}

function related(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

function tokens(pointer: string): string[] {
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function escape(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A copy of `root` with the value at `pointer` replaced (containers on the path copied, the rest shared). */
function setAt(root: unknown, pointer: string, value: unknown): unknown {
  return edit(root, tokens(pointer), (parent, key) => define(parent, key, value));
}

function removeAt(root: unknown, pointer: string): unknown {
  return edit(root, tokens(pointer), (parent, key) => {
    if (!Array.isArray(parent)) delete (parent as Record<string, unknown>)[key];
  });
}

function edit(node: unknown, path: readonly string[], last: (parent: object, key: string) => void): unknown {
  const copy: Record<string, unknown> | unknown[] = Array.isArray(node) ? node.slice() : { ...(node as Record<string, unknown>) };
  const [head, ...rest] = path as [string, ...string[]];
  if (rest.length === 0) last(copy, head);
  else define(copy, head, edit((copy as Record<string, unknown>)[head], rest, last));
  return copy;
}

function define(target: object, key: string, value: unknown): void {
  if (Array.isArray(target)) target[Number(key)] = value;
  else Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A small deterministic PRNG (mulberry32) seeded by a string. */
function random(seed: string): () => number {
  let a = createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(xs: readonly T[], rng: () => number): T[] {
  const out = xs.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
