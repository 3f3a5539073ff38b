import type { ValidateFunction } from 'ajv';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { compileStrip, compileStripModules, interpretStrip } from '../../generator/compile/index.js';
import { loadRelease, releaseAjv, createRuntimeAjv } from '../../generator/load/index.js';
import { ARTIFACT_PATHS, type StripFn, type StripModule } from '../../runtime/artifacts/contract.js';
import { tempDir } from '../helpers/fixture-release.js';
import { sharedComplianceDir, sharedReleaseDir } from '../helpers/releases.js';
import { loadStoryboardSamples, type StoryboardSample } from '../helpers/storyboards.js';
import { writeEmitted } from '../helpers/differential.js';


/**
 * Issue 3's forward-compatibility proof on real payloads: every storyboard sample_request of AdCP 3.2.0-beta.5 that
 * validates against its canonical request schema gets unknown fields injected at closed objects — at the top level,
 * deep down, inside union branches — and stripping must give back exactly the original, which must validate.
 * Ajv's own `removeAdditional: "all"` runs on the same injected payloads as the baseline.
 */
const releaseDir = sharedReleaseDir();
const complianceDir = sharedComplianceDir();

/** Values a newer release might send, of every JSON kind, with awkward content. */
const FUTURE_VALUES: unknown[] = ['x-new', { nested: { deep: [1, 'two', null] } }, [1, 2, 3], 42.5, null, true, '', 'unicode ✓ \u2028 🚀'];

/** Every plain object in a value, by pointer. */
function objectPlaces(value: unknown, pointer = '', out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v, i) => objectPlaces(v, `${pointer}/${i}`, out));
  else if (value !== null && typeof value === 'object') {
    out.push(pointer);
    for (const [k, v] of Object.entries(value)) objectPlaces(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
  }
  return out;
}

function at(doc: unknown, pointer: string): Record<string, unknown> {
  let node = doc;
  for (const t of pointer === '' ? [] : pointer.slice(1).split('/')) node = (node as Record<string, unknown>)[t.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node as Record<string, unknown>;
}

function inject(value: unknown, places: readonly string[], seed: number): { value: unknown; pointers: string[] } {
  const copy = structuredClone(value);
  const pointers: string[] = [];
  places.forEach((p, i) => {
    // camelCase: a name no AdCP patternProperties pattern (`^[a-z0-9_]+$`) admits.
    const name = `futureField${seed}x${i}`;
    at(copy, p)[name] = FUTURE_VALUES[(seed + i) % FUTURE_VALUES.length];
    pointers.push(`${p}/${name}`);
  });
  return { value: copy, pointers };
}

interface Case {
  readonly sample: StoryboardSample;
  readonly closed: string[];
}

if (releaseDir === undefined || complianceDir === undefined) {
  test('3.2.0-beta.5 forward compatibility (skipped: ../shared is absent)', () => {});
} else {
  const release = loadRelease(releaseDir);
  const samples = loadStoryboardSamples(complianceDir);
  // The reference Ajv, configured as the compiled validators are, and the same with removeAdditional as the baseline.
  const ajv = releaseAjv(release);
  const removing = createRuntimeAjv(release, { removeAdditional: 'all' });
  const explaining = createRuntimeAjv(release, { allErrors: true });
  const validators = new Map<string, ValidateFunction>();
  const stripFns = new Map<string, StripFn>();
  const validatorFor = (tool: string): ValidateFunction => {
    let v = validators.get(tool);
    if (v === undefined) validators.set(tool, (v = ajv.getSchema(release.schemas.byPath.get(release.tools.get(tool)!.requestSchema)!.id)!));
    return v;
  };
  const stripFor = (tool: string): StripFn => {
    let s = stripFns.get(tool);
    if (s === undefined) {
      const file = release.schemas.byPath.get(release.tools.get(tool)!.requestSchema)!;
      stripFns.set(tool, (s = compileStrip(file.schema, { resolve: release.schemas.resolve })));
    }
    return s;
  };

  // Valid samples, and for each the objects where an unknown field makes validation fail (closed objects).
  const cases: Case[] = [];
  let valid = 0;
  for (const sample of samples) {
    if (!release.tools.has(sample.task) || release.unavailable.has(sample.task)) continue;
    const validate = validatorFor(sample.task);
    if (!validate(sample.request)) continue;
    valid++;
    // Closed: the injected name alone makes the payload invalid, with an additionalProperties error naming it there.
    const explain = explaining.getSchema(release.schemas.byPath.get(release.tools.get(sample.task)!.requestSchema)!.id)!;
    const closed = objectPlaces(sample.request).filter((p) => {
      const injected = inject(sample.request, [p], 0);
      if (validate(injected.value)) return false;
      explain(injected.value);
      const name = injected.pointers[0]!.slice(p.length + 1);
      return (explain.errors ?? []).some((e) => e.instancePath === p && (e.keyword === 'additionalProperties' || e.keyword === 'unevaluatedProperties') && Object.values(e.params).includes(name));
    });
    if (closed.length > 0) cases.push({ sample, closed });
  }

  test(`valid 3.2 storyboard samples are found (${valid} of ${samples.length})`, () => {
    assert.ok(valid > 1000, `${valid} valid samples`);
    assert.ok(cases.length > 1000, `${cases.length} samples with closed objects`);
  });

  test('unknown fields at every closed object, top level, nested and inside unions, strip back to the original', () => {
    let recovered = 0;
    let ajvRecovered = 0;
    let ajvClean = 0;
    let places = 0;
    const failures: string[] = [];
    cases.forEach(({ sample, closed }, n) => {
      const validate = validatorFor(sample.task);
      // All closed objects at once, then the first, the last (deepest in document order) and one in the middle alone.
      const variants = [closed, [closed[0]!], [closed[closed.length - 1]!], [closed[Math.floor(closed.length / 2)]!]];
      let ok = true;
      variants.forEach((where, j) => {
        const injected = inject(sample.request, where, n + j);
        places += where.length;
        const before = JSON.stringify(injected.value);
        const result = stripFor(sample.task)(injected.value);
        assert.is(JSON.stringify(injected.value), before, 'the input is never mutated');
        const same = JSON.stringify(result.value) === JSON.stringify(sample.request) && validate(result.value);
        const exact = JSON.stringify([...result.removed].sort()) === JSON.stringify([...injected.pointers].sort());
        if (!same || !exact) {
          ok = false;
          if (failures.length < 10) failures.push(`${sample.id} (${sample.task}): removed ${JSON.stringify(result.removed)}, undecided ${JSON.stringify(result.undecided)}, injected ${JSON.stringify(injected.pointers)}`);
        }
      });
      if (ok) recovered++;
      // Baseline: Ajv's removeAdditional "all" on the same payload (it mutates its input).
      const mutated = inject(sample.request, closed, n).value;
      removing.validate(release.schemas.byPath.get(release.tools.get(sample.task)!.requestSchema)!.id, mutated);
      if (JSON.stringify(mutated) === JSON.stringify(sample.request) && validate(mutated)) ajvRecovered++;
      const untouched = structuredClone(sample.request);
      removing.validate(release.schemas.byPath.get(release.tools.get(sample.task)!.requestSchema)!.id, untouched);
      if (JSON.stringify(untouched) === JSON.stringify(sample.request)) ajvClean++;
    });
    const pct = (x: number): string => `${((100 * x) / cases.length).toFixed(1)}%`;
    console.log(
      `  deep-strip recovered ${recovered}/${cases.length} payloads (${pct(recovered)}; ${places} injected fields); ` +
        `Ajv removeAdditional "all": ${ajvRecovered}/${cases.length} (${pct(ajvRecovered)}), and it leaves only ${ajvClean}/${cases.length} of the valid payloads without any injection intact`,
    );
    assert.equal(failures, [], failures.join('\n'));
    assert.is(recovered, cases.length);
  });

  test('valid payloads strip to themselves, the very same object, every union decided', () => {
    const undecided: string[] = [];
    for (const { sample } of cases) {
      const result = stripFor(sample.task)(sample.request);
      assert.ok(result.value === sample.request, `${sample.id}: unchanged payload returned as is`);
      assert.equal(result.removed, [], sample.id);
      if (result.undecided.length > 0) undecided.push(`${sample.id}: ${result.undecided.join(', ')}`);
    }
    assert.equal(undecided, [], undecided.slice(0, 5).join('\n'));
  });

  test('the emitted modules (shared definition modules, tool modules) strip exactly like compileStrip', () => {
    const out = tempDir('adcp-strip-real-');
    const files = compileStripModules(release);
    writeEmitted(out, files);
    const bytes = files.reduce((n, f) => n + f.contents.length, 0);
    console.log(`  ${files.length} strip modules for ${release.tools.size - release.unavailable.size} tools, ${(bytes / 1024).toFixed(0)} KiB before formatting`);
    const load = createRequire(import.meta.url);
    for (const [n, { sample, closed }] of cases.entries()) {
      const strip = (load(join(out, ARTIFACT_PATHS.strip(release.key, sample.task))) as StripModule).strip;
      const injected = inject(sample.request, closed, n).value;
      assert.equal(strip(injected), stripFor(sample.task)(injected), sample.id);
    }
  });

  test('the interpreted walk agrees with the compiled strip on real payloads', () => {
    const interpreted = new Map<string, StripFn>();
    for (const [n, { sample, closed }] of cases.entries()) {
      if (n % 5 !== 0) continue;
      let walk = interpreted.get(sample.task);
      if (walk === undefined) {
        const file = release.schemas.byPath.get(release.tools.get(sample.task)!.requestSchema)!;
        interpreted.set(sample.task, (walk = interpretStrip(file.schema, { resolve: release.schemas.resolve })));
      }
      const injected = inject(sample.request, closed, n).value;
      assert.equal(walk(injected), stripFor(sample.task)(injected), sample.id);
    }
  });
}

test.run();
