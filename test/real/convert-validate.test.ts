import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { requestGaps } from '../../generator/compile/index.js';
import { factsOf, fieldsOf } from '../../generator/compile/convert/fields.js';
import { escapeToken } from '../../runtime/wire/pointer.js';
import { bundleSchema } from '../../generator/project/index.js';
import { conversionModule, conversionSet, sdkComplianceDir, storyboardRequests } from '../helpers/corpus.js';
import { Sampler } from '../helpers/sampler.js';
import { sharedReleaseDir } from '../helpers/releases.js';

/**
 * Issue 29 point 5, over every field the AdCP 3.2.0-beta.5 ← 3.0.6 conversion adds: a request pinned to 3.0 is
 * validated in the release its one handler is written in, after its conversion up. 3.0.6's request objects are open
 * where 3.2 declares new fields, so a 3.0 buyer can send one with a value 3.2 refuses (`paused: "yes"` on
 * create_media_buy); it must be the buyer's INVALID_REQUEST naming the field, and the handler must never see it.
 *
 * For each tool both releases serve and each field 3.2 declares where 3.0 has an open object and no such field: a
 * valid 3.0 request of the tool (a 3.0.6 storyboard request, else the sampler's) gets the field with a value of a
 * type 3.2 does not admit there. Sent pinned to 3.0 through the runtime (production: where a wrong value would
 * otherwise pass), each is refused and names the field; none reaches the handler.
 */
const newerDir = sharedReleaseDir();
if (newerDir === undefined) throw new Error('../shared/adcp is required for the real-release suite');
const set = await conversionSet(newerDir);
const { newer, older, production: agent } = set;

/** Valid 3.0 requests per tool: 3.0.6's storyboard samples, as the runtime parses them. */
const bases = new Map<string, Record<string, unknown>[]>();
for (const sample of storyboardRequests(sdkComplianceDir())) {
  if (!set.tools.includes(sample.task)) continue;
  const parsed = agent.strip(sample.task, agent.normalize(sample.task, sample.request, { release: older.key }).value, { release: older.key }).value as Record<string, unknown>;
  if (agent.validateRequest(sample.task, parsed, { release: older.key }).ok) bases.set(sample.task, [...(bases.get(sample.task) ?? []), parsed]);
}

// And the sampler's rich 3.0 requests (every optional property a few levels down), which hold the parents storyboards
// leave out.
for (const tool of set.tools) {
  const sampler = new Sampler(bundleSchema(older, older.tools.get(tool)!.requestSchema) as Record<string, unknown>);
  for (const variant of ['rich', 'last'] as const) {
    // The negotiation fields are the test's to pin (the sampler picks any major).
    const { adcp_version: _v, adcp_major_version: _m, ...sampled } = sampler.sample({}, { variant }) as Record<string, unknown>;
    const parsed = agent.strip(tool, agent.normalize(tool, sampled, { release: older.key }).value, { release: older.key }).value as Record<string, unknown>;
    if (agent.validateRequest(tool, parsed, { release: older.key }).ok) bases.set(tool, [...(bases.get(tool) ?? []), parsed]);
  }
}

/** A value of a JSON type the declaration does not admit, or of none of its values; undefined when any value is admitted. */
function wrongValue(types: ReadonlySet<string>, values: ReadonlySet<string> | undefined): unknown {
  const candidates: [string, unknown][] = [
    ['boolean', 'yes'],
    ['number', 'lots'],
    ['integer', 'lots'],
    ['object', 'not-an-object'],
    ['array', 'not-an-array'],
    ['string', 12345],
  ];
  for (const [type, value] of candidates) if (types.has(type)) return value;
  if (values !== undefined) return 'not-one-of-the-allowed-values';
  return undefined;
}

/** The object at `path` (array tokens `*` take the first element) in a copy of `base`, or undefined when absent. */
function parentIn(base: Record<string, unknown>, path: readonly string[]): { copy: Record<string, unknown>; parent: Record<string, unknown>; pointer: string } | undefined {
  const copy = structuredClone(base);
  let node: unknown = copy;
  let pointer = '';
  for (const token of path) {
    if (token === '*') {
      if (!Array.isArray(node) || node.length === 0) return undefined;
      node = node[0];
      pointer += '/0';
    } else {
      if (node === null || typeof node !== 'object' || Array.isArray(node) || !(token in node)) return undefined;
      node = (node as Record<string, unknown>)[token];
      pointer += `/${escapeToken(token)}`;
    }
  }
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
  return { copy, parent: node as Record<string, unknown>, pointer };
}

interface Probe {
  tool: string;
  field: string;
  pointer: string;
  request: Record<string, unknown>;
}

/**
 * check_governance's `payload.action` is typed only under `if: { required: [runtime_attestations] }`; a calibration
 * exemplar's `format_kind` only in its artifact arm, while the sampled exemplar is a URL reference (the other arm, an
 * open object that takes any `format_kind`).
 */
const ADMITTED = [
  'check_governance payload/action',
  'create_content_standards calibration_exemplars/pass/*/format_kind',
  'create_content_standards calibration_exemplars/fail/*/format_kind',
  'update_content_standards calibration_exemplars/pass/*/format_kind',
  'update_content_standards calibration_exemplars/fail/*/format_kind',
];

const probes: Probe[] = [];
const unreachable: string[] = [];
const admitted: string[] = [];
for (const tool of set.tools) {
  const n = fieldsOf(newer, [newer.tools.get(tool)!.requestSchema]);
  const o = fieldsOf(older, [older.tools.get(tool)!.requestSchema]);
  for (const [key, place] of n) {
    if (place.path.length === 0 || o.has(key) || place.declarations.length === 0) continue;
    // The negotiation fields are the runtime's own (release selection reads them before anything converts).
    if (key === 'adcp_version' || key === 'adcp_major_version') continue;
    const parentPath = place.path.slice(0, -1);
    const olderParent = o.get(parentPath.map(escapeToken).join('/'));
    // Only where a 3.0 buyer can send the field and 3.0's strip keeps it: its parent exists in 3.0, open.
    if (olderParent === undefined || olderParent.closed) continue;
    const facts = place.declarations.map((d) => factsOf(newer, d));
    const value = wrongValue(new Set(facts.flatMap((f) => [...f.types])), facts.every((f) => f.values !== undefined) ? new Set(facts.flatMap((f) => [...f.values!])) : undefined);
    if (value === undefined) continue;
    const name = place.path[place.path.length - 1]!;
    const probe = (bases.get(tool) ?? [])
      .map((base) => parentIn(base, parentPath))
      .find((p) => p !== undefined && !(name in p.parent));
    if (probe === undefined) {
      unreachable.push(`${tool} ${key}`);
      continue;
    }
    probe.parent[name] = value;
    // A 3.0 request still: its schema admits the field (an open object), so only 3.2 can refuse it.
    if (!agent.validateRequest(tool, probe.copy, { release: older.key }).ok) continue;
    // And one 3.2 does refuse: a constraint only a conditional states (check_governance's payload.action, under
    // runtime_attestations) may not bind this request.
    const up = conversionModule(set, tool).request(probe.copy).value;
    const parsedUp = agent.strip(tool, agent.normalize(tool, up, { release: newer.key }).value, { release: newer.key }).value;
    // (A missing field 3.0 never sends, a gap of the pair, is no defect: the handler's types make it optional.)
    const issues = agent.validateRequest(tool, parsedUp, { release: newer.key }).issues ?? [];
    const gaps = requestGaps(newer, older, tool);
    const placeOf = (pointer: string): string => pointer.split('/').slice(1).map((t) => (/^\d+$/.test(t) ? '*' : t)).join('/');
    if (issues.every((i) => i.keyword === 'required' && gaps.includes(placeOf(i.pointer)))) {
      admitted.push(`${tool} ${key}`);
      continue;
    }
    // A fresh key per probe, as a buyer mints one per request (storyboard samples share theirs).
    const fresh = typeof probe.copy.idempotency_key === 'string' ? { idempotency_key: randomUUID() } : {};
    probes.push({ tool, field: key, pointer: `${probe.pointer}/${escapeToken(name)}`, request: { ...probe.copy, ...fresh, adcp_version: older.key } });
  }
}

test('every field 3.2 adds where a 3.0 buyer can send it, with a value 3.2 refuses, is INVALID_REQUEST naming it; the handler never runs', async () => {
  assert.ok(probes.length >= 20, `${probes.length} fields probed`);
  for (const named of ['create_media_buy paused', 'create_media_buy daily_budget_cap', 'get_products targeting_overlay']) {
    assert.ok(probes.some((p) => `${p.tool} ${p.field}` === named), `${named} is probed (probed: ${probes.filter((p) => p.tool === named.split(' ')[0]).map((p) => p.field).join(', ')})`);
  }
  const failures: string[] = [];
  for (const p of probes) {
    let ran = false;
    const r = await agent.call(p.tool, p.request, () => ((ran = true), {}));
    const error = r.structuredContent?.adcp_error as { code: string; issues?: { pointer: string }[] } | undefined;
    const named = (error?.issues ?? []).some((i) => i.pointer === p.pointer || p.pointer.startsWith(`${i.pointer}/`) || i.pointer.startsWith(`${p.pointer}/`));
    if (ran || error?.code !== 'INVALID_REQUEST' || !named) failures.push(`${p.tool} ${p.field}: ${ran ? 'the handler ran; ' : ''}${JSON.stringify(r.structuredContent).slice(0, 300)}`);
  }
  assert.equal(failures, []);
  // Fields whose wrong value 3.2 itself admits in these requests, each for a reason of 3.2's schema: listed, so a
  // change shows.
  assert.equal(admitted.sort(), [...ADMITTED].sort(), 'fields whose wrong value 3.2 admits in these requests');
  process.stderr.write(`\n  ${probes.length} added fields probed over ${new Set(probes.map((p) => p.tool)).size} tools; ${unreachable.length} without a 3.0 sample holding their parent; admitted by a conditional: ${admitted.join(', ') || 'none'}\n`);
});

test.run();
