import { readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { runCollect } from '../cli/collect.js';
import { MINUTE_MS } from '../core/time.js';

/**
 * `collect --watch` as the Deployment runs it (runCollect: the watch cache, a snapshot with usage every interval,
 * the bill, prices, retention), against the sandbox of bench/sandbox-process.ts with its clock moving `--speed`
 * times faster than the wall clock, for `--minutes` simulated minutes. Its own process, so the CPU time, peak RSS
 * and bytes written it prints (one JSON line) are the collector's alone; CPU is counted from the first request to
 * the end, the start-up lists included (the clock stands still while they run).
 */

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    kubeconfig: { type: 'string' },
    db: { type: 'string' },
    cluster: { type: 'string' },
    region: { type: 'string', default: 'us-east-1' },
    'clock-ms': { type: 'string' },
    speed: { type: 'string', default: '60' },
    minutes: { type: 'string', default: '30' },
    'interval-minutes': { type: 'string', default: '5' },
    // One `collect` (no --watch) and exit: the database as a Deployment restarted on its volume finds it.
    once: { type: 'boolean', default: false },
  },
});

/** Bytes this process passed to write(2) and pwrite(2) (/proc/self/io wchar), and what reached the disk layer. */
function ioBytes(): { wchar: number; writeBytes: number } {
  const text = readFileSync('/proc/self/io', 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { wchar: field('wchar'), writeBytes: field('write_bytes') };
}

const fileBytes = (path: string): number => {
  let total = 0;
  for (const p of [path, `${path}-wal`])
    try {
      total += statSync(p).size;
    } catch {
      // not there (yet)
    }
  return total;
};

async function main(): Promise<void> {
  const { url, kubeconfig, db, cluster } = values;
  if (!url || !kubeconfig || !db || !cluster || !values['clock-ms'])
    throw new Error('usage: watch-process --url U --kubeconfig PATH --db PATH --cluster NAME --clock-ms T');
  const speed = Number(values.speed);
  const simMs = Number(values.minutes) * MINUTE_MS;
  const clockMs = Number(values['clock-ms']);
  for (const service of ['COST_EXPLORER', 'PRICING', 'EC2', 'S3', 'ATHENA']) process.env[`AWS_ENDPOINT_URL_${service}`] = url;
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: 'AKIASANDBOXEXAMPLE00',
    AWS_SECRET_ACCESS_KEY: 'sandbox-secret-not-a-real-key',
    AWS_REGION: values.region,
  });
  // The clock stands still while the watch cache lists everything (a real list pages through in seconds, well
  // inside the API server's five-minute continue window, which a clock running `speed` times faster would not be);
  // it starts moving when the collector says it is watching. From then on the sandbox clock and ours read the same
  // mapping of the wall clock.
  let realEpochMs: number | null = null;
  let clockStarted: Promise<void> = Promise.resolve();
  const startClock = (): void => {
    realEpochMs = Date.now();
    clockStarted = fetch(new URL('/bench/clock', url), { method: 'POST', body: JSON.stringify({ realEpochMs, speed }) }).then((res) => {
      if (res.status !== 204) throw new Error(`the sandbox did not start its clock (${res.status})`);
    });
  };
  if (values.once) {
    const s = await runCollect(
      {
        cluster,
        region: values.region,
        sinceMs: 90 * 24 * 60 * MINUTE_MS,
        watch: false,
        intervalMs: 5 * MINUTE_MS,
        kubeconfig,
        dbPath: db,
        quiet: true,
      },
      { now: () => clockMs, out: () => {}, err: () => {} },
    );
    console.log(JSON.stringify({ ok: s.ok, failures: s.failures, snapshots: s.snapshots, costLines: s.costLines }));
    return;
  }
  const now = () => (realEpochMs === null ? clockMs : Math.round(clockMs + (Date.now() - realEpochMs) * speed));
  const cpu0 = process.cpuUsage();
  const io0 = ioBytes();
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let startupCpuMs = 0;
  const snapshotsAt: number[] = [];
  const started = Date.now();
  // Where the peak is: RSS and heap sampled every 100 ms, each sample named by the phase it fell in (the start-up
  // lists, or the cycle after the n-th snapshot line), so that a fix can be aimed at what dominates.
  let phase = 'start-up';
  const peaks = new Map<string, { rssBytes: number; heapUsedBytes: number; externalBytes: number }>();
  const sample = (): void => {
    const m = process.memoryUsage();
    const p = peaks.get(phase) ?? { rssBytes: 0, heapUsedBytes: 0, externalBytes: 0 };
    peaks.set(phase, {
      rssBytes: Math.max(p.rssBytes, m.rss),
      heapUsedBytes: Math.max(p.heapUsedBytes, m.heapUsed),
      externalBytes: Math.max(p.externalBytes, m.external + m.arrayBuffers),
    });
  };
  // LEDGER_BENCH_HEAP_SNAPSHOT=FILE:MB writes one V8 heap snapshot to FILE the first time, after the start-up lists,
  // the heap's used size passes MB (bench/watch-heap-summary.ts sums it by constructor): what the peak holds.
  const [heapFile, heapMb] = (process.env.LEDGER_BENCH_HEAP_SNAPSHOT ?? '').split(':');
  let heapWritten = heapFile === undefined || heapFile === '';
  const sampleOrSnapshot = (): void => {
    sample();
    if (!heapWritten && phase !== 'start-up' && process.memoryUsage().heapUsed > Number(heapMb) * 1048576) {
      heapWritten = true;
      console.error(`heap snapshot: ${writeHeapSnapshot(heapFile)}`);
    }
  };
  const sampler = setInterval(sampleOrSnapshot, 100);
  // Every 5 s: [s since start, RSS MB, heap used MB], to see when in a cycle the peak falls.
  const series: number[][] = [];
  const seriesTimer = setInterval(() => {
    const m = process.memoryUsage();
    series.push([Math.round((Date.now() - started) / 1000), Math.round(m.rss / 1048576), Math.round(m.heapUsed / 1048576)]);
  }, 5000);
  const summary = await runCollect(
    {
      cluster,
      region: values.region,
      sinceMs: 90 * 24 * 60 * MINUTE_MS,
      watch: true,
      intervalMs: (Number(values['interval-minutes']) * MINUTE_MS) / speed,
      kubeconfig,
      dbPath: db,
      quiet: false,
    },
    {
      now,
      signal: stop.signal,
      out: () => {},
      err: (line) => {
        if (line.startsWith('watching ') && realEpochMs === null) {
          const c = process.cpuUsage(cpu0);
          startupCpuMs = (c.user + c.system) / 1000;
          startClock();
          timer = setTimeout(() => stop.abort(), simMs / speed);
          sample();
          phase = 'watching';
        } else if (line.startsWith('snapshot ')) {
          snapshotsAt.push(Date.now() - (realEpochMs ?? started));
          sample();
          phase = `after snapshot ${snapshotsAt.length}`;
        } else console.error(`[${Date.now() - started} ms] ${line}`);
      },
    },
  );
  clearTimeout(timer);
  clearInterval(sampler);
  clearInterval(seriesTimer);
  await clockStarted;
  const cpu = process.cpuUsage(cpu0);
  const io = ioBytes();
  if (realEpochMs === null) throw new Error(`collect --watch never started watching: ${summary.failures.join('; ')}`);
  const simulatedMs = (Date.now() - realEpochMs) * speed;
  console.log(
    JSON.stringify({
      ok: summary.ok,
      failures: summary.failures,
      snapshots: summary.snapshots,
      snapshotNodeRows: summary.snapshotNodeRows,
      kubeRequests: summary.kubeRequests,
      usagePods: summary.usage?.pods ?? 0,
      wallMs: Date.now() - started,
      startupWallMs: realEpochMs - started,
      startupCpuMs,
      simulatedMs,
      cpuMs: (cpu.user + cpu.system) / 1000,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      wcharBytes: io.wchar - io0.wchar,
      writeBytes: io.writeBytes - io0.writeBytes,
      fileBytes: fileBytes(db),
      snapshotsAtRealMs: snapshotsAt,
      memorySeries: series,
      peakMbByPhase: Object.fromEntries(
        [...peaks].map(([k, v]) => [
          k,
          {
            rss: Math.round(v.rssBytes / 1048576),
            heapUsed: Math.round(v.heapUsedBytes / 1048576),
            external: Math.round(v.externalBytes / 1048576),
          },
        ]),
      ),
    }),
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
});
