import { outcomeTable, runHostileRequests } from '../support/hostileRequests';

describe('hostile requests (a slice of npm run fuzz)', () => {
  it('should answer 1,000 hostile requests over raw sockets with no 5xx but 501, no hang, and bodies that parse as their Content-Type says', async () => {
    const outcomes = await runHostileRequests({
      count: 1_000,
      seed: 42,
      concurrency: 8,
      hangMs: 10_000,
    });
    const failures = outcomes
      .filter(o => o.failure !== undefined)
      .map(o => ({
        kind: o.kind,
        status: o.status,
        failure: o.failure,
        request: o.request?.toString('latin1').slice(0, 200),
      }));
    expect(failures).toEqual([]);
    // Every request got at least its own answer, except pipelined ones dropped after a bad one.
    expect(outcomes.length).toBeGreaterThan(900);
    const statuses = new Set(outcomes.map(o => o.status));
    for (const status of ['200', '400', '404', '405', '501'])
      expect(statuses).toContain(status);
    expect(outcomeTable(outcomes).at(-1)).toMatch(/^total/);
  });
});
