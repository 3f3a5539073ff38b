/** Every fenced block of a README whose info string names a file (```ts src/server.ts): path → text. */
export function readmeFiles(markdown: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const m of markdown.matchAll(/^```[a-z]+ ([\w./-]+)\n([\s\S]*?)^```$/gm)) files[m[1]!] = m[2]!;
  return files;
}
