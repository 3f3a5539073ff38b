import { rmSync } from 'node:fs';
import type { Issue } from '../../runtime/artifacts/contract.js';
import { wrapValidator } from '../../runtime/issues/issues.js';
import { compileValidators } from '../../generator/compile/index.js';
import { loadRelease } from '../../generator/load/index.js';
import { writeEmitted } from './differential.js';
import { tinyRelease } from './fixture-release.js';
import { tempDir } from './temp.js';
import { requestValidator } from './tool-validators.js';

/**
 * One tool of a tiny release (fixture-release.ts, its files overridden by `files`) compiled and wrapped as the
 * runtime wraps it: `issues` of a payload (none when it is valid), `named` as `<keyword> <pointer>`, `said` with the
 * message too, and `dispose` for the test's `after`.
 */
export function tinyTool(files: Record<string, unknown>, tool: string) {
  const dir = tinyRelease(files);
  const release = loadRelease(dir);
  const out = tempDir('adcp-tiny-tool-');
  writeEmitted(out, compileValidators(release, [tool]));
  const check = wrapValidator(requestValidator(out, release.key, tool), { idBase: '/schemas/9.1.0/' });
  const issues = (data: unknown): Issue[] => {
    const r = check(data);
    return r.ok ? [] : r.issues;
  };
  return {
    issues,
    named: (data: unknown) => issues(data).map((i) => `${i.keyword} ${i.pointer}`),
    said: (data: unknown) => issues(data).map((i) => `${i.keyword} ${i.pointer}: ${i.message}`),
    dispose: () => {
      rmSync(out, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
