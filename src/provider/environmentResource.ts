import type * as ResourcesModule from '@opentelemetry/resources';
import type { Resource } from '@opentelemetry/resources';
import { loadOptionalPeer } from './optionalPeer';

/** The semantic convention attribute that tells a service's processes apart. */
const SERVICE_INSTANCE_ID = 'service.instance.id';

/**
 * The SDK's default resource, with what `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` say
 * merged over it, then `instanceId` as `service.instance.id`, then `given` (its attributes win).
 * @param instanceId a cluster worker's own: the environment, which every worker inherits from
 *   the primary, cannot tell the workers apart
 */
export function environmentResource(
  given?: Resource,
  instanceId?: string
): Resource {
  const {
    defaultResource,
    detectResources,
    envDetector,
    resourceFromAttributes,
  } = loadOptionalPeer<typeof ResourcesModule>(
    '@opentelemetry/resources',
    'resource',
    'the resource from OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES',
    'the version of your @opentelemetry/sdk-metrics (which installs it too)'
  );
  return defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(
      instanceId === undefined
        ? null
        : resourceFromAttributes({ [SERVICE_INSTANCE_ID]: instanceId })
    )
    .merge(given ?? null);
}
