/**
 * One GET by a migration tool, bounded whatever the server does: the body is capped (after
 * decompression), the read has an overall and an idle timeout, redirects are followed only to the
 * same origin, and every failure is a one-line MigrationError naming the URL.
 */
import {
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Writable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { packageVersion } from '../packageInfo';
import { MigrationError } from './MigrationError';
import { READ_LIMIT_VARIABLES, type ReadLimits } from './readLimits';

/** The command that reads, named in the User-Agent so that usage telemetry tells it from a poller. */
export type MigrationTool = 'migrate' | 'compare';

let version: string | undefined;

/** `legacy-metrics-api/<version> (migrate)`; without a tool, `legacy-metrics-api/<version>`. */
export function toolUserAgent(tool: MigrationTool | undefined): string {
  version ??= packageVersion();
  const product = `legacy-metrics-api/${version}`;
  return tool === undefined ? product : `${product} (${tool})`;
}

/** What {@link boundedGet} is to do. */
export interface BoundedGetOptions {
  readonly accept: string;
  readonly tool: MigrationTool | undefined;
  readonly limits: ReadLimits;
  /** The body cap in bytes, after decompression. */
  readonly maxBytes: number;
  /**
   * Given the body's text piece by piece as it arrives, instead of the whole body at the end
   * (the result's body is then ''). A MigrationError it throws fails the read as it is.
   */
  readonly onText?: (text: string) => void;
}

/** A 200's body, or the status of a 404. */
export type BoundedGetResult =
  { readonly status: 200; readonly body: string } | { readonly status: 404 };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function decoders(encoding: string | undefined, url: string): Transform[] {
  const names = (encoding ?? '')
    .split(',')
    .map(name => name.trim().toLowerCase())
    .filter(name => name !== '' && name !== 'identity');
  // Content-Encoding lists the codings in the order they were applied.
  return names.reverse().map(name => {
    switch (name) {
      case 'gzip':
      case 'x-gzip':
        return createGunzip();
      case 'deflate':
        return createInflate();
      case 'br':
        return createBrotliDecompress();
      default:
        throw new MigrationError(
          `${url}: found Content-Encoding ${JSON.stringify(encoding)}, expected gzip, deflate, br or none`
        );
    }
  });
}

function errorCode(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === 'string'
    ? code
    : typeof message === 'string'
      ? message
      : String(error);
}

function parseUrl(url: string): URL {
  if (!URL.canParse(url))
    throw new MigrationError(
      `${JSON.stringify(url)}: found no URL, expected one such as http://127.0.0.1:8088/api`
    );
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new MigrationError(
      `${url}: found the scheme ${parsed.protocol.slice(0, -1)}, expected http or https`
    );
  return parsed;
}

/**
 * GETs `url` within the limits; resolves to the body of a 200 or to a 404, and rejects with a
 * MigrationError naming the URL for anything else.
 */
export async function boundedGet(
  url: string,
  options: BoundedGetOptions
): Promise<BoundedGetResult> {
  const { limits } = options;
  // A timer's reason wins over whatever error the destroyed socket reports.
  let failure: MigrationError | undefined;
  let request: ClientRequest | undefined;
  const stop = (reason: MigrationError): void => {
    failure ??= reason;
    request?.destroy(reason);
  };
  const overall = setTimeout(
    () =>
      stop(
        new MigrationError(
          `${url}: found no complete answer within ${limits.timeoutMs} ms, expected one (${READ_LIMIT_VARIABLES.timeoutMs} sets the limit)`
        )
      ),
    limits.timeoutMs
  );
  try {
    let current = parseUrl(url);
    for (let redirects = 0; ; redirects++) {
      const destination = current;
      const send = (): Promise<IncomingMessage> =>
        new Promise<IncomingMessage>((resolve, reject) => {
          const transport =
            destination.protocol === 'https:' ? httpsRequest : httpRequest;
          request = transport(destination, {
            headers: {
              accept: options.accept,
              'accept-encoding': 'gzip, br',
              'user-agent': toolUserAgent(options.tool),
            },
          });
          request.setTimeout(limits.idleTimeoutMs, () =>
            stop(
              new MigrationError(
                `${url}: found no data for ${limits.idleTimeoutMs} ms, expected the server to go on (${READ_LIMIT_VARIABLES.idleTimeoutMs} sets the limit)`
              )
            )
          );
          request.once('response', resolve);
          request.once('error', reject);
          request.end();
        });
      // A kept-alive connection the server closed as the request went out (its idle timer ran
      // late on a busy server): the request never reached it, and is sent once more.
      const response = await send().catch((error: unknown) => {
        if (
          failure === undefined &&
          request?.reusedSocket === true &&
          errorCode(error) === 'ECONNRESET'
        )
          return send();
        throw error;
      });
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECTS.has(status) && location !== undefined) {
        response.destroy();
        const target = new URL(location, current);
        if (target.origin !== current.origin)
          throw new MigrationError(
            `${url}: found a redirect to ${target.href}, another origin; expected ${current.origin} (give the URL it serves from)`
          );
        if (redirects >= limits.maxRedirects)
          throw new MigrationError(
            `${url}: found more than ${limits.maxRedirects} redirects, expected at most ${limits.maxRedirects}`
          );
        current = target;
        continue;
      }
      if (status !== 200) {
        response.destroy();
        if (status === 404) return { status: 404 };
        throw new MigrationError(
          `${url}: found HTTP status ${status}, expected 200`
        );
      }
      return { status: 200, body: await readBody(response, url, options) };
    }
  } catch (error) {
    request?.destroy();
    if (failure !== undefined) throw failure;
    if (error instanceof MigrationError) throw error;
    throw new MigrationError(`${url}: cannot connect (${errorCode(error)})`);
  } finally {
    clearTimeout(overall);
  }
}

/** The body as text, decompressed and counted chunk by chunk, never past the cap. */
async function readBody(
  response: IncomingMessage,
  url: string,
  options: BoundedGetOptions
): Promise<string> {
  const tooBig = new MigrationError(
    `${url}: found a body over ${options.maxBytes} bytes, expected at most ${options.maxBytes} (${READ_LIMIT_VARIABLES.maxBodyBytes} sets the limit)`
  );
  const declared = Number(response.headers['content-length']);
  const chain = decoders(response.headers['content-encoding'], url);
  if (chain.length === 0 && declared > options.maxBytes) {
    response.destroy();
    throw tooBig;
  }
  const text = new StringDecoder('utf8');
  let body = '';
  const onText = options.onText ?? ((piece: string) => (body += piece));
  let bytes = 0;
  try {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        if (bytes > options.maxBytes) return callback(tooBig);
        try {
          onText(text.write(chunk));
        } catch (error) {
          return callback(error as Error);
        }
        callback();
      },
    });
    await pipeline([response, ...chain, sink]);
  } catch (error) {
    if (error === tooBig || error instanceof MigrationError) throw error;
    const code = errorCode(error);
    throw new MigrationError(
      chain.length > 0 && code.startsWith('Z_')
        ? `${url}: cannot decompress the body (${code}), expected ${String(response.headers['content-encoding'])} data`
        : `${url}: the body ended early (${code}), expected all of it`
    );
  }
  onText(text.end());
  return body;
}
