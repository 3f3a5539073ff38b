import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './fixture-release.js';
import { repoRoot } from './releases.js';

/**
 * Type-checks one agent source file against a generated entry under TypeScript strict, module NodeNext, as an agent
 * repository compiles it (declaration files checked too). `GENERATED` in the source stands for the entry's path.
 */
export function typecheck(source: string, entry: string): { ok: boolean; output: string } {
  const dir = tempDir('adcp-codegen-types-');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true, skipLibCheck: false, types: [] }, files: ['agent.ts'] }),
  );
  writeFileSync(join(dir, 'agent.ts'), source.replace(/GENERATED/g, JSON.stringify(entry)));
  const r = spawnSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}
