import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileConversions } from '../generator/compile/convert/index.js';
import { diffReleases, planConversions, uncoveredCandidates } from '../generator/compile/index.js';
import { loadConversionRules, loadRelease, type ConversionRuleFile, type Release } from '../generator/load/index.js';
import { loadConfig } from '../generator/load/config.js';
import { CodegenError } from '../generator/shared/index.js';
import { runCli } from './helpers/cli.js';
import { writeEmitted } from './helpers/differential.js';
import { tempDir, tinyRelease, writeTree } from './helpers/fixture-release.js';
import { repoRoot } from './helpers/releases.js';
import { CONVERSIONS } from './helpers/two-release-set.js';

/**
 * The generator side of conversions, on small releases built to differ in one way each: the diff finds what changed
 * between two releases (the candidates for rules), the plan places each rule where the tools reach what it cites
 * and says why it skips one, the compiled module is safe for any property name, rule files are checked against
 * their format, and generate reports what no rule or waiver accounts for.
 */
const schema = (version: string, path: string, body: Record<string, unknown>): Record<string, unknown> => ({
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: `/schemas/${version}/${path}`,
  type: 'object',
  ...body,
});
const enumOf = (...values: string[]) => ({ type: 'string', enum: values });
const TASK = enumOf('submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'rejected', 'auth-required', 'unknown');

/** 9.1 and 9.2 of make_thing as the two-release fixture has them, plus a 9.2 field deprecated in favour of another. */
function pair(): { newer: Release; older: Release } {
  const older = loadRelease(
    tinyRelease(
      {
        'media-buy/make-thing-response.json': schema('9.1.0', 'media-buy/make-thing-response.json', {
          properties: { thing: { $ref: '/schemas/9.1.0/core/thing.json' }, status: enumOf('pending', 'active', 'completed'), actions: { type: 'array', items: enumOf('pause', 'cancel') } },
        }),
        'media-buy/get-things-request.json': schema('9.1.0', 'media-buy/get-things-request.json', { properties: { limit: { type: 'integer' }, sort: enumOf('name', 'newest') } }),
      },
      '9.1.0',
    ),
  );
  const newer = loadRelease(
    tinyRelease(
      {
        'core/thing.json': schema('9.2.0', 'core/thing.json', { properties: { id: { type: 'string' }, label: { type: 'string' } }, required: ['id'], additionalProperties: false }),
        'media-buy/make-thing-response.json': schema('9.2.0', 'media-buy/make-thing-response.json', {
          properties: {
            thing: { $ref: '/schemas/9.2.0/core/thing.json' },
            thing_status: enumOf('pending', 'active', 'completed'),
            status: TASK,
            actions: { type: 'array', deprecated: true, description: 'Deprecated in favor of `available_actions`.', items: enumOf('pause', 'cancel') },
            available_actions: { type: 'array', items: { type: 'object', properties: { action: enumOf('pause', 'cancel', 'archive') } } },
          },
        }),
        'media-buy/get-things-request.json': schema('9.2.0', 'media-buy/get-things-request.json', { properties: { limit: { type: 'integer' }, order: enumOf('name', 'newest'), mode: enumOf('brief') }, required: ['mode'] }),
      },
      '9.2.0',
    ),
  );
  return { newer, older };
}

const rulesFile = (doc: Record<string, unknown>): ConversionRuleFile[] => loadConversionRules([writeTree({ 'c.json': doc }) + '/c.json']);
const TOOLS = ['get_things', 'make_thing'];

test('the diff: a retyped status, the field that took its values, a renamed request field, a deprecation with its replacement; a plain addition is none', () => {
  const { newer, older } = pair();
  const d = diffReleases(newer, older, TOOLS);
  const list = d.candidates.map((c) => `${c.side} ${c.kind} ${c.release} ${c.location}`);
  assert.equal(list, [
    'request relocated newer media-buy/get-things-request.json#/properties/order',
    'request removed older media-buy/get-things-request.json#/properties/sort',
    'response deprecated newer media-buy/make-thing-response.json#/properties/actions',
    'response retyped newer media-buy/make-thing-response.json#/properties/status',
    'response relocated newer media-buy/make-thing-response.json#/properties/thing_status',
  ]);
  const status = d.candidates.find((c) => c.kind === 'retyped')!;
  assert.match(status.detail, /admits "auth-required", .*"working", which the receiving release does not/);
  assert.equal(status.occurrences, [{ tool: 'make_thing', place: 'status' }]);
  // `label` is new in a closed object: deep-strip's to remove, not a rule's.
  assert.not.ok(d.candidates.some((c) => c.location.includes('thing.json')));
});

test('the plan: each rule placed where the tools reach what it cites; what does not line up is skipped with the reason', () => {
  const { newer, older } = pair();
  const files = rulesFile({
    ...CONVERSIONS,
    responses: [
      ...CONVERSIONS.responses,
      { id: 'actions-from-available', newer: 'media-buy/make-thing-response.json#/properties/available_actions', older: 'media-buy/make-thing-response.json#/properties/actions', transform: { kind: 'pluck', member: 'action' } },
      { id: 'cites-nothing', newer: 'media-buy/make-thing-response.json#/properties/nope', older: 'media-buy/make-thing-response.json#/properties/status', transform: { kind: 'rename' } },
      { id: 'not-a-sibling', tools: ['make_thing'], newer: 'media-buy/make-thing-response.json#/properties/thing_status', older: 'core/thing.json#/properties/id', transform: { kind: 'rename' } },
    ],
  });
  const plan = planConversions({ newer, older }, files, TOOLS);
  const steps = plan.tools.find((t) => t.tool === 'make_thing')!.responses.map((s) => `${s.rule.id} ${s.field}→${(s.target ?? []).join('/')}`);
  assert.equal(steps, ['task-status-completed status→', 'thing_status-to-status thing_status→status', 'actions-from-available available_actions→actions']);
  const pluck = plan.tools.find((t) => t.tool === 'make_thing')!.responses[2]!;
  assert.equal(pluck.admitted, ['pause', 'cancel'], "the plucked values are filtered by what 9.1's actions admit");
  assert.equal(
    plan.skipped.map((s) => `${s.rule} ${s.tool}: ${s.reason}`),
    ['cites-nothing *: AdCP 9.2.0 declares no property at media-buy/make-thing-response.json#/properties/nope', 'not-a-sibling make_thing: no cited declaration is a sibling of /thing_status'],
  );
  assert.equal(plan.tools.find((t) => t.tool === 'get_things')!.requests.map((s) => s.rule.id), ['sort-to-order']);
  // What the rules cover is off the list; the deprecation without a rule for it stays, until waived.
  assert.equal(uncoveredCandidates(planConversions({ newer, older }, rulesFile(CONVERSIONS), TOOLS)).map((u) => u.candidate.location), ['media-buy/make-thing-response.json#/properties/actions']);
  assert.equal(uncoveredCandidates(plan), []);
  const waived = rulesFile({ ...CONVERSIONS, waivers: [{ location: 'media-buy/make-thing-response.json#/properties/actions', side: 'response', reason: 'both releases declare it' }] });
  assert.equal(uncoveredCandidates(planConversions({ newer, older }, waived, TOOLS)), []);
  assert.equal(uncoveredCandidates(planConversions({ newer, older }, [], TOOLS)).length, 5, 'without rules every candidate is uncovered');
});

test('the compiled pluck keeps only what the older release admits, and names nothing twice', () => {
  const { newer, older } = pair();
  const files = rulesFile({
    newer: '9.2',
    older: '9.1',
    responses: [{ id: 'actions-from-available', newer: 'media-buy/make-thing-response.json#/properties/available_actions', older: 'media-buy/make-thing-response.json#/properties/actions', transform: { kind: 'pluck', member: 'action' } }],
  });
  const out = tempDir('adcp-convert-pluck-');
  writeEmitted(out, compileConversions(planConversions({ newer, older }, files, TOOLS)));
  const convert = (createRequire(join(out, 'x.cjs'))(join(out, 'releases/9.1/convert/9.2/index.cjs')) as Record<string, unknown>).make_thing as { response(b: unknown, r: unknown): { value: any } };
  const body = { available_actions: [{ action: 'pause' }, { action: 'archive' }, { action: 'pause' }, 'junk'] };
  assert.equal(convert.response(body, {}).value.actions, ['pause']);
  assert.equal(convert.response({ ...body, actions: ['cancel'] }, {}).value.actions, ['cancel'], 'a list already there is kept');
  assert.equal(convert.response({ available_actions: [] }, {}).value.actions, []);
  assert.not.ok('actions' in convert.response({ available_actions: [{ action: 'archive' }] }, {}).value, 'all unknown: no claim that nothing is allowed');
});

test('every transform kind, compiled: drop (values, unknown, elements), drop-parent (element, member, missing), default, map, refuse, from-request', () => {
  const older = loadRelease(
    tinyRelease(
      {
        'media-buy/make-thing-response.json': schema('9.1.0', 'media-buy/make-thing-response.json', {
          properties: {
            plan_id: { type: 'string' },
            color: enumOf('red', 'blue'),
            tags: { type: 'array', items: enumOf('a', 'b') },
            items: { type: 'array', items: { type: 'object', properties: { kind: enumOf('x', 'y'), name: { type: 'string' } }, required: ['kind', 'name'] } },
            box: { type: 'object', properties: { size: { type: 'integer' }, system: enumOf('us_zip') }, required: ['size'] },
            list: { type: 'array', items: { type: 'string' } },
            mode: enumOf('sync'),
          },
          required: ['plan_id', 'list'],
        }),
        'media-buy/make-thing-request.json': schema('9.1.0', 'media-buy/make-thing-request.json', { properties: { plan_id: { type: 'string' } }, required: ['plan_id'] }),
      },
      '9.1.0',
    ),
  );
  const newer = loadRelease(
    tinyRelease(
      {
        'media-buy/make-thing-response.json': schema('9.2.0', 'media-buy/make-thing-response.json', {
          properties: {
            plan_id: { type: 'string' },
            color: enumOf('red', 'blue', 'green'),
            tags: { type: 'array', items: enumOf('a', 'b', 'c') },
            items: { type: 'array', items: { type: 'object', properties: { kind: enumOf('x', 'y', 'z'), name: { type: 'string' } }, required: ['kind'] } },
            box: { type: 'object', properties: { size: { type: 'integer' }, country: { type: 'string' }, system: enumOf('zip') } },
            list: { type: 'array', items: { type: 'string' } },
            mode: enumOf('sync', 'async'),
          },
        }),
        'media-buy/make-thing-request.json': schema('9.2.0', 'media-buy/make-thing-request.json', { properties: { plan_id: { type: 'string' } } }),
      },
      '9.2.0',
    ),
  );
  const at = (p: string): string => `media-buy/make-thing-response.json#/properties/${p}`;
  const files = rulesFile({
    newer: '9.2',
    older: '9.1',
    responses: [
      { id: 'refuse-async', newer: at('mode'), older: at('mode'), transform: { kind: 'refuse', values: ['async'], reason: 'an asynchronous thing' } },
      { id: 'color-unknown', newer: at('color'), older: at('color'), transform: { kind: 'drop', unknown: true, reason: 'a color 9.1 lacks' } },
      { id: 'tags-unknown', newer: at('tags'), older: at('tags'), transform: { kind: 'drop', unknown: true, reason: 'a tag 9.1 lacks' } },
      { id: 'item-kind', newer: at('items/items/properties/kind'), older: at('items/items/properties/kind'), transform: { kind: 'drop-parent', unknown: true, reason: 'a kind 9.1 lacks' } },
      { id: 'item-name', newer: at('items/items/properties/name'), older: at('items/items/properties/name'), transform: { kind: 'drop-parent', missing: true, reason: '9.1 requires a name' } },
      { id: 'box-system', newer: at('box/properties/system'), older: at('box/properties/system'), transform: { kind: 'map', table: [{ from: { country: 'US', system: 'zip' }, to: { system: 'us_zip' } }] } },
      { id: 'box-size', newer: at('box/properties/size'), older: at('box/properties/size'), transform: { kind: 'drop-parent', missing: true, reason: '9.1 requires a size' } },
      { id: 'list-default', newer: at('list'), older: at('list'), transform: { kind: 'default', value: [] } },
      { id: 'plan-echo', newer: at('plan_id'), older: at('plan_id'), transform: { kind: 'from-request', path: ['plan_id'] } },
    ],
  });
  const plan = planConversions({ newer, older }, files, ['make_thing']);
  assert.equal(plan.skipped, []);
  const out = tempDir('adcp-convert-kinds-');
  writeEmitted(out, compileConversions(plan));
  const convert = (createRequire(join(out, 'x.cjs'))(join(out, 'releases/9.1/convert/9.2/index.cjs')) as Record<string, unknown>).make_thing as {
    response(b: unknown, r: unknown): { value: any; applied: { rule: string; from: string }[]; refused?: string };
  };
  const body = {
    color: 'green',
    tags: ['a', 'c', 'b'],
    items: [{ kind: 'x', name: 'one' }, { kind: 'z', name: 'two' }, { kind: 'y' }],
    box: { country: 'US', system: 'zip', size: 2 },
  };
  const r = convert.response(body, { plan_id: 'p1' });
  assert.equal(r.value, { tags: ['a', 'b'], items: [{ kind: 'x', name: 'one' }], box: { system: 'us_zip', size: 2 }, list: [], plan_id: 'p1' });
  // Each container's children first, then its own rules in file order: an element's rules see what its members' left.
  assert.equal(r.applied.map((a) => `${a.rule} ${a.from}`), ['item-kind /items/1', 'item-name /items/2', 'box-system /box/system', 'color-unknown /color', 'tags-unknown /tags/1', 'list-default ', 'plan-echo /plan_id']);
  assert.equal(convert.response({ box: { country: 'FR', system: 'zip' } }, {}).value.box, undefined, 'a box without its size goes; an unmapped one is left as it was');
  assert.is(convert.response({ mode: 'async' }, {}).refused, 'an asynchronous thing');
  assert.equal(convert.response({ color: 'red', list: ['x'], plan_id: 'mine' }, { plan_id: 'p1' }).value, { color: 'red', list: ['x'], plan_id: 'mine' }, 'what 9.1 knows is kept');
});

test('property names with quotes, a comment closer, a line separator or a backslash are data in the compiled module', () => {
  const weird = 'we"ird*/\u2028\\x';
  const esc = weird.replace(/~/g, '~0').replace(/\//g, '~1');
  const older = loadRelease(tinyRelease({ 'media-buy/make-thing-response.json': schema('9.1.0', 'media-buy/make-thing-response.json', { properties: { [weird]: { type: 'string' } } }) }, '9.1.0'));
  const newer = loadRelease(tinyRelease({ 'media-buy/make-thing-response.json': schema('9.2.0', 'media-buy/make-thing-response.json', { properties: { [`${weird}2`]: { type: 'string' } } }) }, '9.2.0'));
  const files = rulesFile({
    newer: '9.2',
    older: '9.1',
    responses: [{ id: 'weird', summary: 'ends */ here\u2028and here', newer: `media-buy/make-thing-response.json#/properties/${esc}2`, older: `media-buy/make-thing-response.json#/properties/${esc}`, transform: { kind: 'rename' } }],
  });
  const out = tempDir('adcp-convert-weird-');
  writeEmitted(out, compileConversions(planConversions({ newer, older }, files, ['make_thing'])));
  const convert = (createRequire(join(out, 'x.cjs'))(join(out, 'releases/9.1/convert/9.2/index.cjs')) as Record<string, unknown>).make_thing as { response(b: unknown, r: unknown): { value: Record<string, unknown> } };
  assert.equal(convert.response({ [`${weird}2`]: 'v' }, {}).value, { [weird]: 'v' });
});

test('rule files: format errors name the file and pointer', () => {
  const bad = (doc: unknown): string => {
    try {
      loadConversionRules([writeTree({ 'c.json': doc as Record<string, unknown> }) + '/c.json']);
    } catch (e) {
      assert.instance(e, CodegenError);
      return (e as Error).message;
    }
    throw new Error('accepted');
  };
  const rule = { id: 'r', newer: 'a.json#/properties/x', older: 'a.json#/properties/y', transform: { kind: 'rename' } };
  assert.match(bad({ newer: '9.1', older: '9.2', responses: [rule] }), /c\.json#\/older: 9\.2 is not older than 9\.1/);
  assert.match(bad({ newer: '9.2', older: '9.1', responses: [{ ...rule, transform: { kind: 'teleport' } }] }), /c\.json#\/responses\/0\/transform\/kind: unknown transform kind "teleport"/);
  assert.match(bad({ newer: '9.2', older: '9.1', responses: [{ ...rule, newer: 'a.json#/x' }] }), /c\.json#\/responses\/0\/newer.*is not a property declaration/);
  assert.match(bad({ newer: '9.2', older: '9.1', requests: [{ ...rule, transform: { kind: 'from-request', path: ['x'] } }] }), /c\.json#\/requests\/0\/transform\/kind: from-request converts responses only/);
  assert.match(bad({ newer: '9.2', older: '9.1', responses: [{ ...rule, unless: JSON.parse('{"__proto__": ["x"]}') as unknown }] }), /reserved name/);
  assert.match(bad({ newer: '9.2', older: '9.1', responses: [rule, rule] }), /c\.json#\/responses\/1\/id: rule id "r" is already used/);
});

test('generate: the shipped rules by default, an uncovered change is a warning naming it, an error with --strict', async () => {
  const { newer, older } = pair();
  const work = writeTree({
    'package.json': { name: 'agent', private: true, type: 'module' },
    'profiles/p.json': { name: 'p', tools: ['make_thing'], capabilities: { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] } },
    'conversions/things.json': CONVERSIONS,
    'adcp-codegen.config.json': { releases: [newer.dir, older.dir], profiles: ['profiles/*.json'], conversions: ['conversions/*.json'], out: 'generated' },
  });
  const run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /9\.2>9\.1: no conversion rule or waiver for the response change at media-buy\/make-thing-response\.json#\/properties\/actions \(deprecated: actions is deprecated in favour of available_actions\); in make_thing \/actions/);
  const strict = await runCli(['generate', '--strict', '--out', 'generated2'], work);
  assert.is(strict.code, 1);
  assert.match(strict.stderr, /make-thing-response\.json#\/properties\/actions.*\(--strict\)/);
  assert.ok(loadConversionRules([join(repoRoot, 'schemas/conversions/3.2-3.0.json')]).length === 1, 'the shipped rules load');
  // No `conversions` in the config: the shipped files; `[]`: none.
  const base = { releases: [newer.dir, older.dir], profiles: ['profiles/*.json'], out: 'generated' };
  writeTree({ 'adcp-codegen.config.json': base }, work);
  assert.equal(loadConfig({ cwd: work }).conversions, [join(repoRoot, 'schemas/conversions/3.2-3.0.json')]);
  writeTree({ 'adcp-codegen.config.json': { ...base, conversions: [] } }, work);
  assert.equal(loadConfig({ cwd: work }).conversions, []);
});

test('docs/conversions.md names every shipped rule, and each rule and waiver says why', () => {
  const doc = readFileSync(join(repoRoot, 'docs/conversions.md'), 'utf8');
  for (const file of loadConversionRules([join(repoRoot, 'schemas/conversions/3.2-3.0.json')])) {
    for (const rule of file.rules) {
      assert.ok(doc.includes(`\`${rule.id}\``), `docs/conversions.md names ${rule.id}`);
      assert.ok((rule.summary ?? '').length > 20, `${rule.id} has a summary`);
    }
    for (const w of file.waivers) assert.ok(w.reason.length > 20, `the waiver of ${w.location} says why`);
  }
});

test.run();
