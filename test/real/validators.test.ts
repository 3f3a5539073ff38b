
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileSchemaValidators, compileValidators, createRuntimeAjv } from '../../generator/compile/index.js';
import { loadRelease } from '../../generator/load/index.js';
import { examplesDifferential, writeEmitted } from '../helpers/differential.js';
import type { RequestValidatorModule } from '../../runtime/artifacts/contract.js';
import { wrapValidator } from '../../runtime/issues/issues.js';
import { loadArtifact } from '../../runtime/artifacts/loader.js';
import { sdkReleaseDir, sharedComplianceDir, sharedReleaseDir, sharedReleaseKey } from '../helpers/releases.js';
import { loadStoryboardSamples } from '../helpers/storyboards.js';
import { tempDir } from '../helpers/temp.js';
import { requestValidator } from '../helpers/tool-validators.js';

/**
 * Differential on AdCP 3.2.0-beta.5: the generated validators must give the verdict run-time Ajv gives on the same
 * canonical schema, for every storyboard sample_request and every `examples` entry. Zero disagreements.
 */

const releaseDir = sharedReleaseDir();
const complianceDir = sharedComplianceDir();

if (releaseDir !== undefined && complianceDir !== undefined) {
  const release = loadRelease(releaseDir);
  const runtimeAjv = createRuntimeAjv(release);

  test('every storyboard sample_request: generated verdict equals run-time Ajv (3.2.0-beta.5)', () => {
    const files = compileValidators(release);
    const out = tempDir('adcp-validators-real-');
    writeEmitted(out, files);
    const samples = loadStoryboardSamples(complianceDir);
    let valid = 0;
    let unknownTool = 0;
    const tasks = new Set<string>();
    const disagreements: string[] = [];
    for (const s of samples) {
      const tool = release.tools.get(s.task);
      if (tool === undefined || release.unavailable.has(s.task)) {
        unknownTool++;
        continue;
      }
      tasks.add(s.task);
      const expected = runtimeAjv.getSchema(release.schemas.byPath.get(tool.requestSchema)!.id)!(s.request) === true;
      const raw = requestValidator(out, sharedReleaseKey(), s.task);
      const got = wrapValidator(raw)(s.request);
      if (got.ok !== expected) disagreements.push(`${s.id} (${s.task}): generated ${got.ok}, run-time Ajv ${expected}`);
      if (expected) valid++;
      if (!got.ok) assert.ok(got.issues.length > 0 && typeof got.issues[0]!.pointer === 'string', s.id);
    }
    const checked = samples.length - unknownTool;
    console.log(
      `  3.2 storyboard differential: ${checked} sample_requests over ${tasks.size} tools, ${valid} valid, ${checked - valid} invalid, ` +
        `${disagreements.length} disagreements (${unknownTool} steps name no tool of the manifest)`,
    );
    assert.equal(disagreements, []);
    assert.ok(checked > 1500);
  });

  test('the same storyboard payloads through the 3.0.6 validators: generated verdict equals run-time Ajv (3.0.6)', () => {
    const sdk = loadRelease(sdkReleaseDir());
    const sdkAjv = createRuntimeAjv(sdk);
    const out = tempDir('adcp-validators-real-30-');
    writeEmitted(out, compileValidators(sdk));
    let checked = 0;
    let valid = 0;
    const disagreements: string[] = [];
    for (const s of loadStoryboardSamples(complianceDir)) {
      const tool = sdk.tools.get(s.task);
      if (tool === undefined || sdk.unavailable.has(s.task)) continue;
      checked++;
      const expected = sdkAjv.getSchema(sdk.schemas.byPath.get(tool.requestSchema)!.id)!(s.request) === true;
      const got = wrapValidator(requestValidator(out, '3.0', s.task))(s.request).ok;
      if (got !== expected) disagreements.push(`${s.id} (${s.task}): generated ${got}, run-time Ajv ${expected}`);
      if (expected) valid++;
    }
    console.log(`  3.0.6 storyboard differential: ${checked} sample_requests (3.2 payloads), ${valid} valid under 3.0.6, ${checked - valid} invalid, ${disagreements.length} disagreements`);
    assert.equal(disagreements, []);
    assert.ok(checked > 1000);
  });

  test('every examples entry (and breakages of it): generated verdict equals run-time Ajv (3.2.0-beta.5)', () => {
    const r = examplesDifferential(release, tempDir('adcp-validators-real-examples-'), runtimeAjv, compileSchemaValidators, (dir, module, data) =>
      wrapValidator((loadArtifact(dir, module) as RequestValidatorModule).validate)(data).ok,
    );
    console.log(`  3.2 examples differential: ${r.cases} payloads at ${r.locations} schema locations, ${r.valid} valid, ${r.cases - r.valid} invalid, ${r.disagreements.length} disagreements`);
    assert.equal(r.disagreements, []);
  });
}

test.run();
