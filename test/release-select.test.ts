import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { contextEcho, invalidRequest, jsonPathLite, versionUnsupported, CONTEXT_ECHO_LIMIT } from '../runtime/wire/errors.js';
import { compareWireVersions, parseWireVersion, wireVersionOf } from '../runtime/wire/versions.js';
import { selectRelease, type ServedRelease } from '../runtime/wire/release-select.js';

const r = (key: string): ServedRelease => ({ key, ...parseWireVersion(key)! });
/**
 * `served` highest first, as the generated profile lists it; the default release as the generator resolves it
 * (generator/load/profile.ts defaultRelease): the one the profile names, else its highest stable release.
 */
const pick = (served: readonly string[], args: unknown, named?: string): string => {
  const releases = served.map(r);
  const fallback = named !== undefined ? releases.find((x) => x.key === named) : releases.find((x) => x.prerelease === undefined);
  const c = selectRelease(releases, args, fallback);
  return c.ok ? c.release.key : c.code;
};
const served = ['3.2', '3.0'];
const key = (args: unknown): string => pick(served, args);
const code = key;

/**
 * docs/reference/versioning.mdx, "Version negotiation" and "Pre-release pins", rule by rule, with issue 40's stable
 * default (a pre-release only to an exact pin, or as the profile's named default_release): the server's releases,
 * the buyer's request, what is served (or the error code), and the profile's default_release where it names one.
 */
const RULES: readonly [rule: string, served: readonly string[], args: Record<string, unknown>, expected: string, defaultRelease?: string][] = [
  ['exact match', ['3.2', '3.0'], { adcp_version: '3.0' }, '3.0'],
  ['exact match of a pre-release', ['3.2-beta.5', '3.0'], { adcp_version: '3.2-beta.5' }, '3.2-beta.5'],
  ['release and its pre-release both served, release pinned: the release', ['3.1', '3.1-beta', '3.0'], { adcp_version: '3.1' }, '3.1'],
  ['release and its pre-release both served, pre-release pinned: the pre-release', ['3.1', '3.1-beta', '3.0'], { adcp_version: '3.1-beta' }, '3.1-beta'],
  ["a release pin never downshifts onto that release's pre-release", ['3.1-beta', '3.0'], { adcp_version: '3.1' }, '3.0'],
  ['a release pin never downshifts onto any pre-release', ['3.2-beta.5', '3.0'], { adcp_version: '3.3' }, '3.0'],
  ['no served release but a pre-release at or below a release pin', ['3.2-beta.5'], { adcp_version: '3.2' }, 'VERSION_UNSUPPORTED'],
  ["server's max below the pin: the highest served release below it", ['3.1', '3.0'], { adcp_version: '3.5' }, '3.1'],
  ['gap: the highest served release below the pin', ['3.2', '3.0'], { adcp_version: '3.1' }, '3.0'],
  ['a pre-release pin matches only exactly, never range-resolved', ['3.1', '3.0'], { adcp_version: '3.1-beta' }, 'VERSION_UNSUPPORTED'],
  ['a pre-release pin of another tag is not served', ['3.2-beta.5', '3.0'], { adcp_version: '3.2-beta.4' }, 'VERSION_UNSUPPORTED'],
  ['a pre-release pin above every release is not downshifted', ['3.2', '3.0'], { adcp_version: '3.3-rc.1' }, 'VERSION_UNSUPPORTED'],
  ['sub-minimum pin: every served release of the major above it', ['3.2', '3.1'], { adcp_version: '3.0' }, 'VERSION_UNSUPPORTED'],
  ['different major', ['3.2', '3.0'], { adcp_version: '4.0' }, 'VERSION_UNSUPPORTED'],
  ['different major, below', ['3.2', '3.0'], { adcp_version: '2.5' }, 'VERSION_UNSUPPORTED'],
  ["omitted: the server's default, its highest stable release, never a pre-release", ['3.2-beta.5', '3.0'], {}, '3.0'],
  ['omitted: the highest stable release among several', ['3.3-rc.1', '3.2', '3.1', '3.0'], {}, '3.2'],
  ['omitted, the profile naming a pre-release as its default: that pre-release', ['3.2-beta.5', '3.0'], {}, '3.2-beta.5', '3.2-beta.5'],
  ['omitted, the profile naming a stable release below its highest: that release', ['3.1', '3.0'], {}, '3.0', '3.0'],
  ['omitted, only pre-releases served and none named: nothing to default to', ['3.2-beta.5'], {}, 'VERSION_UNSUPPORTED'],
  ['omitted, only a pre-release served and named as the default: it', ['3.2-beta.5'], {}, '3.2-beta.5', '3.2-beta.5'],
  ['only adcp_major_version: the highest stable release of that major, never a pre-release', ['4.0', '3.2-beta.5', '3.0'], { adcp_major_version: 3 }, '3.0'],
  ["only adcp_major_version of the default's major: the default", ['4.0', '3.2-beta.5', '3.0'], { adcp_major_version: 3 }, '3.2-beta.5', '3.2-beta.5'],
  ["only adcp_major_version of another major than the default's: its highest stable release", ['4.0', '3.2-beta.5', '3.0'], { adcp_major_version: 4 }, '4.0', '3.2-beta.5'],
  ['only adcp_major_version of a major served only by pre-releases', ['4.0-beta.1', '3.0'], { adcp_major_version: 4 }, 'VERSION_UNSUPPORTED'],
  ['only adcp_major_version of a major not served', ['3.2', '3.0'], { adcp_major_version: 2 }, 'VERSION_UNSUPPORTED'],
  ['a release pin ignores the default: exact', ['3.2-beta.5', '3.0'], { adcp_version: '3.0' }, '3.0', '3.2-beta.5'],
  ['a release pin ignores the default: never downshifted onto the pre-release named as default', ['3.2-beta.5', '3.0'], { adcp_version: '3.3' }, '3.0', '3.2-beta.5'],
  ['both fields, agreeing: adcp_version decides', ['3.2', '3.0'], { adcp_version: '3.1', adcp_major_version: 3 }, '3.0'],
  ['both fields disagreeing at the major: malformed, VERSION_UNSUPPORTED', ['3.2', '3.0'], { adcp_version: '3.2', adcp_major_version: 4 }, 'VERSION_UNSUPPORTED'],
  ['a patch is never negotiated: "3.1.2" is no wire value', ['3.2', '3.0'], { adcp_version: '3.2.0' }, 'INVALID_REQUEST'],
  ['a full pre-release version is no wire value', ['3.2-beta.5', '3.0'], { adcp_version: '3.2.0-beta.5' }, 'INVALID_REQUEST'],
  ['"v3.1" is no wire value', ['3.2', '3.0'], { adcp_version: 'v3.1' }, 'INVALID_REQUEST'],
  ['"3" is no wire value', ['3.2', '3.0'], { adcp_version: '3' }, 'INVALID_REQUEST'],
];

for (const [rule, servedHere, args, expected, named] of RULES) {
  test(`versioning: ${rule}`, () => {
    assert.is(pick(servedHere, args, named), expected, `${JSON.stringify(args)} against [${servedHere.join(', ')}]${named === undefined ? '' : `, default ${named}`}`);
  });
}

test('no pin: the default release', () => {
  assert.is(key({}), '3.2');
  assert.is(key(undefined), '3.2');
  assert.is(key({ adcp_version: undefined }), '3.2');
});

test('nothing to default to is VERSION_UNSUPPORTED with supported_versions, so the buyer can pin one', () => {
  for (const args of [{}, { adcp_major_version: 3 }]) {
    const c = selectRelease(['3.2-beta.5'].map(r), args);
    assert.ok(!c.ok && c.code === 'VERSION_UNSUPPORTED');
    if (c.ok || c.code !== 'VERSION_UNSUPPORTED') return;
    assert.equal(c.details.supported_versions, ['3.2-beta.5']);
    assert.match(c.message, /pre-release.*matched only by an exact adcp_version/);
  }
});

test('VERSION_UNSUPPORTED carries error-details/version-unsupported.json: the pin, supported_versions and supported_majors', () => {
  const c = selectRelease(['4.0', '3.2-beta.5', '3.0'].map(r), { adcp_version: '3.1-beta', adcp_major_version: 3 });
  assert.ok(!c.ok && c.code === 'VERSION_UNSUPPORTED');
  if (c.ok || c.code !== 'VERSION_UNSUPPORTED') return;
  assert.equal(c.details, { adcp_version: '3.1-beta', adcp_major_version: 3, supported_versions: ['4.0', '3.2-beta.5', '3.0'], supported_majors: [4, 3] });
  assert.match(c.message, /supported versions: 4\.0, 3\.2-beta\.5, 3\.0/);
  const body = versionUnsupported(c.message, c.details);
  assert.equal(body.details, c.details);
  assert.is(body.recovery, 'correctable');
});

test('wire versions: a release\'s full version at release precision, and semver precedence', () => {
  assert.is(wireVersionOf('3.2.0-beta.5'), '3.2-beta.5');
  assert.is(wireVersionOf('3.0.6'), '3.0');
  assert.is(wireVersionOf('3.1.0-rc.1+sha.1'), '3.1-rc.1');
  assert.is(wireVersionOf('3.1'), '3.1');
  assert.is(wireVersionOf('v3.1'), undefined);
  const order = ['3.0', '3.1-alpha', '3.1-beta', '3.1-beta.2', '3.1-beta.11', '3.1-rc.1', '3.1', '3.2-beta.5', '3.2', '4.0'];
  const shuffled = [...order].reverse();
  assert.equal(shuffled.sort((a, b) => compareWireVersions(parseWireVersion(a)!, parseWireVersion(b)!)), order);
});

test('malformed pins are INVALID_REQUEST at their pointer', () => {
  assert.is(code({ adcp_version: 'three' }), 'INVALID_REQUEST');
  assert.is(code({ adcp_version: 3.2 }), 'INVALID_REQUEST');
  assert.is(code({ adcp_major_version: '3' }), 'INVALID_REQUEST');
  const c = selectRelease(served.map(r), { adcp_version: '3.2.0' });
  assert.ok(!c.ok && c.code === 'INVALID_REQUEST' && c.issues[0]!.pointer === '/adcp_version');
});

test('field is JSONPath-lite of issues[0].pointer; the issue list is mirrored in details', () => {
  assert.is(jsonPathLite('/packages/0/targeting'), 'packages[0].targeting');
  assert.is(jsonPathLite('/a~1b/c~0d'), '["a/b"]["c~d"]');
  assert.is(jsonPathLite(''), '');
  const body = invalidRequest('create_media_buy', [{ pointer: '/packages/0/pacing', keyword: 'enum', message: 'must be one of even, asap', allowedValues: ['even', 'asap'] }]);
  assert.is(body.code, 'INVALID_REQUEST');
  assert.is(body.recovery, 'correctable');
  assert.is(body.field, 'packages[0].pacing');
  assert.equal(body.details, { tool: 'create_media_buy', issues: body.issues });
});

test('context is echoed only when small enough not to amplify', () => {
  assert.equal(contextEcho({ context: { correlation_id: 'c1' } }), { present: true, value: { correlation_id: 'c1' } });
  assert.equal(contextEcho({}), { present: false });
  assert.equal(contextEcho('x'), { present: false });
  assert.equal(contextEcho({ context: { blob: 'x'.repeat(CONTEXT_ECHO_LIMIT) } }), { present: false });
});

test('unreadable fields never throw: a throwing getter or a hostile proxy is INVALID_REQUEST, and no echo', () => {
  const served = ['3.2', '3.0'].map(r);
  const boom = (field: string): Record<string, unknown> =>
    Object.defineProperty({}, field, { enumerable: true, get: () => { throw new Error('getter'); } }) as Record<string, unknown>;
  for (const field of ['adcp_version', 'adcp_major_version']) {
    const c = selectRelease(served, boom(field));
    assert.equal(c, { ok: false, code: 'INVALID_REQUEST', issues: [{ pointer: `/${field}`, keyword: 'type', message: 'cannot be read' }] });
  }
  const trap = new Proxy({}, { has: () => { throw new Error('trap'); }, getOwnPropertyDescriptor: () => { throw new Error('trap'); }, get: () => { throw new Error('trap'); } });
  assert.is(selectRelease(served, trap).ok, false);
  assert.equal(contextEcho(boom('context')), { present: false });
  assert.equal(contextEcho(trap), { present: false });
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.equal(contextEcho({ context: cyclic }), { present: false });
  assert.equal(contextEcho({ context: { n: 1n } }), { present: false });
});

test.run();
