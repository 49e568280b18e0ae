import { runCli } from '../../src/cli/runCli';
import { startLiveDemo } from './liveDemo';

it('scratch', async () => {
  const demo = await startLiveDemo();
  try {
    await new Promise(r => setTimeout(r, 2500));
    const out: string[] = [];
    const code = await runCli(
      [
        'migrate',
        'examples/collectd.conf',
        '--server',
        demo.legacy,
        '--prometheus',
        demo.prometheus,
      ],
      l => out.push(l),
      l => out.push(l)
    );
    console.log(code, out.join('\n'));
    const out2: string[] = [];
    const code2 = await runCli(
      ['compare', '--legacy', demo.legacy, '--prometheus', demo.prometheus],
      l => out2.push(l),
      l => out2.push(l)
    );
    console.log(code2, out2.join('\n'));
  } finally {
    await demo.close();
  }
}, 30000);
