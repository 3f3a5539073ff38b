import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolAnnotations, ToolsListEntry } from '../api/agent-types.js';
import type { Served } from './served.js';

/**
 * The MCP tools/list of a profile, precomputed at generation: `profiles/<name>.tools-list.json` names each entry's
 * schemas by their generated files (content-addressed, shared by profiles), read on the first list and kept.
 */

/** A tools/list entry in the profile file: schemas by generated path. */
interface ListEntryFile {
  name: string;
  description?: string;
  annotations: ToolAnnotations;
  inputSchema: string;
  outputSchema?: string;
}

interface ListFile {
  releases: { key: string; toolsList: ListEntryFile[] }[];
  endpoint: ListEntryFile[];
}

export interface ToolsLists {
  /** One release's tools/list (default: the default release, else the highest). */
  toolsList(key?: string): ToolsListEntry[];
  /** The tools/list of one endpoint serving every release: each tool once, from the highest release serving it. */
  endpointToolsList(): ToolsListEntry[];
  /** The endpoint's tools/list as the JSON text of its `tools` array, made once: what an HTTP entry sends as it is. */
  endpointToolsJson(): string;
}

export function toolsLists(served: Served): ToolsLists {
  const { cached, outDir, name } = served;
  // Shared by every list returned: frozen, so one caller cannot change what the next one advertises.
  const schema = (path: string): Record<string, unknown> =>
    cached(`schema\0${path}`, () => deepFreeze((JSON.parse(readFileSync(join(outDir, path), 'utf8')) as { schema: Record<string, unknown> }).schema));
  const listFrom = (entries: readonly ListEntryFile[]): ToolsListEntry[] =>
    entries.map((e) => ({
      name: e.name,
      ...(e.description !== undefined ? { description: e.description } : {}),
      inputSchema: schema(e.inputSchema),
      ...(e.outputSchema !== undefined ? { outputSchema: schema(e.outputSchema) } : {}),
      annotations: { ...e.annotations },
    }));
  const copy = (list: ToolsListEntry[]): ToolsListEntry[] => list.map((e) => ({ ...e, annotations: { ...e.annotations } }));
  const listFile = (): ListFile => cached('listFile', () => (JSON.parse(readFileSync(join(outDir, 'profiles', `${name}.tools-list.json`), 'utf8')) as { toolsList: ListFile }).toolsList);
  const endpoint = (): ToolsListEntry[] => cached('endpoint', () => listFrom(listFile().endpoint));
  return {
    toolsList(key) {
      const r = served.release(key);
      return copy(
        cached(`list\0${r.key}`, () => {
          const entries = listFile().releases.find((l) => l.key === r.key)?.toolsList;
          // Both files are written by one regeneration: a mismatch means a set edited by hand.
          if (entries === undefined) throw new Error(`adcp-codegen: profiles/${name}.tools-list.json has no tools/list for release ${r.key}; run adcp-codegen generate`);
          return listFrom(entries);
        }),
      );
    },
    endpointToolsList: () => copy(endpoint()),
    endpointToolsJson: () => cached('endpointJson', () => JSON.stringify(endpoint())),
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
