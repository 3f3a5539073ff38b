import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planConversions, requestGaps, uncoveredCandidates } from '../../generator/compile/index.js';
import type { Step } from '../../generator/compile/convert/index.js';
import { loadConversionRules, type JsonValue } from '../../generator/load/index.js';
import { conversionModule, conversionSet, measureDown, measureUp, responseCorpus, sentAs, type CorpusBody } from '../helpers/corpus.js';
import { repoRoot, sharedComplianceDir, sharedReleaseDir } from '../helpers/releases.js';

/**
 * The shipped AdCP 3.2 → 3.0 conversions, measured over the corpus (test/helpers/corpus.ts): every valid 3.2 response
 * body of every tool both releases serve, answered by a handler written in 3.2's shape to a buyer pinned to 3.0.6,
 * is valid under the 3.0.6 canonical response schema — or, where a rule says the answer has no 3.0 form, an AdCP
 * error saying so; every rule's value arrives where 3.0 keeps it (a test per rule); every schema change between the
 * releases is covered by a rule or waived; and 3.0.6's storyboard requests, converted up, are valid 3.2 requests but
 * for the fields 3.0 does not send (which the handler's args type makes optional).
 */
const newerDir = sharedReleaseDir();
const compliance = sharedComplianceDir();
if (newerDir === undefined || compliance === undefined) throw new Error('../shared/adcp is required for the real-release suite');
const set = await conversionSet(newerDir, compliance);
const { newer, older } = set;
const ruleFiles = loadConversionRules(readdirSync(join(repoRoot, 'schemas/conversions')).sort().map((f) => join(repoRoot, 'schemas/conversions', f)));
const plan = planConversions({ newer, older }, ruleFiles, set.tools);
const corpus = await responseCorpus(set);

test('every schema change between 3.2.0-beta.5 and 3.0.6 is covered by a rule or waived with a reason; every shipped rule applies', () => {
  assert.equal(uncoveredCandidates(plan).map((u) => `${u.candidate.side} ${u.candidate.location} ${u.occurrences.map((o) => o.tool).join(',')}`), []);
  assert.equal(plan.skipped, []);
  const used = new Set(plan.tools.flatMap((t) => [...t.responses, ...t.requests].map((s) => s.rule.id)));
  assert.equal(ruleFiles.flatMap((f) => f.rules.map((r) => r.id)).filter((id) => !used.has(id)), [], 'every rule is placed somewhere');
});

test('the corpus: valid 3.2 bodies of every tool both releases serve, from schema examples, storyboards, the example seller and the sampler', () => {
  const tools = new Set(corpus.map((c) => c.tool));
  assert.equal(set.tools.filter((t) => !tools.has(t)), [], 'every tool has bodies');
  const sources = new Set(corpus.map((c) => c.source));
  for (const s of ['schema example', 'storyboard', 'example seller', 'sampled minimal', 'sampled rich', 'sampled last'] as const) assert.ok(sources.has(s), `bodies from ${s}`);
  // Kept only when the generated 3.2 validator (Ajv over the canonical schema) accepts it as the runtime sends it.
  for (const c of corpus) assert.ok(set.agent.validateResponse(c.tool, sentAs(newer, c.tool, c.body), { release: newer.key }).ok, `${c.tool} (${c.source})`);
});

test('down-converted for a 3.0.6 buyer, every corpus body is valid under 3.0.6, or refused by a rule that says why', async () => {
  const measured = await measureDown(set, corpus);
  const refuses = new Set(ruleFiles.flatMap((f) => f.rules).flatMap((r) => (r.transform.kind === 'refuse' ? [r.transform.reason] : [])));
  const refused = measured.filter((m) => m.issues[0]?.startsWith(' answered as an error') === true);
  for (const m of refused) {
    const body = m.sent.adcp_error as { code: string; message: string } | undefined;
    assert.is(body?.code, 'UNSUPPORTED_FEATURE', `${m.entry.tool}: ${m.issues[0]}`);
    assert.ok([...refuses].some((r) => body!.message.includes(`(${r})`)), `${m.entry.tool}: refused by a rule: ${body!.message}`);
  }
  const invalid = measured.filter((m) => m.issues.length > 0 && !refused.includes(m));
  assert.equal(invalid.map((m) => `${m.entry.tool} (${m.entry.source}): ${m.issues.slice(0, 3).join('; ')}`), []);
  const asIs = measured.filter((m) => m.validAsIs).length;
  // Without the conversions, a fifth of the bodies would reach a 3.0 buyer invalid.
  assert.ok(asIs < measured.length - refused.length, `${asIs} of ${measured.length} valid as they are`);
});

test("the create_media_buy acceptance case: a 3.2 handler's media_buy_status is 3.0's status, and no task `completed` in its place", async () => {
  const body = corpus.find((c) => c.tool === 'create_media_buy' && c.source === 'sampled minimal')!.body;
  const { createMediaBuyRequest } = await import('../helpers/payloads.js');
  // A fresh idempotency_key per call: the agent replays a key it has seen (with the answer first given), and each
  // call here answers differently on purpose.
  const fresh = (adcp_version: string): Record<string, unknown> => ({ ...createMediaBuyRequest({ idempotency_key: randomUUID() }), adcp_version });
  for (const [media_buy_status, status] of [
    ['pending_creatives', 'pending_creatives'],
    [undefined, undefined],
  ] as const) {
    const answer = { ...body, ...(media_buy_status === undefined ? {} : { media_buy_status }) };
    const r = await set.agent.call('create_media_buy', fresh(older.key), () => structuredClone(answer));
    assert.not.ok(r.isError, r.content[0]!.text);
    assert.is(r.structuredContent!.status, status);
    assert.is(r.structuredContent!.media_buy_status, undefined);
    assert.is(r.structuredContent!.adcp_version, older.key);
    const latest = await set.agent.call('create_media_buy', fresh(newer.key), () => structuredClone(answer));
    assert.is(latest.structuredContent!.media_buy_status, media_buy_status);
    assert.is(latest.structuredContent!.status, 'completed');
  }
});

// ---------------------------------------------------------------------------------------------------------------
// A test per rule: a corpus body of the tool with the rule's field set at each place the rule acts, converted by the
// generated module; the value is where 3.0 keeps it (or gone, or refused), as the rule says.

type Json = Record<string, unknown>;

/** The value at a place (`*`: the first element), or undefined. */
function getAt(value: unknown, path: readonly string[]): unknown {
  let v = value;
  for (const t of path) {
    if (t === '*') v = Array.isArray(v) ? v[0] : undefined;
    else v = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json)[t] : undefined;
    if (v === undefined) return undefined;
  }
  return v;
}

/** A copy of `body` with the container at `path` made to exist (objects and one-element arrays along the way). */
function withContainer(body: Json, path: readonly string[]): Json {
  const copy = structuredClone(body);
  let v: unknown = copy;
  path.forEach((t, i) => {
    const nextIsArray = path[i + 1] === '*';
    if (t === '*') {
      const list = v as unknown[];
      if (list.length === 0 || list[0] === null || typeof list[0] !== 'object') list[0] = nextIsArray ? [] : {};
      list.length = 1;
      v = list[0];
      return;
    }
    const o = v as Json;
    if (o[t] === null || typeof o[t] !== 'object' || Array.isArray(o[t]) !== nextIsArray) o[t] = nextIsArray ? [] : {};
    v = o[t];
  });
  return copy;
}

function setField(body: Json, container: readonly string[], field: string, value: unknown): Json {
  const copy = withContainer(body, container);
  const holder = getAt(copy, container) as Json;
  if (value === undefined) delete holder[field];
  else holder[field] = value;
  return copy;
}

/** A corpus body of the tool that converts without a refusal (so the step under test is what acts), rich first. */
function baseBody(tool: string): Json {
  const module = conversionModule(set, tool);
  const ok = (c: CorpusBody): boolean => c.tool === tool && (module.response(c.body, {}) as { refused?: string }).refused === undefined;
  return (corpus.find((c) => ok(c) && c.source === 'sampled rich') ?? corpus.find(ok) ?? corpus.find((c) => c.tool === tool)!).body;
}

/** The pointer, in a body `withContainer` made, of a place (`*`: the first element). */
const pointerAt = (path: readonly string[]): string => path.map((t) => `/${t === '*' ? '0' : t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
const sample = (admitted: readonly JsonValue[] | undefined, fallback: unknown): unknown => admitted?.find((v) => v !== null) ?? fallback;

function checkStep(tool: string, step: Step): void {
  const module = conversionModule(set, tool);
  const t = step.rule.transform;
  const at = `${tool} /${[...step.container, step.field].join('/')}`;
  type Converted = { value: Json; refused?: string; applied: { rule: string; from: string; to: string }[] };
  // A container made for the test may lack what another rule refuses the whole answer for (a manifest's format_id):
  // that rule is satisfied with a placeholder, so the step under test is what acts.
  const convert = (input: Json, request: Json = {}): Converted => {
    let body = input;
    let result = module.response(body, request) as Converted;
    for (let i = 0; i < 4 && result.refused !== undefined; i++) {
      const others = plan.tools.find((x) => x.tool === tool)!.responses.filter((o) => o !== step && o.rule.transform.kind === 'refuse' && o.rule.transform.reason === result.refused && getAt(body, o.container) !== undefined);
      if (others.length === 0) break;
      for (const other of others) body = setField(body, other.container, other.field, (other.rule.transform as { missing: boolean }).missing ? 'placeholder' : undefined);
      result = module.response(body, request) as Converted;
    }
    return result;
  };
  switch (t.kind) {
    case 'rename':
    case 'move': {
      const value = `value-of-${step.rule.id}`;
      // An enum rename carries a value both releases admit; the runtime validates the rest.
      const body = setField(baseBody(tool), step.container, step.field, value);
      const out = convert(body).value;
      assert.is(getAt(out, [...step.container, ...step.target!]), value, `${at}: the value is where 3.0 keeps it`);
      assert.is(getAt(out, [...step.container, step.field]), undefined, `${at}: and not where 3.2 had it`);
      return;
    }
    case 'pluck': {
      const v = sample(step.admitted, 'x');
      const body = setField(setField(baseBody(tool), step.container, step.field, [{ [t.member]: v }, { [t.member]: v }]), step.container, step.target![0]!, undefined);
      assert.equal(getAt(convert(body).value, [...step.container, ...step.target!]), [v], `${at}: plucked, once`);
      return;
    }
    case 'from-request': {
      const body = setField(baseBody(tool), step.container, step.field, undefined);
      const request: Json = {};
      let r: Json = request;
      t.path.forEach((k: string, i: number) => (r = (r[k] = i === t.path.length - 1 ? 'from-the-request' : {}) as Json));
      assert.is(getAt(convert(body, request).value, [...step.container, ...step.target!]), 'from-the-request', `${at}: taken from the request`);
      return;
    }
    case 'default': {
      const body = setField(baseBody(tool), step.container, step.field, undefined);
      assert.equal(getAt(convert(body).value, [...step.container, step.field]), t.value, `${at}: defaulted`);
      return;
    }
    case 'map': {
      for (const entry of t.table) {
        let body = withContainer(baseBody(tool), step.container);
        for (const [k, v] of Object.entries(entry.from)) body = setField(body, step.container, k, v);
        const holder = getAt(convert(body).value, step.container) as Json;
        for (const [k, v] of Object.entries(entry.to)) assert.equal(holder[k], v, `${at}: ${JSON.stringify(entry.from)} → ${JSON.stringify(entry.to)}`);
        for (const k of Object.keys(entry.from)) if (!(k in entry.to)) assert.not.ok(k in holder, `${at}: ${k} folded into ${JSON.stringify(entry.to)}`);
      }
      return;
    }
    case 'refuse': {
      const value = t.missing ? undefined : t.present ? 'anything' : t.values![0];
      const body = setField(baseBody(tool), step.container, step.field, value);
      for (const [k, vs] of Object.entries(step.rule.unless ?? {})) {
        const holder = getAt(body, step.container) as Json;
        if ((vs as readonly JsonValue[]).some((v) => JSON.stringify(v) === JSON.stringify(holder[k]))) delete holder[k];
      }
      assert.is(convert(body).refused, t.reason, `${at}: refused`);
      return;
    }
    case 'drop':
    case 'drop-parent': {
      const newerOnly = step.admitted === undefined ? undefined : `a value only 3.2 has`;
      const value = t.missing ? undefined : t.values !== undefined ? t.values[0] : newerOnly !== undefined ? (step.elements === true ? [newerOnly] : newerOnly) : 'anything';
      const body = setField(baseBody(tool), step.container, step.field, value);
      const result = convert(body);
      assert.is(result.refused, undefined, `${at}: not refused (${result.refused})`);
      // Where the rule acted, as it reports it: the field (or an element of it), or the object holding it.
      const field = pointerAt([...step.container, step.field]);
      const expected = t.kind === 'drop' ? (step.elements === true ? `${field}/0` : field) : pointerAt(step.container);
      assert.ok(result.applied.some((a) => a.rule === step.rule.id && a.from === expected), `${at}: ${t.kind} at ${expected} (applied: ${JSON.stringify(result.applied)})`);
      // And it is gone: a later rule may fill the place again with a value of its own (a rename into the same field).
      const left = t.kind === 'drop' ? getAt(result.value, [...step.container, step.field]) : step.container[step.container.length - 1] === '*' ? getAt(result.value, step.container.slice(0, -1)) : getAt(result.value, step.container);
      const writers = plan.tools.find((x) => x.tool === tool)!.responses.filter((o) => o !== step && o.target !== undefined && pointerAt([...o.container, ...o.target]) === field);
      if (writers.length === 0) assert.ok(left === undefined || (Array.isArray(left) && left.length === 0), `${at}: gone`);
      return;
    }
  }
}

for (const rule of ruleFiles.flatMap((f) => f.rules).filter((r) => r.direction === 'response')) {
  test(`rule ${rule.id}: where 3.0 keeps it`, () => {
    const steps = plan.tools.flatMap((t) => t.responses.filter((s) => s.rule === rule).map((s) => [t.tool, s] as const));
    assert.ok(steps.length > 0, `${rule.id} acts somewhere`);
    for (const [tool, step] of steps) checkStep(tool, step);
  });
}

test('3.0.6 storyboard requests, converted up, are valid 3.2 requests but for what 3.0 does not send', async () => {
  const measured = await measureUp(set, (tool) => requestGaps(newer, older, tool));
  assert.ok(measured.length > 300, `${measured.length} valid 3.0.6 storyboard requests of tools both serve`);
  const off = measured.filter((m) => !m.validButGaps);
  // 3.2 forbids an intent check (tool and payload) from carrying governance_context, which 3.0's escalation re-check
  // sends: a change of protocol no field conversion can make; the handler receives the request as the buyer sent it.
  // (The rejection names every defect: past the `not`, 3.2's target_agent, which 3.0 does not send.)
  assert.equal(
    [...new Set(off.map((m) => `${m.sample.task}: ${m.issues.join('; ')}`))],
    ["check_governance:  not must NOT have 'plan_id' or 'governance_context' here; /target_agent required is required"],
  );
  assert.ok(off.length <= 2, `${off.length} requests 3.2 cannot take as sent`);
});

test.run();
