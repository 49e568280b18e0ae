import { diag } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import { isIP } from 'node:net';
import type { Variant } from '../attributes';
import { InvalidOptionError, ListenError } from '../errors';
import { createLegacyMetricsApp } from './legacyMetricsApp';
import type { LegacyMetricsReader } from '../reader/LegacyMetricsReader';
import type { LegacyApiDeprecationOptions } from './deprecation';
import type { LegacyApiUsageOptions } from './usageTelemetry';

/** Options of {@link startLegacyMetricsServer}. */
export interface LegacyMetricsServerOptions
  extends LegacyApiDeprecationOptions, LegacyApiUsageOptions {
  /** The TCP port; 0 picks a free one. */
  port: number;
  /**
   * The address to bind. The API has no authentication, so it binds loopback unless told otherwise.
   * @default '127.0.0.1'
   */
  host?: string;
  /** @default '/api' */
  path?: string;
  /** @default 'host_type' */
  variant?: Variant;
}

/** A running listener. */
export interface LegacyMetricsServer {
  /** The listener's base URL, e.g. `http://127.0.0.1:8088`. */
  readonly url: string;
  /** Stops listening and closes open connections. Idempotent. */
  close(): Promise<void>;
}

export const DEFAULT_SERVER_OPTIONS = Object.freeze({
  host: '127.0.0.1',
  path: '/api',
  variant: 'host_type' as Variant,
});

const LOOPBACK = /^(?:127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** Whether binding `address` keeps the API on this machine. */
export function isLoopbackAddress(address: string): boolean {
  return LOOPBACK.test(address);
}

/** The base URL for a bound address and port. */
export function baseUrl(address: string, port: number): string {
  return isIP(address) === 6
    ? `http://[${address}]:${port}`
    : `http://${address}:${port}`;
}

export function validatePath(path: unknown, what: string): string {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new InvalidOptionError(
      `${what} must be a string starting with "/" (got ${JSON.stringify(path)})`
    );
  }
  // fastify prefixes carry no trailing slash.
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** Warns, once per listener, that the API has no authentication when it is reachable from elsewhere. */
export function warnIfExposed(address: string, port: number): void {
  if (isLoopbackAddress(address)) return;
  diag.warn(
    `legacy metrics API bound to ${address}:${port}: it has no authentication, so anyone who can reach ` +
      'this address can read every metric; bind to loopback or restrict access with a firewall'
  );
}

/** `127.0.0.1:8088`, `[::1]:8088`. */
export function hostPort(address: string, port: number): string {
  return isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * Binds `app` and resolves to the address and port actually bound, after warning when that is
 * beyond loopback. A bind failure becomes a {@link ListenError} whose message starts with `where`.
 */
export async function listenApp(
  app: FastifyInstance,
  host: string,
  port: number,
  where: string
): Promise<{ address: string; port: number }> {
  try {
    await app.listen({ port, host });
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ListenError(
      `${where === '' ? '' : `${where}: `}cannot listen on ${hostPort(host, port)}: ${reason}`
    );
  }
  const address = app.server.address();
  const bound =
    typeof address === 'object' && address !== null
      ? { address: address.address, port: address.port }
      : { address: host, port };
  warnIfExposed(bound.address, bound.port);
  return bound;
}

/**
 * Starts a standalone HTTP listener serving the legacy API of `reader` at `<path>/metrics`.
 * Resolves once it listens; rejects with a {@link ListenError} when the address cannot be bound.
 */
export async function startLegacyMetricsServer(
  reader: LegacyMetricsReader,
  options: LegacyMetricsServerOptions
): Promise<LegacyMetricsServer> {
  const port = options?.port;
  if (
    typeof port !== 'number' ||
    !Number.isInteger(port) ||
    port < 0 ||
    port > 65535
  ) {
    throw new InvalidOptionError(
      `port must be an integer from 0 to 65535 (got ${JSON.stringify(port)})`
    );
  }
  const host = options.host ?? DEFAULT_SERVER_OPTIONS.host;
  const path = validatePath(
    options.path ?? DEFAULT_SERVER_OPTIONS.path,
    'path'
  );
  const variant = options.variant ?? DEFAULT_SERVER_OPTIONS.variant;
  const app = createLegacyMetricsApp(
    reader,
    [{ path, variant, host: '_', deprecation: options.deprecation }],
    {
      defaultSuccessor: options.defaultSuccessor,
      meterProvider: options.meterProvider,
      usage: options.usage,
    }
  );
  // Deprecation and usage option errors surface here, apart from the bind errors below.
  try {
    await app.ready();
  } catch (error) {
    await app.close();
    throw error;
  }
  const bound = await listenApp(app, host, port, '').catch(
    async (error: unknown) => {
      await app.close();
      throw error;
    }
  );
  let closing: Promise<void> | undefined;
  return {
    url: baseUrl(bound.address, bound.port),
    close: () => (closing ??= app.close()),
  };
}
