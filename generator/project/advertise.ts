import { bundleSchema } from './bundle.js';
import { hashJson } from '../shared/index.js';
import type { InputRef, JsonSchemaObject, Overlay, Profile, Release, ToolDef } from '../load/index.js';
import type { Selection } from '../select/index.js';
import { annotateAdvertised, resolveOverlays, type ResolvedOverlay } from './overlay.js';
import { lintAppliesWhen, type LintFinding } from './lint-applies-when.js';
import { projectSchemaForCapabilities } from './project.js';
import { objectRooted } from './object-root.js';
import { ERROR_BODY, outputUnion } from './output-union.js';
import { rootConstraintProperties, structural } from './structural.js';

/** `structural`: what AdCP 3.2's production profile advertises (presentation annotations removed). `full`: as published. */
export type AnnotationMode = 'structural' | 'full';

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
  /** Only with the profile's `advertise.outputSchema`: MCP clients validate every structured result against it. */
  readonly outputSchema?: AdvertisedSchema;
}

export interface AdvertisedRelease {
  readonly release: Release;
  readonly entries: readonly ToolsListEntry[];
}

/** A profile's whole advertisement: one tools/list per served release and the one its single MCP endpoint serves. */
export interface Advertisement {
  readonly releases: readonly AdvertisedRelease[];
  /** Each tool once, from the highest release serving it; its outputSchema (if any) admits every served release. */
  readonly endpoint: readonly ToolsListEntry[];
}

/** One document an outputSchema must admit: a release's success body, an async status body, or the error body. */
interface OutputMember {
  readonly label: string;
  readonly schema: JsonSchemaObject;
  readonly input: InputRef;
}

/**
 * Per release and annotation mode, the tools/list source documents with overlays applied. Structural: the
 * release's production profile file where it has the tool, else the same stripping applied to what full would
 * advertise. Full: the MCP projection where the release ships one (a tools/list hint, never used for validation),
 * else the canonical schema bundled into the same shape. Every document's root is proven an object (MCP clients
 * reject a tools/list with any other root).
 */
export class AdvertisedSources {
  private readonly annotated = new Map<string, { schema: JsonSchemaObject; source: string }>();
  private readonly overlaysByRelease = new Map<Release, ResolvedOverlay[]>();
  readonly findings: LintFinding[] = [];

  constructor(private readonly overlays: readonly Overlay[]) {}

  document(release: Release, tool: ToolDef, direction: 'input' | 'output', mode: AnnotationMode): { schema: JsonSchemaObject; source: string } {
    const key = `${release.key}\0${tool.name}\0${direction}\0${mode}`;
    let doc = this.annotated.get(key);
    if (doc === undefined) {
      const rootPath = direction === 'input' ? tool.requestSchema : tool.responseSchema;
      const production = mode === 'structural' ? release.mcp?.production?.get(tool.name) : undefined;
      const mcp = production ?? release.mcp?.tools.get(tool.name);
      const source = mcp ? (direction === 'input' ? mcp.inputSchemaPath : mcp.outputSchemaPath) : rootPath;
      let base = mcp ? (direction === 'input' ? mcp.inputSchema : mcp.outputSchema) : bundleSchema(release, rootPath);
      if (mode === 'structural' && production === undefined) base = structural(base, direction === 'input' ? { keep: this.constraintNames(release, rootPath) } : undefined);
      const file = `${release.label}:${source}`;
      const schema = annotateAdvertised(objectRooted(base, file), rootPath, this.resolved(release));
      this.findings.push(...lintAppliesWhen(schema, file));
      doc = { schema, source };
      this.annotated.set(key, doc);
    }
    return doc;
  }

  /** An async status body (`submitted`, `working`, `input-required`), bundled from the canonical schema. */
  asyncDocument(release: Release, path: string, mode: AnnotationMode): { schema: JsonSchemaObject; source: string } {
    const key = `${release.key}\0async:${path}\0${mode}`;
    let doc = this.annotated.get(key);
    if (doc === undefined) {
      const bundled = bundleSchema(release, path);
      const schema = objectRooted(mode === 'structural' ? structural(bundled) : bundled, `${release.label}:${path}`);
      doc = { schema, source: path };
      this.annotated.set(key, doc);
    }
    return doc;
  }

  private constraintNames(release: Release, rootPath: string): Set<string> {
    const root = release.schemas.byPath.get(rootPath);
    if (root === undefined) return new Set();
    return rootConstraintProperties(release, root);
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
 * Stage 3: the advertised tools/list entries of one profile, per release and for its one MCP endpoint: each selected
 * tool's input schema projected to the profile's capabilities, and with `advertise.outputSchema` an output schema
 * admitting every body the tool can return (never projected: AdCP outputs stay semantics-preserving). Call-time
 * validation never reads these.
 */
export function advertise(
  profile: Profile,
  selections: readonly Selection[],
  sources: AdvertisedSources,
  acceptedRecords: readonly string[],
): Advertisement {
  const { annotations: mode, outputSchema } = profile.advertise;
  const outputs = new Map<string, OutputMember[]>(); // tool → members over every served release, highest first
  const releases = selections.map(({ release, tools }) => ({
    release,
    entries: tools.map(({ name }): ToolsListEntry => {
      const tool = release.tools.get(name)!;
      const { schema, source } = sources.document(release, tool, 'input', mode);
      const projected = projectSchemaForCapabilities(schema, profile.capabilities, { acceptedRecords, tool: tool.name, rootPath: tool.requestSchema }) as JsonSchemaObject;
      const members = outputSchema ? releaseOutputs(release, tool, sources, mode) : [];
      if (outputSchema) outputs.set(name, [...(outputs.get(name) ?? []), ...members]);
      return {
        name,
        // 3.0 manifests carry no summary; the canonical request schema's own description is the next best text.
        description: tool.summary ?? schemaDescription(release, tool.requestSchema),
        annotations: annotationsFor(tool),
        // Profiles whose projections agree share this file, so it names the source, not a profile.
        inputSchema: advertised(release.key, projected, [{ name: `${release.label}:${source}`, hash: hashJson(schema) }]),
        ...(outputSchema ? { outputSchema: outputDocument(release.key, name, [...members, errorMember()]) } : {}),
      };
    }),
  }));
  const names = [...new Set(releases.flatMap((r) => r.entries.map((e) => e.name)))].sort();
  const endpoint = names.map((name): ToolsListEntry => {
    const top = releases.find((r) => r.entries.some((e) => e.name === name))!;
    const entry = top.entries.find((e) => e.name === name)!;
    if (!outputSchema) return entry;
    return { ...entry, outputSchema: outputDocument(top.release.key, name, [...outputs.get(name)!, errorMember()]) };
  });
  return { releases, endpoint };
}

/** A release's success body and async status bodies for one tool. */
function releaseOutputs(release: Release, tool: ToolDef, sources: AdvertisedSources, mode: AnnotationMode): OutputMember[] {
  const docs = [sources.document(release, tool, 'output', mode), ...tool.asyncResponseSchemas.map((p) => sources.asyncDocument(release, p, mode))];
  return docs.map(({ schema, source }) => ({ label: `${release.key}:${source}`, schema, input: { name: `${release.label}:${source}`, hash: hashJson(schema) } }));
}

function errorMember(): OutputMember {
  return { label: 'error', schema: ERROR_BODY, input: { name: 'adcp-codegen:error-body', hash: hashJson(ERROR_BODY) } };
}

function outputDocument(releaseKey: string, tool: string, members: readonly OutputMember[]): AdvertisedSchema {
  const schema = outputUnion(tool, members);
  return advertised(releaseKey, schema, members.map((m) => m.input));
}

function advertised(releaseKey: string, schema: JsonSchemaObject, inputs: readonly InputRef[]): AdvertisedSchema {
  const hash = hashJson(schema);
  return { hash, path: `releases/${releaseKey}/advertised/${hash.slice(0, 16)}.json`, schema, inputs };
}

function schemaDescription(release: Release, path: string): string | undefined {
  const d = release.schemas.byPath.get(path)?.schema.description;
  return typeof d === 'string' && d.trim() !== '' ? d.trim() : undefined;
}
