import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import { isDeepStrictEqual } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AdvertisedSources, rootConstraintProperties, structural } from '../../generator/project/index.js';
import { loadRelease, type Release } from '../../generator/load/index.js';
import { sdkReleaseDir, sharedComplianceDir, sharedReleaseDir } from '../helpers/releases.js';
import { Sampler } from '../helpers/sampler.js';
import { loadStoryboardSamples } from '../helpers/storyboards.js';

/**
 * The structural annotation mode against the real releases: it reproduces AdCP 3.2's own production profile, and
 * it never changes what validates (structural and full give the same verdict on every storyboard payload, for
 * both releases).
 */
const release32Dir = sharedReleaseDir();
const complianceDir = sharedComplianceDir();
if (release32Dir === undefined || complianceDir === undefined) throw new Error('../shared/adcp is required for the real-release suite');
const r32 = loadRelease(release32Dir, '3.2.0-beta.5');
const r30 = loadRelease(sdkReleaseDir(), '@adcp/sdk');
const addFormats = addFormatsImport as unknown as (ajv: Ajv | Ajv2020) => void;

function keepFor(release: Release, path: string): Set<string> {
  return rootConstraintProperties(release, release.schemas.byPath.get(path)!);
}

test('our structural stripping of the full 3.2 projection reproduces the release production profile, every tool, both sides', () => {
  const production = r32.mcp!.production!;
  assert.is(production.size, 67);
  for (const [name, prod] of production) {
    const full = r32.mcp!.tools.get(name)!;
    const tool = r32.tools.get(name)!;
    const input = structural(full.inputSchema, { keep: keepFor(r32, tool.requestSchema) });
    const output = structural(full.outputSchema);
    // The projection script sets each file's own $id; everything else must match byte for byte.
    assert.ok(isDeepStrictEqual({ ...input, $id: prod.inputSchema.$id }, prod.inputSchema), `${name} input`);
    assert.ok(isDeepStrictEqual({ ...output, $id: prod.outputSchema.$id }, prod.outputSchema), `${name} output`);
  }
});

test('structural and full advertised schemas give the same verdict on every storyboard payload (3.2 and 3.0.6)', () => {
  const samples = loadStoryboardSamples(complianceDir);
  const sources = new AdvertisedSources([]);
  let compared = 0;
  const disagreements: string[] = [];
  for (const release of [r32, r30]) {
    // Each document is its own resource: a fresh Ajv per mode and dialect keeps $ids from colliding.
    const make = (): Ajv | Ajv2020 => {
      const ajv = release.mcp ? new Ajv2020({ strict: false, validateSchema: false, allErrors: false }) : new Ajv({ strict: false, validateSchema: false, allErrors: false });
      addFormats(ajv);
      return ajv;
    };
    const ajvs = { structural: make(), full: make() };
    const compiled = new Map<string, ValidateFunction>();
    const validator = (tool: string, mode: 'structural' | 'full'): ValidateFunction => {
      const key = `${tool}\0${mode}`;
      let v = compiled.get(key);
      if (v === undefined) {
        const { $id: _id, ...doc } = sources.document(release, release.tools.get(tool)!, 'input', mode).schema;
        v = ajvs[mode].compile(doc);
        compiled.set(key, v);
      }
      return v;
    };
    for (const s of samples) {
      if (!release.tools.has(s.task) || release.unavailable.has(s.task)) continue;
      const verdicts = (['structural', 'full'] as const).map((mode) => validator(s.task, mode)(s.request));
      if (verdicts[0] !== verdicts[1]) disagreements.push(`${release.key} ${s.id}`);
      compared++;
    }
  }
  console.log(`  structural vs full: ${compared} storyboard payload verdicts compared, ${disagreements.length} disagreements`);
  assert.ok(compared > 2000);
  assert.equal(disagreements, []);
});

test('structural and full output schemas give the same verdict on sampled bodies, valid and broken, every tool', () => {
  const sources = new AdvertisedSources([]);
  let compared = 0;
  const disagreements: string[] = [];
  for (const release of [r32, r30]) {
    const make = (): Ajv | Ajv2020 => {
      const ajv = release.mcp ? new Ajv2020({ strict: false, validateSchema: false }) : new Ajv({ strict: false, validateSchema: false });
      addFormats(ajv);
      return ajv;
    };
    const ajvs = { structural: make(), full: make() };
    for (const [name, tool] of release.tools) {
      if (release.unavailable.has(name)) continue;
      const docs = { structural: sources.document(release, tool, 'output', 'structural').schema, full: sources.document(release, tool, 'output', 'full').schema };
      const valid = new Sampler(docs.full).sample() as Record<string, unknown>;
      const first = Object.keys(valid)[0];
      const bodies = [valid, {}, [], ...(first !== undefined ? [{ ...valid, [first]: 12345 }, { ...valid, [first]: 'x' }] : [])];
      const compiled = Object.fromEntries(
        (['structural', 'full'] as const).map((mode) => {
          const { $id: _id, ...doc } = docs[mode];
          return [mode, ajvs[mode].compile(doc)];
        }),
      ) as Record<'structural' | 'full', ValidateFunction>;
      const verdict = (mode: 'structural' | 'full', body: unknown): boolean => compiled[mode](body) as boolean;
      for (const body of bodies) {
        if (verdict('structural', body) !== verdict('full', body)) disagreements.push(`${release.key} ${name} ${JSON.stringify(body).slice(0, 80)}`);
        compared++;
      }
    }
  }
  console.log(`  structural vs full outputs: ${compared} sampled body verdicts compared, ${disagreements.length} disagreements`);
  assert.equal(disagreements, []);
});

test('every advertised 3.2 and 3.0.6 schema is object-rooted, in both modes; structural is smaller', () => {
  const sources = new AdvertisedSources([]);
  for (const release of [r32, r30]) {
    let full = 0;
    let strippedBytes = 0;
    for (const [name, tool] of release.tools) {
      if (release.unavailable.has(name)) continue;
      for (const direction of ['input', 'output'] as const) {
        const f = sources.document(release, tool, direction, 'full').schema;
        const s = sources.document(release, tool, direction, 'structural').schema;
        assert.is(f.type, 'object', `${release.key} ${name} ${direction} full`);
        assert.is(s.type, 'object', `${release.key} ${name} ${direction} structural`);
        full += JSON.stringify(f).length;
        strippedBytes += JSON.stringify(s).length;
      }
    }
    assert.ok(strippedBytes < full * 0.6, `${release.key}: structural ${strippedBytes} vs full ${full}`);
  }
});

test.run();
