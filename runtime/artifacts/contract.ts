/**
 * The contract between the generated artifacts and the runtime. Every compiled artifact (validator, strip,
 * normalizer) is a CommonJS module under `<out>/releases/<release key>/…` that the runtime loads synchronously,
 * lazily, on first use of that tool; these are the shapes their exports take. This file is copied into the
 * generated output with the rest of the runtime, so nothing here may import from the generator.
 */

/** One problem with a payload, as AdCP errors carry it (`adcp_error.issues[]`, core/error.json). */
export interface Issue {
  /**
   * RFC 6901 pointer to the field the problem is about ("" for the root): for a missing property, the property
   * itself (`/packages/0/product_id`), so `field` is `issues[0].pointer` in JSONPath-lite as error-handling.mdx says.
   */
  pointer: string;
  message: string;
  /** The JSON Schema keyword that failed (`required`, `enum`, `additionalProperties`, `oneOf`, …). */
  keyword: string;
  /** enum/const: the values that would have been accepted. */
  allowedValues?: unknown[];
  /** required: the name of the missing property (the last token of `pointer`). */
  missingProperty?: string;
  /** unknown field at a closed object: its name. */
  additionalProperty?: string;
  /** unmet `not` on an object: the properties whose presence it forbids. */
  forbiddenProperties?: string[];
  /**
   * The published `$id` of the schema that rejected (error-handling.mdx, "Validator-internals fields on issues"):
   * the document holding the rejecting keyword.
   */
  schema_id?: string;
  /** Where in that document (`#/definitions/x/properties/y/type`). Development only (runtime/agent.ts). */
  schemaPath?: string;
  /** The arm a const-discriminated union's value selected: the value the caller sent, never an inference. */
  discriminator?: IssueDiscriminator[];
  /** Set when text from the payload was clipped to keep the rejection bounded (bounds.ts). */
  truncated?: true;
}

/** One entry of `issues[].discriminator` (core/error.json): a discriminator property and the value sent for it. */
export interface IssueDiscriminator {
  property_name: string;
  value: string | number | boolean | null;
}

export type CheckResult = { ok: true } | { ok: false; issues: Issue[] };

/** A compiled canonical validator. Pure: keeps no state between calls. */
export type ValidateFn = (data: unknown) => CheckResult;

export interface StripResult {
  value: unknown;
  /** Pointers (into the input) of the unknown fields removed at closed objects. */
  removed: string[];
  /** Pointers of unions where no branch could be chosen with confidence: nothing was stripped below them. */
  undecided: string[];
}

/** A compiled deep-strip function. Never mutates its input; idempotent. */
export type StripFn = (data: unknown) => StripResult;

export interface AppliedNormalization {
  /** Rule id from schemas/normalizations (`brand_manifest-to-brand`). */
  rule: string;
  /** Pointer of the deprecated field in the input. */
  from: string;
  /** Pointer of the current field in the output. */
  to: string;
  /** Set when the current field was already present: it won and the deprecated value was dropped. */
  conflict?: boolean;
  /** For drop-with-reason rules. */
  reason?: string;
}

export interface NormalizeResult {
  value: unknown;
  applied: AppliedNormalization[];
}

/** A compiled normalizer for one tool and release. Never mutates its input. */
export type NormalizeFn = (data: unknown) => NormalizeResult;

/**
 * Artifact modules, per release key (`3.2`) and tool, all CommonJS, loaded lazily and synchronously:
 *
 *   releases/<key>/validate.cjs                  module.exports = { [tool]: { request: RawValidateFn,
 *                                                  response: RawValidateFn, responseAsync: { [status]: RawValidateFn } } }
 *                                                (getters, each requiring its definition pack on first use)
 *   releases/<key>/strip/<tool>.cjs              module.exports = { strip: StripFn }
 *   releases/<key>/normalize/<tool>.cjs          module.exports = { normalize: NormalizeFn }  (identity when no rule)
 *   releases/<key>/strip/<tool>.response.cjs     module.exports = { strip: StripFn, stripAsync: { [status]: StripFn } }
 *   releases/<old>/convert/<new>/index.cjs       module.exports = { [tool]: { response: ConvertResponseFn, request: ConvertRequestFn } }
 *                                                (a getter per tool, requiring its content-addressed module)
 *
 * Artifacts `require` only relative paths inside the output directory (shared definition modules and support
 * files the compile stages emit themselves), never a package, so the generated set is self-contained.
 */
export const ARTIFACT_PATHS = {
  /** Every tool's validators of the release (ValidatorsModule). */
  validators: (key: string) => `releases/${key}/validate.cjs`,
  strip: (key: string, tool: string) => `releases/${key}/strip/${tool}.cjs`,
  normalize: (key: string, tool: string) => `releases/${key}/normalize/${tool}.cjs`,
  /** Only for a tool that answers items one by one (the profile lists them: `itemOutcomes`). */
  items: (key: string, tool: string) => `releases/${key}/items/${tool}.cjs`,
  /** The deep-strip of a tool's response and async responses, for bodies converted from a newer release. */
  responseStrip: (key: string, tool: string) => `releases/${key}/strip/${tool}.response.cjs`,
  /** Conversions between a newer release whose handler answers and the older one a buyer pinned: the pair's index. */
  convert: (olderKey: string, newerKey: string) => `releases/${olderKey}/convert/${newerKey}/index.cjs`,
  /**
   * Per tool of the pair, the request places the newer release requires and an older request may not carry (their
   * absence is the one defect a converted request may have there: the handler's types make them optional).
   */
  convertGaps: (olderKey: string, newerKey: string) => `releases/${olderKey}/convert/${newerKey}/gaps.cjs`,
} as const;

/** `releases/<older>/convert/<newer>/gaps.cjs`: tool → its request gaps as places (`packages/*\/creatives/*\/format_kind`). */
export type ConvertGapsModule = Readonly<Record<string, readonly string[]>>;

/** An Ajv error object, as Ajv standalone code leaves it on `validate.errors`. */
export interface AjvErrorObject {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
  /**
   * The locations of the definitions the error was taken through, innermost (the one whose schema rejected) first,
   * joined by line feeds in the compiled code's errors; absent for an error of the validator's own definition.
   */
  via?: string | readonly string[];
}

/**
 * Ajv standalone code as emitted: returns a boolean and leaves its errors on the function itself. The runtime
 * copies `errors` into Issues immediately (runtime/issues.ts), so no state survives between calls.
 */
export interface RawValidateFn {
  (data: unknown): boolean;
  errors?: AjvErrorObject[] | null;
  /** Where its definition lives in the release (`core/brand-ref.json`, `…#/definitions/x`). */
  location?: string;
}

/** One tool's compiled validators in `releases/<key>/validate.cjs`, each loaded when first read. */
export interface ToolValidators {
  readonly request: RawValidateFn;
  readonly response: RawValidateFn;
  readonly responseAsync: Readonly<Record<string, RawValidateFn>>;
}

/** `releases/<key>/validate.cjs`: tool → its validators (a table without prototype). */
export type ValidatorsModule = Readonly<Record<string, ToolValidators>>;

export interface RequestValidatorModule {
  validate: RawValidateFn;
}

export interface ResponseValidatorModule {
  validate: RawValidateFn;
  validateAsync: Readonly<Record<string, RawValidateFn>>;
}

/**
 * A batch tool's per-item outcomes (generator/compile/items/): for each request array answered row by row, the rows
 * array, the required row fields copied from the item (`identity`) or set to their failure value (`outcome`), and the
 * validators of one item and of one built row.
 */
export interface ItemOutcomesModule {
  /** A request field that must hold `value` for items to be answered one by one (`validation_mode: lenient`). */
  readonly gate: { readonly property: string; readonly value: string } | null;
  /** The success body besides the rows, when no item is valid; null: such a call is rejected as a whole. */
  readonly body: Readonly<Record<string, unknown>> | null;
  readonly pairings: readonly ItemPairing[];
}

export interface ItemPairing {
  readonly request: string;
  readonly response: string;
  readonly identity: readonly string[];
  readonly outcome: Readonly<Record<string, unknown>>;
  readonly maxItems?: number;
  readonly validateItem: RawValidateFn;
  readonly validateRow: RawValidateFn;
}

export interface StripModule {
  strip: StripFn;
}

export interface NormalizeModule {
  normalize: NormalizeFn;
}

export interface ResponseStripModule {
  strip: StripFn;
  stripAsync: Readonly<Record<string, StripFn>>;
}

/** One step a conversion applied: as a normalization, or a value taken from the buyer's request. */
export interface AppliedConversion extends AppliedNormalization {
  origin?: 'request';
}

export interface ConversionResult {
  value: unknown;
  applied: AppliedConversion[];
  /** Set when the answer has no form in the older release (a `refuse` rule): why. The buyer gets an AdCP error. */
  refused?: string;
}

/** A newer release's body toward the older release the buyer pinned (whose deep-strip runs after). Never mutates. */
export type ConvertResponseFn = (body: unknown, request: unknown) => ConversionResult;
/** An older release's validated request toward the newer release's handler (before its normalizer). Never mutates. */
export type ConvertRequestFn = (request: unknown) => ConversionResult;

export interface ConvertModule {
  response: ConvertResponseFn;
  request: ConvertRequestFn;
}
