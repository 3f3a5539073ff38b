/**
 * `npm run bench`: every figure as a ratio against a baseline measured in this same run (these machines are noisy;
 * absolute times mean little, ratios travel). Each bench/<area>.ts exports `run(): Promise<string[]>`.
 */
const AREAS = ['validators', 'issues', 'strip', 'normalize', 'convert', 'project', 'advertise', 'generate', 'call', 'reject', 'cold-start', 'http', 'outbox', 'signing'] as const;

const only = process.argv.slice(2);
for (const area of AREAS) {
  if (only.length > 0 && !only.includes(area)) continue;
  let mod: { run: () => Promise<string[]> };
  try {
    mod = (await import(`./${area}.js`)) as { run: () => Promise<string[]> };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') continue;
    throw e;
  }
  console.log(`\n## ${area}`);
  const started = Date.now();
  for (const line of await mod.run()) console.log(line);
  console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
