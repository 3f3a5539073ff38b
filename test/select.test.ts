import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CodegenError } from '../generator/shared/index.js';
import { checkCapabilities, loadRelease, readProfile } from '../generator/load/index.js';
import { selectTools } from '../generator/select/index.js';
import { tinyRelease, writeTree } from './helpers/fixture-release.js';
import { exampleProfiles, profileFrom } from './helpers/profiles.js';
import { sdkReleaseDir } from './helpers/releases.js';
import { EXPECTED_3_0 } from './helpers/expected-selection.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const r30 = loadRelease(sdkReleaseDir());


test('example profiles select the hand-checked tool surface on AdCP 3.0.6', () => {
  const profiles = exampleProfiles();
  assert.equal(profiles.map((p) => p.name), Object.keys(EXPECTED_3_0));
  for (const p of profiles) {
    checkCapabilities(p, r30);
    const s = selectTools(p, r30, [r30]);
    assert.equal(s.tools.map((t) => t.name), EXPECTED_3_0[p.name], p.name);
  }
});

const tiny = loadRelease(tinyRelease());
const caps = { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] };

function fails(f: () => unknown, pointer: string, message: RegExp): void {
  try {
    f();
  } catch (e) {
    assert.instance(e, CodegenError);
    assert.is((e as CodegenError).file, 'profile.json');
    assert.is((e as CodegenError).pointer, pointer);
    assert.match((e as CodegenError).message, message);
    return;
  }
  assert.unreachable(`expected an error at ${pointer}`);
}

test('step 2: protocol scope, exact capability claims, shared tools; sorted output', () => {
  const p = profileFrom({ tools: ['make_thing', 'get_signals', 'get_adcp_capabilities', 'get_things'], shared_tools: [], capabilities: caps });
  const s = selectTools(p, tiny, [tiny]);
  assert.equal(s.tools.map((t) => t.name), ['get_adcp_capabilities', 'get_things', 'make_thing']);
  assert.equal(s.outOfScope, ['get_signals']);
  const shared = selectTools(profileFrom({ tools: ['get_things', 'get_signals'], shared_tools: ['get_signals'], capabilities: caps }), tiny, [tiny]);
  assert.equal(shared.tools, [
    { name: 'get_signals', reason: 'shared' },
    { name: 'get_things', reason: 'protocol' },
  ]);
  const claimed = selectTools(profileFrom({ tools: ['get_signals'], capabilities: { ...caps, supported_protocols: [], media_buy: { lifecycle_tools: ['get_signals'] } } }), tiny, [tiny]);
  assert.equal(claimed.tools, [{ name: 'get_signals', reason: 'capability' }]);
  // Without a narrower scope every implemented tool is selected.
  const unscoped = selectTools(profileFrom({ tools: ['get_signals', 'get_things'], capabilities: { adcp: { major_versions: [9] } } }), tiny, [tiny]);
  assert.equal(unscoped.tools.map((t) => t.name), ['get_signals', 'get_things']);
});

test('step 3: protocol is ownership, not dependency — nothing is pulled in', () => {
  const s = selectTools(profileFrom({ tools: ['get_things'], capabilities: caps }), tiny, [tiny]);
  assert.equal(s.tools.map((t) => t.name), ['get_things']);
});

test('fail closed: unknown tools, claims not implemented, compliance in production, shared but not implemented', () => {
  fails(() => selectTools(profileFrom({ tools: ['get_things', 'get_thingz'], capabilities: caps }), tiny, [tiny]), '/tools/1', /unknown tool "get_thingz": not in the manifest of AdCP [^;]+; did you mean get_things\?/);
  fails(
    () => selectTools(profileFrom({ tools: ['get_things'], capabilities: { ...caps, media_buy: { lifecycle_tools: ['make_thing'] } } }), tiny, [tiny]),
    '/capabilities/media_buy/lifecycle_tools/0',
    /claim make_thing, which the agent does not implement/,
  );
  fails(() => selectTools(profileFrom({ tools: ['comply_test_controller'], capabilities: caps }), tiny, [tiny]), '/tools/0', /compliance protocol/);
  assert.equal(selectTools(profileFrom({ tools: ['comply_test_controller'], surface: 'sandbox', capabilities: { adcp: {} } }), tiny, [tiny]).tools.map((t) => t.name), ['comply_test_controller']);
  fails(() => selectTools(profileFrom({ tools: ['get_things'], shared_tools: ['get_signals'], capabilities: caps }), tiny, [tiny]), '/shared_tools/0', /not implemented/);
});

test('profile files: duplicates and format errors name the pointer; capabilities are checked against the release', () => {
  const dir = writeTree({
    'dup.json': { name: 'dup', tools: ['get_things', 'make_thing', 'get_things'], capabilities: caps },
    'bad.json': { name: 'Bad Name', tools: [], capabilities: {} },
    'caps.json': { name: 'caps', tools: ['get_things'], capabilities: { adcp: { major_versions: ['nine'] }, supported_protocols: ['media_buy'] } },
  });
  const err = (f: () => unknown): CodegenError => {
    try {
      f();
    } catch (e) {
      return e as CodegenError;
    }
    throw new Error('expected an error');
  };
  let e = err(() => readProfile(join(dir, 'dup.json'), 'dup.json'));
  assert.is(e.pointer, '/tools/2');
  assert.match(e.message, /listed twice \(first at \/tools\/0\)/);
  e = err(() => readProfile(join(dir, 'bad.json'), 'bad.json'));
  assert.is(e.pointer, '/name');
  const p = readProfile(join(dir, 'caps.json'), 'caps.json');
  e = err(() => checkCapabilities(p, tiny));
  assert.is(e.file, 'caps.json');
  assert.is(e.pointer, '/capabilities/adcp/major_versions/0');
  assert.match(e.message, /AdCP 9\.1\.0/);
});

test('a tool this copy of one release cannot serve is, for a profile another release serves it from, absent from that release', () => {
  // @adcp/sdk's copy of 3.0.6 names comply_test_controller in its manifest without shipping its schemas.
  const manifest = JSON.parse(readFileSync(join(tinyRelease(), 'manifest.json'), 'utf8')) as { tools: Record<string, Record<string, unknown>> };
  manifest.tools.comply_test_controller = { ...manifest.tools.comply_test_controller, request_schema: 'compliance/missing-request.json' };
  const lacking = loadRelease(tinyRelease({ 'manifest.json': manifest }));
  assert.ok(lacking.unavailable.has('comply_test_controller'));
  const full = loadRelease(tinyRelease({}, '9.2.0'));
  const sandbox = profileFrom({ tools: ['get_things', 'comply_test_controller'], shared_tools: ['comply_test_controller'], surface: 'sandbox', capabilities: caps });
  const both = [full, lacking];
  assert.equal(selectTools(sandbox, full, both).tools.map((t) => t.name), ['comply_test_controller', 'get_things']);
  const partial = selectTools(sandbox, lacking, both);
  assert.equal(partial.tools.map((t) => t.name), ['get_things']);
  assert.equal(partial.notInRelease, ['comply_test_controller']);
  // Served by no release: still the error it was, naming why.
  fails(() => selectTools(sandbox, lacking, [lacking]), '/tools/1', /comply_test_controller cannot be served from AdCP 9\.1\.0: schema compliance\/missing-request\.json/);
});

test.run();
