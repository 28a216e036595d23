import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem, release, platform } from 'node:os';

/** The machine a run measured on: the numbers mean little without it. */
export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  kubectl: string | null;
  /** 1-minute load average at the start: other work on the machine slows every figure. */
  loadAverageAtStart: number;
}

export function describeMachine(kubectl: string | null): Machine {
  let kubectlVersion: string | null = null;
  if (kubectl) {
    try {
      kubectlVersion =
        /v\d+\.\d+\.\d+/.exec(execFileSync(kubectl, ['version', '--client'], { encoding: 'utf8', timeout: 10_000 }))?.[0] ?? 'unknown';
    } catch {
      kubectlVersion = 'unknown';
    }
  }
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
    kubectl: kubectlVersion,
    loadAverageAtStart: Math.round(loadavg()[0] * 100) / 100,
  };
}

/**
 * The 1-minute load average sampled every 15 s while the benches run: a figure taken while other work loaded the
 * machine is slower than the code is, and the summary line says so.
 */
export function loadSampler(everyMs = 15_000): { stop: () => void; summary: () => { max: number; end: number } } {
  const round = (x: number): number => Math.round(x * 100) / 100;
  let max = loadavg()[0];
  const timer = setInterval(() => {
    max = Math.max(max, loadavg()[0]);
  }, everyMs);
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    summary: () => {
      const end = loadavg()[0];
      return { max: round(Math.max(max, end)), end: round(end) };
    },
  };
}
