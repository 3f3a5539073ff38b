import { isDeepStrictEqual } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRuntimeAjv } from '../../generator/compile/index.js';
import { loadRelease } from '../../generator/load/index.js';
import { foldControlFlow } from '../../generator/load/ajv-flow.js';
import { mutants, type AjvLike } from '../helpers/mutations.js';
import { sdkReleaseDir, sharedComplianceDir, sharedReleaseDir } from '../helpers/releases.js';
import { loadStoryboardSamples } from '../helpers/storyboards.js';

/**
 * generator/load/ajv-flow.ts on the real releases: run-time Ajv over the modular schemas, once as Ajv writes its code
 * and once folded, must give the same verdict and the same errors, every object of them, for every storyboard
 * request (against its tool's request and response schemas) and the injected defects of the recall corpus.
 */
const release32Dir = sharedReleaseDir();
const complianceDir = sharedComplianceDir();
if (release32Dir === undefined || complianceDir === undefined) throw new Error('../shared/adcp is required for the real-release suite');
const samples = loadStoryboardSamples(complianceDir);

for (const release of [loadRelease(release32Dir, '3.2.0-beta.5'), loadRelease(sdkReleaseDir(), '@adcp/sdk')]) {
  test(`${release.version}: folded control flow, the same verdicts and errors as Ajv's own code`, () => {
    const plain = createRuntimeAjv(release);
    const folded = createRuntimeAjv(release);
    foldControlFlow(folded);
    const all = createRuntimeAjv(release, { allErrors: true });
    let payloads = 0;
    let rejected = 0;
    for (const s of samples) {
      const tool = release.tools.get(s.task);
      if (tool === undefined || release.unavailable.has(s.task)) continue;
      for (const path of [tool.requestSchema, tool.responseSchema]) {
        const id = release.schemas.byPath.get(path)!.id;
        const [a, b, every] = [plain.getSchema(id)!, folded.getSchema(id)!, all.getSchema(id)!];
        const check = (d: unknown): readonly AjvLike[] | null => (every(d) === true ? null : ((every.errors ?? []) as AjvLike[]));
        const data = path === tool.requestSchema ? [s.request, ...mutants(s.id, s.request, check).map((m) => m.data)] : [s.request];
        for (const d of data) {
          payloads++;
          const verdict = a(d);
          if (!verdict) rejected++;
          assert.is(b(d), verdict, `${s.id} ${path}`);
          assert.ok(isDeepStrictEqual(b.errors, a.errors), `${s.id} ${path}: ${JSON.stringify(b.errors)} against ${JSON.stringify(a.errors)}`);
        }
      }
    }
    console.log(`  ${release.version}: ${payloads} payloads, ${rejected} rejected, every error the same`);
    assert.ok(payloads > 4000 && rejected > 2000, `${payloads} ${rejected}`);
  });
}

test.run();
