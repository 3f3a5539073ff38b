import { bundleSchema } from './bundle.js';
import { hashJson } from './hash.js';
import type { InputRef, JsonSchemaObject, Profile, Release, ToolDef } from './model.js';
import type { Selection } from './select.js';
import { annotateAdvertised, resolveOverlays, type Overlay, type ResolvedOverlay } from './overlay.js';
import { lintAppliesWhen, type LintFinding } from './lint-applies-when.js';
import { projectSchemaForCapabilities } from './project.js';

/** MCP tool annotations, derived from the manifest. destructiveHint is always explicit: MCP's default is true. */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** An advertised schema document, content-addressed so profiles with the same projection share one file. */
export interface AdvertisedSchema {
  readonly hash: string;
  readonly path: string;
  readonly schema: JsonSchemaObject;
  readonly inputs: readonly InputRef[];
}

export interface ToolsListEntry {
  readonly name: string;
  readonly description?: string;
  readonly annotations: ToolAnnotations;
  readonly inputSchema: AdvertisedSchema;
  readonly outputSchema: AdvertisedSchema;
}

export interface AdvertisedRelease {
  readonly release: Release;
  readonly entries: readonly ToolsListEntry[];
}

/**
 * Per release, the tools/list source documents with overlays applied: the MCP projection where the release ships one
 * (a tools/list hint, never used for validation), else the canonical schema bundled into the same shape.
 */
export class AdvertisedSources {
  private readonly annotated = new Map<string, JsonSchemaObject>();
  private readonly overlaysByRelease = new Map<Release, ResolvedOverlay[]>();
  readonly findings: LintFinding[] = [];

  constructor(private readonly overlays: readonly Overlay[]) {}

  document(release: Release, tool: ToolDef, direction: 'input' | 'output'): { schema: JsonSchemaObject; source: string } {
    const key = `${release.key}\0${tool.name}\0${direction}`;
    const mcp = release.mcp?.tools.get(tool.name);
    const rootPath = direction === 'input' ? tool.requestSchema : tool.responseSchema;
    const source = mcp ? (direction === 'input' ? mcp.inputSchemaPath : mcp.outputSchemaPath) : rootPath;
    let doc = this.annotated.get(key);
    if (doc === undefined) {
      const base = mcp ? (direction === 'input' ? mcp.inputSchema : mcp.outputSchema) : bundleSchema(release, rootPath);
      doc = annotateAdvertised(base, rootPath, this.resolved(release));
      this.findings.push(...lintAppliesWhen(doc, `${release.label}:${source}`));
      this.annotated.set(key, doc);
    }
    return { schema: doc, source };
  }

  private resolved(release: Release): ResolvedOverlay[] {
    let r = this.overlaysByRelease.get(release);
    if (r === undefined) {
      r = resolveOverlays(release, [...this.overlays]);
      this.overlaysByRelease.set(release, r);
    }
    return r;
  }
}

export function annotationsFor(tool: ToolDef): ToolAnnotations {
  return {
    readOnlyHint: !tool.mutating,
    destructiveHint: tool.mutating,
    idempotentHint: !tool.mutating || tool.idempotencyRequirement === 'required',
    openWorldHint: true,
  };
}

/**
 * Stage 3: the advertised tools/list entries of one profile, per release: each selected tool's input and output
 * schema projected to the profile's capabilities. Call-time validation never reads these.
 */
export function advertise(
  profile: Profile,
  selections: readonly Selection[],
  sources: AdvertisedSources,
  acceptedRecords: readonly string[],
): AdvertisedRelease[] {
  return selections.map(({ release, tools }) => ({
    release,
    entries: tools.map(({ name }) => {
      const tool = release.tools.get(name)!;
      const side = (direction: 'input' | 'output'): AdvertisedSchema => {
        const { schema, source } = sources.document(release, tool, direction);
        const rootPath = direction === 'input' ? tool.requestSchema : tool.responseSchema;
        const projected = projectSchemaForCapabilities(schema, profile.capabilities, { acceptedRecords, tool: tool.name, rootPath }) as JsonSchemaObject;
        const hash = hashJson(projected);
        return {
          hash,
          path: `releases/${release.key}/advertised/${hash.slice(0, 16)}.json`,
          schema: projected,
          // Profiles whose projections agree share this file, so it names the source, not a profile.
          inputs: [{ name: `${release.label}:${source}`, hash: hashJson(schema) }],
        };
      };
      return {
        name,
        // 3.0 manifests carry no summary; the canonical request schema's own description is the next best text.
        description: tool.summary ?? schemaDescription(release, tool.requestSchema),
        annotations: annotationsFor(tool),
        inputSchema: side('input'),
        outputSchema: side('output'),
      };
    }),
  }));
}

function schemaDescription(release: Release, path: string): string | undefined {
  const d = release.schemas.byPath.get(path)?.schema.description;
  return typeof d === 'string' && d.trim() !== '' ? d.trim() : undefined;
}
