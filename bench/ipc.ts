import type { ChildProcess } from 'node:child_process';

/**
 * Request/response over a forked child's IPC channel: the parent sends `{ id, command, ...args }`,
 * the child answers `{ id, result }` or `{ id, error }`. Children may also send unsolicited
 * `{ event, ... }` messages.
 */

export interface IpcRequest {
  readonly id: number;
  readonly command: string;
  readonly [key: string]: unknown;
}

interface IpcReply {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: string;
}

/** The parent's side: call a command of the child and await its result. */
export class ChildChannel {
  private _nextId = 1;
  private readonly _pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private readonly _events: Array<Record<string, unknown>> = [];
  private readonly _eventWaiters: Array<{
    event: string;
    resolve: (message: Record<string, unknown>) => void;
  }> = [];

  constructor(readonly child: ChildProcess) {
    child.on('message', (message: unknown) =>
      this._onMessage(message as Record<string, unknown>)
    );
    child.on('exit', (code, signal) => {
      const error = new Error(`child exited (code ${code}, signal ${signal})`);
      for (const { reject } of this._pending.values()) reject(error);
      this._pending.clear();
    });
  }

  call<T>(command: string, args: Record<string, unknown> = {}): Promise<T> {
    const id = this._nextId++;
    return new Promise<T>((resolve, reject) => {
      this._pending.set(id, {
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      this.child.send({ ...args, id, command });
    });
  }

  /** Resolves with the first message carrying `event` (also one that arrived before the call). */
  nextEvent(
    event: string,
    timeoutMs: number
  ): Promise<Record<string, unknown>> {
    const index = this._events.findIndex(message => message['event'] === event);
    if (index >= 0) return Promise.resolve(this._events.splice(index, 1)[0]!);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`no ${event} from the child within ${timeoutMs} ms`)
          ),
        timeoutMs
      );
      this.child.once('exit', code =>
        reject(new Error(`child exited (code ${code}) before ${event}`))
      );
      this._eventWaiters.push({
        event,
        resolve: message => {
          clearTimeout(timer);
          resolve(message);
        },
      });
    });
  }

  private _onMessage(message: Record<string, unknown>): void {
    if (typeof message['event'] === 'string') {
      const index = this._eventWaiters.findIndex(
        waiter => waiter.event === message['event']
      );
      if (index >= 0) this._eventWaiters.splice(index, 1)[0]!.resolve(message);
      else this._events.push(message);
      return;
    }
    const reply = message as unknown as IpcReply;
    const pending = this._pending.get(reply.id);
    if (pending === undefined) return;
    this._pending.delete(reply.id);
    if (reply.error !== undefined) pending.reject(new Error(reply.error));
    else pending.resolve(reply.result);
  }
}

/** The child's side: answer the parent's commands with `handlers`. */
export function serveCommands(
  handlers: Record<string, (request: IpcRequest) => unknown>
): void {
  process.on('message', (message: unknown) => {
    const request = message as IpcRequest;
    const handler = handlers[request.command];
    Promise.resolve()
      .then(() => {
        if (handler === undefined)
          throw new Error(`unknown command ${request.command}`);
        return handler(request);
      })
      .then(
        result => process.send!({ id: request.id, result }),
        (error: unknown) =>
          process.send!({
            id: request.id,
            error: String((error as Error)?.stack ?? error),
          })
      );
  });
}

/** Sends an unsolicited message to the parent; run alone, without one, prints it as a line of JSON. */
export function emit(
  event: string,
  payload: Record<string, unknown> = {}
): void {
  if (process.send === undefined)
    console.log(JSON.stringify({ ...payload, event }));
  else process.send({ ...payload, event });
}

/** Reads `--name value` from argv. */
export function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** Reads `--name N`, a whole number ≥ 1, from argv: `fallback` when absent. */
export function numberArgument(name: string, fallback: number): number {
  const text = argument(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name}: found ${text}, expected a whole number ≥ 1`);
  return value;
}
