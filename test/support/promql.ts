/** One series of an instant vector, as Prometheus's query API gives it. */
export interface VectorSample {
  metric: Record<string, string>;
  /** The evaluation time in seconds and the value as text. */
  value: [number, string];
}

/**
 * An instant PromQL query against the Prometheus at `baseUrl`; fails on any error the query API
 * reports.
 */
export async function query(
  baseUrl: string,
  expression: string
): Promise<VectorSample[]> {
  const response = await fetch(
    `${baseUrl}/api/v1/query?query=${encodeURIComponent(expression)}`,
    { signal: AbortSignal.timeout(10_000) }
  );
  const body = (await response.json()) as {
    status: string;
    error?: string;
    data: { result: VectorSample[] };
  };
  if (body.status !== 'success')
    throw new Error(`query ${expression} failed: ${body.error}`);
  return body.data.result;
}
