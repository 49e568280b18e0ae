/**
 * Who a client of the legacy API is, as usage telemetry records it: the product token of its
 * User-Agent, its version and its address, and whether it is one of this package's own tools
 * (`migrate`, `compare`), which read the API once to plan or check a migration and are not
 * pollers.
 */
import type { Attributes } from '@opentelemetry/api';

/** The value of `user_agent.name`, `user_agent.version` and `client.address` for folded clients. */
export const OTHER_CLIENT = 'other';

/** The attribute that marks this package's own tools, e.g. `migrate`; pollers never carry it. */
export const CLIENT_TOOL_ATTRIBUTE = 'legacy_api.client.tool';

/** The product token of a User-Agent (RFC 9110 §10.1.5) and its version. */
const PRODUCT =
  /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:\/([!#$%&'*+.^_`|~0-9A-Za-z-]+))?/;
/** The whole User-Agent of one of the package's tools; only these two names, so a tool is a short list. */
const TOOL =
  /^legacy-metrics-api\/[!#$%&'*+.^_`|~0-9A-Za-z-]+ \((migrate|compare)\)$/;

/** A client's attributes, and the tool it is when it is one of this package's. */
export interface ClientIdentity {
  readonly attributes: Attributes;
  readonly tool: string | undefined;
}

/** The identity of the client at `address` sending `userAgent` (undefined when it sent none). */
export function identifyClient(
  userAgent: string | undefined,
  address: string
): ClientIdentity {
  const product = userAgent === undefined ? null : PRODUCT.exec(userAgent);
  const attributes: Attributes = {
    'user_agent.name': product?.[1] ?? 'unknown',
    'client.address': address,
  };
  if (product?.[2] !== undefined) attributes['user_agent.version'] = product[2];
  const tool = userAgent === undefined ? undefined : TOOL.exec(userAgent)?.[1];
  if (tool !== undefined) attributes[CLIENT_TOOL_ATTRIBUTE] = tool;
  return { attributes, tool };
}
