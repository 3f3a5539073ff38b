import type { IncomingMessage } from 'node:http';

/**
 * The two @a2a-js/sdk majors' JSON-RPC servers, as the entry drives them without Express: what their Express
 * `jsonRpcHandler` does around the transport handler (the call context, version negotiation on 1.x, the error
 * mapping), read from the SDK's own code and kept to that. Typed structurally: the generated set names neither.
 */

/** What one JSON-RPC POST is turned into: the SDK's answer (a response, or events for SSE). */
export interface Dialect {
  readonly major: 0 | 1;
  /** Runs one JSON-RPC message; `user` is the SDK's User (authenticated or not). */
  handle(req: IncomingMessage, message: unknown, user: unknown, card: Record<string, unknown>): Promise<unknown>;
  /** A thrown error as a JSON-RPC error object, for the version and wire the request used. */
  errorOf(req: IncomingMessage, error: unknown): { code: number; message: string };
  /** Whether a GET of the agent card gets the A2A 0.3 card (1.x: a client naming no version, or 0.3). */
  legacyCard(req: IncomingMessage): boolean;
  readonly UnauthenticatedUser: new () => unknown;
  readonly DefaultRequestHandler: new (card: unknown, store: unknown, executor: unknown) => unknown;
}

interface TransportHandler {
  handle(body: unknown, context: unknown): Promise<unknown>;
}

interface V03Sdk {
  JsonRpcTransportHandler: new (requestHandler: unknown) => TransportHandler;
  ServerCallContext: new (requestedExtensions: unknown, user: unknown) => unknown;
  UnauthenticatedUser: new () => unknown;
  DefaultRequestHandler: new (card: unknown, store: unknown, executor: unknown) => unknown;
  A2AError: (new (...a: never[]) => { toJSONRPCError(): { code: number; message: string } }) & { internalError(message: string): { toJSONRPCError(): { code: number; message: string } } };
}

interface V1Sdk {
  JsonRpcTransportHandler: (new (requestHandler: unknown) => TransportHandler) & { mapToJSONRPCError(e: unknown): { code: number; message: string } };
  defaultServerCallContextBuilder(input: { extensions: unknown; user: unknown; headers: unknown; requestedVersion: string | undefined }): { requestedVersion: string };
  validateVersion(version: string, card: unknown, binding: string): void;
  UnauthenticatedUser: new () => unknown;
  DefaultRequestHandler: new (card: unknown, store: unknown, executor: unknown) => unknown;
}

interface V1Compat {
  LegacyJsonRpcTransportHandler: (new (requestHandler: unknown) => TransportHandler) & { mapToLegacyJSONRPCError(e: unknown): { code: number; message: string } };
}

/** The request handler comes later (it needs the card, which needs the first request's address). */
export type Bind = (requestHandler: unknown) => void;

export function dialectOf(server: Record<string, unknown>, compat: () => Record<string, unknown>): Dialect & { bind: Bind } {
  return typeof server.getSupportedVersions === 'function' ? v1(server as unknown as V1Sdk, compat() as unknown as V1Compat) : v03(server as unknown as V03Sdk);
}

function v03(sdk: V03Sdk): Dialect & { bind: Bind } {
  let transport: TransportHandler | undefined;
  return {
    major: 0,
    UnauthenticatedUser: sdk.UnauthenticatedUser,
    DefaultRequestHandler: sdk.DefaultRequestHandler,
    bind: (requestHandler) => void (transport = new sdk.JsonRpcTransportHandler(requestHandler)),
    handle: (_req, message, user) => transport!.handle(message, new sdk.ServerCallContext(undefined, user)),
    errorOf: (_req, e) => (e instanceof sdk.A2AError ? e : sdk.A2AError.internalError('Internal error')).toJSONRPCError(),
    legacyCard: () => true,
  };
}

/** A2A 1.0's version header; absent means 0.3 (the SDK's A2A_LEGACY_PROTOCOL_VERSION), answered by the compat layer. */
const requestedVersion = (req: IncomingMessage): string | undefined => {
  const v = req.headers['a2a-version'];
  return typeof v === 'string' && v !== '' ? v : undefined;
};
const isLegacy = (req: IncomingMessage): boolean => (requestedVersion(req) ?? '0.3') === '0.3';

function v1(sdk: V1Sdk, compat: V1Compat): Dialect & { bind: Bind } {
  let current: TransportHandler | undefined;
  let legacy: TransportHandler | undefined;
  return {
    major: 1,
    UnauthenticatedUser: sdk.UnauthenticatedUser,
    DefaultRequestHandler: sdk.DefaultRequestHandler,
    bind(requestHandler) {
      current = new sdk.JsonRpcTransportHandler(requestHandler);
      legacy = new compat.LegacyJsonRpcTransportHandler(requestHandler);
    },
    async handle(req, message, user, card) {
      const context = sdk.defaultServerCallContextBuilder({ extensions: undefined, user, headers: req.headers, requestedVersion: requestedVersion(req) });
      sdk.validateVersion(context.requestedVersion, card, 'JSONRPC');
      return (isLegacy(req) ? legacy! : current!).handle(message, context);
    },
    errorOf: (req, e) => (isLegacy(req) ? compat.LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(e) : sdk.JsonRpcTransportHandler.mapToJSONRPCError(e)),
    legacyCard: isLegacy,
  };
}
