import type { ExponentialHistogram } from '@opentelemetry/sdk-metrics';
import { packHistogram } from '../../src/reader/CapturedCollection';

/** An SDK histogram point packed from 0, as a captured collection packs it. */
export function packed(point: ExponentialHistogram): Float64Array {
  let array = new Float64Array(0);
  packHistogram(point, length => (array = new Float64Array(length)), 0);
  return array;
}
