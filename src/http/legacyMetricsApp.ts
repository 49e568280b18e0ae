import type { FastifyInstance } from 'fastify';
import type { Variant } from '../attributes';
import type { LegacySnapshotSource } from './LegacySnapshotSource';
import { resolvedLegacyMetricsApi } from './legacyMetricsApi';
import type { DeprecationOptions } from '../config/deprecationOptions';
import {
  defaultSuccessorOption,
  DeprecationPolicy,
  type LegacyApiDeprecationOptions,
} from './deprecation';
import { createListenerApp } from './listen';
import type { ListenerSettings } from './listenerSettings';
import { optionPath } from '../optionValidation';
import {
  usageOptions,
  type LegacyApiUsageOptions,
  type ResolvedUsageOptions,
} from './usageOptions';

/** What every legacy API of a set of listeners shares: usage telemetry and the default successor. */
export type SharedApiOptions = LegacyApiUsageOptions &
  Pick<LegacyApiDeprecationOptions, 'defaultSuccessor'>;

/** {@link SharedApiOptions}, checked. */
export interface ResolvedSharedApiOptions {
  readonly defaultSuccessor: string | undefined;
  readonly usage: ResolvedUsageOptions;
}

/**
 * Checks the shared options below `base` (`''` for top-level names, `options` for
 * `options.usage.maxClients`), so that their errors name them as the caller's options rather
 * than as the plugin's.
 * @throws InvalidOptionError
 */
export function checkSharedApiOptions(
  base: string,
  shared: SharedApiOptions
): ResolvedSharedApiOptions {
  return {
    defaultSuccessor: defaultSuccessorOption(
      optionPath(base, 'defaultSuccessor'),
      shared.defaultSuccessor
    ),
    usage: usageOptions(base, shared),
  };
}

/** One mount of the legacy API on an app: where and how it is served. */
export interface LegacyMount {
  /** The URL prefix, e.g. `/api`, normalised (no trailing slash; `/` stays `/`). */
  path: string;
  variant: Variant;
  /** The Host the mount answers to; `_` for any. */
  host: string;
  /** How the mount announces its end. @default undefined */
  deprecation?: DeprecationOptions;
}

/**
 * A standalone fastify app serving the legacy API at each mount, with the behaviour of every
 * listener of ours (see {@link createListenerApp}): requests that match no mount (another
 * path, another Host) get our 404; unknown methods get 501. The shared options are checked
 * once, here, and each mount is registered with resolved values.
 */
export function createLegacyMetricsApp(
  reader: LegacySnapshotSource,
  mounts: readonly LegacyMount[],
  settings: Partial<ListenerSettings> = {},
  shared: SharedApiOptions = {}
): FastifyInstance {
  const app = createListenerApp(settings);
  const { defaultSuccessor, usage } = checkSharedApiOptions('', shared);
  for (const mount of mounts) {
    const deprecation = DeprecationPolicy.fromOptions(
      { deprecation: mount.deprecation, defaultSuccessor },
      ''
    );
    // fastify keeps a prefix of `/` as is, which would double the slash before `metrics`.
    const prefix = mount.path === '/' ? '' : mount.path;
    void app.register(resolvedLegacyMetricsApi, {
      reader,
      variant: mount.variant,
      allowedHost: mount.host,
      deprecation,
      usage,
      prefix,
    });
  }
  return app;
}
