/**
 * Routing by the request's Host header as the original's handler `host` did: the port
 * ignored, case-insensitive, every loopback name or address as one (`localhost`, `127.0.0.1`,
 * `[::1]`). A fastify route constraint, so that several handler groups may share a path on
 * one listener and differ by Host.
 */
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { canonicalHost } from '../hostNames';

/** The constraint's name on a route: `constraints: { [LEGACY_HOST]: canonicalHost(host) }`. */
export const LEGACY_HOST = 'legacyHost';

/** The Host setting that matches any host. */
export const ANY_HOST = '_';

type ConstraintStrategy = Parameters<
  FastifyInstance['addConstraintStrategy']
>[0];
type RouteStore = ReturnType<ReturnType<ConstraintStrategy['storage']>['get']>;

const strategy: ConstraintStrategy = {
  name: LEGACY_HOST,
  // Routes without the constraint keep matching every request: the application's own routes are unaffected.
  mustMatchWhenDerived: false,
  storage() {
    const hosts = new Map<string, RouteStore>();
    return {
      get: (host: unknown) => hosts.get(host as string) ?? null,
      set: (host: unknown, value: RouteStore) => {
        hosts.set(host as string, value);
      },
    };
  },
  deriveConstraint(request: IncomingMessage): string {
    return canonicalHost(request.headers.host ?? '');
  },
  validate(value: unknown): void {
    if (typeof value !== 'string') throw new TypeError('a host name');
  },
};

/**
 * The route constraints for a Host setting: none for `_`, otherwise the canonical host, after
 * adding the strategy to `fastify`'s router when it does not have it yet.
 */
export function hostConstraints(
  fastify: FastifyInstance,
  host: string
): { constraints?: Record<string, string> } {
  if (host === ANY_HOST) return {};
  if (!fastify.hasConstraintStrategy(LEGACY_HOST))
    fastify.addConstraintStrategy(strategy);
  return { constraints: { [LEGACY_HOST]: canonicalHost(host) } };
}
