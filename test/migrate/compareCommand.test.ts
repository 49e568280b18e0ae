/**
 * `legacy-metrics-api compare`, the built command, against the live demo: exit 0 while the
 * traffic runs; 1, naming the metrics, when the Prometheus side is another provider's.
 */
import { runBuilt, startLiveDemo, type LiveDemo } from './liveDemo';

describe('legacy-metrics-api compare', () => {
  it("should exit 0 on a deprecated API: its in-band sunset metric is the API's own, not a series", async () => {
    const deprecated = await startLiveDemo({ seed: 3, deprecated: true });
    try {
      await deprecated.recorded();
      const result = await runBuilt([
        'compare',
        '--legacy',
        deprecated.legacy,
        '--prometheus',
        deprecated.prometheus,
      ]);
      expect({
        code: result.code,
        stderr: result.stderr,
        ...(result.code === 0 ? {} : { stdout: result.stdout }),
      }).toEqual({ code: 0, stderr: '' });
      expect(result.stdout).not.toContain('legacyApiSunsetDays');
    } finally {
      await deprecated.close();
    }
  }, 30_000);

  let demo: LiveDemo | undefined;
  let other: LiveDemo | undefined;

  beforeAll(async () => {
    demo = await startLiveDemo({ seed: 1 });
    // Another provider with its own traffic: the same metrics, other numbers.
    other = await startLiveDemo({ seed: 2 });
    await Promise.all([demo.recorded(), other.recorded()]);
  }, 20_000);

  afterAll(async () => {
    await demo?.close();
    await other?.close();
  });

  it('should exit 0 on the live demo while its traffic runs, with a table per host type', async () => {
    const result = await runBuilt([
      'compare',
      '--legacy',
      demo!.legacy,
      '--prometheus',
      demo!.prometheus,
    ]);
    expect({
      code: result.code,
      stderr: result.stderr,
      ...(result.code === 0 ? {} : { stdout: result.stdout }),
    }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toContain('tolerances:');
    expect(result.stdout).toContain('host type "localhost":');
    expect(result.stdout).toContain('host type "test type":');
    expect(result.stdout).toContain('global metrics:');
    expect(result.stdout).toMatch(
      /^ {2}xmppMessageSent\/count +\d+ +\d+ +agree$/m
    );
    expect(result.stdout).toMatch(
      /^ {2}sessionCount\/value +\d+ +\d+ +agree$/m
    );
    expect(result.stdout).toContain('all compared keys agree');
  }, 30_000);

  it('should compare only the host types given, in JSON with --json', async () => {
    const result = await runBuilt([
      'compare',
      '--legacy',
      demo!.legacy,
      '--prometheus',
      demo!.prometheus,
      '--host-type',
      'test_type',
      '--json',
    ]);
    expect({
      code: result.code,
      stderr: result.stderr,
      ...(result.code === 0 ? {} : { stdout: result.stdout }),
    }).toEqual({ code: 0, stderr: '' });
    const json = JSON.parse(result.stdout) as {
      groups: {
        group: string;
        keys: { metric: string; key: string; agree: unknown }[];
      }[];
      disagreements: number;
      tolerances: Record<string, string>;
    };
    expect(json.groups.map(g => g.group)).toEqual(['test type']);
    expect(json.disagreements).toBe(0);
    expect(Object.keys(json.tolerances).sort()).toEqual([
      'bucket',
      'exact',
      'none',
      'window',
    ]);
    expect(json.groups[0]!.keys).toContainEqual(
      expect.objectContaining({
        metric: 'xmppMessageSent',
        key: 'count',
        agree: true,
      })
    );
  }, 30_000);

  it('should exit 1 and name the metrics when the Prometheus side is another provider', async () => {
    // Both sides hold still, so that what differs is the provider, not the moment.
    await demo!.pause();
    await other!.pause();
    const result = await runBuilt([
      'compare',
      '--legacy',
      demo!.legacy,
      '--prometheus',
      other!.prometheus,
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 1,
      stderr: '',
    });
    const summary = result.stdout.trim().split('\n').at(-1)!;
    // The summary names the first twenty, by host type and metric, then how many more.
    expect(summary).toMatch(
      /^\d+ keys disagree: localhost: [^,]+(, [^,]+){19} and \d+ more$/
    );
    expect(result.stdout).toMatch(
      /^ {2}xmppMessageSent\/count +\d+ +\d+ +DISAGREE$/m
    );
  }, 30_000);
});
