/**
 * A simulated messaging server: the metric catalog of the original server, recorded with the
 * OpenTelemetry API the way a real server would, and traffic that keeps it moving.
 * Per-host-type instruments carry a `host_type` attribute; global ones carry none.
 */
import type { Counter, Meter } from '@opentelemetry/api';

/** The host types the demo serves. `test type` shows how a name with a space is served. */
export const DEMO_HOST_TYPES: readonly string[] = Object.freeze([
  'localhost',
  'test type',
]);

/** Per-host-type counters (spirals in the legacy API), by the original server's names. */
const HOST_TYPE_COUNTERS = [
  'xmppMessageSent',
  'xmppMessageReceived',
  'xmppMessageBounced',
  'xmppStanzaSent',
  'xmppStanzaReceived',
  'xmppStanzaCount',
  'xmppPresenceSent',
  'xmppPresenceReceived',
  'xmppIqSent',
  'xmppIqReceived',
  'xmppIqTimeouts',
  'xmppErrorTotal',
  'xmppErrorMessage',
  'xmppErrorIq',
  'xmppErrorPresence',
  'sessionSuccessfulLogins',
  'sessionAuthAnonymous',
  'sessionAuthFails',
  'sessionLogouts',
  'modRosterGets',
  'modRosterSets',
  'modRosterPush',
  'modPresenceSubscriptions',
  'modPresenceUnsubscriptions',
  'modPrivacyGets',
  'modPrivacySets',
  'modRegisterCount',
  'modUnregisterCount',
] as const;

/** Bucket boundaries of `backends.auth` (200 µs to 20.2 ms are recorded), for Prometheus. */
export const AUTH_LATENCY_BOUNDARIES_US: readonly number[] = Object.freeze([
  0, 250, 500, 750, 1000, 1500, 2000, 3000, 4000, 5000, 7500, 10000, 12500,
  15000, 17500, 20000, 25000,
]);

/** Bucket boundaries of the stanza sizes (120 to 2,120 bytes are recorded), for Prometheus. */
export const STANZA_SIZE_BOUNDARIES_BYTES: readonly number[] = Object.freeze([
  0, 100, 250, 500, 750, 1000, 1250, 1500, 1750, 2000, 2500,
]);

type HostTypeCounter = (typeof HOST_TYPE_COUNTERS)[number];

interface HostTypeState {
  readonly attributes: { host_type: string };
  readonly authorizeAttributes: { host_type: string; operation: string };
  sessions: number;
}

/** A running simulation. */
export interface SimulatedTraffic {
  /** Stops generating traffic. The instruments stay registered. */
  stop(): void;
}

/** Options of {@link startSimulatedMessagingServer}. */
export interface SimulatedMessagingServerOptions {
  /** @default DEMO_HOST_TYPES */
  hostTypes?: readonly string[];
  /** How often a burst of traffic happens. @default 200 */
  stepMs?: number;
  /** Random source in [0, 1), for repeatable runs. @default Math.random */
  random?: () => number;
}

/**
 * Registers the catalog on `meter` and generates traffic until stopped: logins and logouts,
 * messages, presences, roster requests, errors, stanza sizes and auth latencies.
 */
export function startSimulatedMessagingServer(
  meter: Meter,
  options: SimulatedMessagingServerOptions = {}
): SimulatedTraffic {
  const hostTypes = options.hostTypes ?? DEMO_HOST_TYPES;
  const stepMs = options.stepMs ?? 200;
  const random = options.random ?? Math.random;
  const startedAt = Date.now();

  const counters = Object.fromEntries(
    HOST_TYPE_COUNTERS.map(name => [
      name,
      meter.createCounter(name, { valueType: 0 }),
    ])
  ) as Record<HostTypeCounter, Counter>;
  const sessionCount = meter.createUpDownCounter('sessionCount', {
    description: 'Sessions open on this node, per host type',
    valueType: 0,
  });
  // `backends.auth` with an `operation` attribute is served as `backends.auth.authorize`.
  // Explicit boundaries that cover the values recorded (the SDK's default stop at 10,000), so
  // that Prometheus' percentiles can follow the legacy ones; the legacy reader keeps its own
  // exponential buckets whatever the advice.
  const authLatency = meter.createHistogram('backends.auth', {
    description: 'Authentication backend latency',
    unit: 'us',
    valueType: 0,
    advice: { explicitBucketBoundaries: [...AUTH_LATENCY_BOUNDARIES_US] },
  });
  const [stanzaSizeSent, stanzaSizeReceived] = ['sent', 'received'].map(way =>
    meter.createHistogram(`data.xmpp.${way}.xml_stanza_size`, {
      unit: 'By',
      valueType: 0,
      advice: { explicitBucketBoundaries: [...STANZA_SIZE_BOUNDARIES_BYTES] },
    })
  );
  const states: HostTypeState[] = hostTypes.map(hostType => ({
    attributes: { host_type: hostType },
    authorizeAttributes: { host_type: hostType, operation: 'authorize' },
    sessions: 0,
  }));
  let uniqueUsers = 0;
  // The original registered every metric at startup: record zeros so they are listed at once.
  for (const state of states) {
    for (const name of HOST_TYPE_COUNTERS)
      counters[name].add(0, state.attributes);
    sessionCount.add(0, state.attributes);
  }

  const openSessions = (): number =>
    states.reduce((sum, state) => sum + state.sessions, 0);
  const upTimeS = (): number => Math.floor((Date.now() - startedAt) / 1000);
  const gauges: [string, string, () => number, string?][] = [
    ['nodeSessionCount', 'Sessions open on this node', openSessions],
    ['totalSessionCount', 'Sessions open in the cluster', openSessions],
    ['uniqueSessionCount', 'Distinct users online', () => uniqueUsers],
    ['nodeUpTime', 'Seconds since the node started', upTimeS, 's'],
  ];
  for (const [name, description, value, unit] of gauges)
    meter
      .createObservableGauge(name, { description, unit, valueType: 0 })
      .addCallback(result => result.observe(value()));

  const count = (state: HostTypeState, name: HostTypeCounter, n = 1): void =>
    counters[name].add(n, state.attributes);
  const upTo = (n: number): number => Math.floor(random() * (n + 1));

  const step = (): void => {
    for (const state of states) {
      const logins = upTo(3);
      for (let i = 0; i < logins; i++) {
        authLatency.record(
          200 + Math.floor(random() * random() * 20_000),
          state.authorizeAttributes
        );
        if (random() < 0.1) {
          count(state, 'sessionAuthFails');
          continue;
        }
        count(state, 'sessionSuccessfulLogins');
        count(state, 'modRosterGets');
        count(state, 'xmppPresenceSent');
        state.sessions++;
        sessionCount.add(1, state.attributes);
      }
      const logouts = Math.min(
        state.sessions,
        upTo(Math.ceil(state.sessions / 10))
      );
      if (logouts > 0) {
        count(state, 'sessionLogouts', logouts);
        state.sessions -= logouts;
        sessionCount.add(-logouts, state.attributes);
      }
      const messages = state.sessions === 0 ? 0 : upTo(state.sessions * 2);
      if (messages > 0) {
        count(state, 'xmppMessageSent', messages);
        count(state, 'xmppMessageReceived', messages);
        count(state, 'xmppStanzaSent', messages + logins);
        count(state, 'xmppStanzaReceived', messages + logins);
        count(state, 'xmppStanzaCount', 2 * (messages + logins));
        for (let i = 0; i < Math.min(messages, 20); i++) {
          stanzaSizeSent.record(120 + Math.floor(random() * 2_000));
          stanzaSizeReceived.record(120 + Math.floor(random() * 2_000));
        }
      }
      if (random() < 0.3) count(state, 'xmppIqReceived', upTo(5));
      if (random() < 0.2) count(state, 'modRosterSets');
      if (random() < 0.05) {
        count(state, 'xmppErrorTotal');
        count(state, random() < 0.5 ? 'xmppErrorMessage' : 'xmppErrorIq');
      }
    }
    uniqueUsers = Math.round(openSessions() * 0.8);
  };

  const timer = setInterval(step, stepMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
