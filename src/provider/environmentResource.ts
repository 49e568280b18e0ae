import type * as ResourcesModule from '@opentelemetry/resources';
import type { Resource } from '@opentelemetry/resources';
import { loadOptionalPeer } from './optionalPeer';

/**
 * The SDK's default resource, with what `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` say
 * merged over it, and `given` merged over both (its attributes win).
 */
export function environmentResource(given?: Resource): Resource {
  const { defaultResource, detectResources, envDetector } = loadOptionalPeer<
    typeof ResourcesModule
  >(
    '@opentelemetry/resources',
    'the resource from OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES',
    'the version of your @opentelemetry/sdk-metrics (which installs it too)'
  );
  return defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(given ?? null);
}
