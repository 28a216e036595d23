import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { stringify } from 'yaml';
import { cliProcess } from '../test/reliability/fixtures/cli.js';
import { GETTING_STARTED_LIST_YAML, INFLATE_DEPLOYMENT_YAML, ZONE_SPREAD_DEPLOYMENT_YAML } from '../test/fixtures/kubectl-objects.js';

/**
 * `simulate` as real processes (the other cases run through main() in simulate.test.ts): objects piped on stdin with
 * `--objects -`, with --json the JSON the only thing on stdout, and two processes given the same input printing the
 * same bytes (nothing the engine caches or orders by memory address leaks into its answer).
 */

function runCli(args: string[], stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const cli = cliProcess();
    const child = spawn(process.execPath, [...cli.argv, ...args], { env: cli.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

it('simulate --objects - --json as two processes: stdout is exactly one JSON document, the same bytes from both, exit 0 with a pod unschedulable', async () => {
  const huge = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'huge', namespace: 'default' },
    spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1000' } } }] },
  };
  // zone spread as well: its domains are chosen among equal ones by name, not by whatever order a process met them
  const input = `${GETTING_STARTED_LIST_YAML}---\n${INFLATE_DEPLOYMENT_YAML}---\n${ZONE_SPREAD_DEPLOYMENT_YAML}---\n${stringify(huge)}`;
  const args = ['simulate', '--objects', '-', '--region', 'us-east-1', '--now', '2026-12-03T12:00:00Z', '--json'];
  const [r, again] = await Promise.all([runCli(args, input), runCli(args, input)]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as {
    provisioning: { nodeClaims: { pods: string[] }[]; unschedulable: { pod: string }[] };
    input: { now: string };
  };
  // inflate's 5 pods and the zone-spread Deployment's 6
  expect(out.provisioning.nodeClaims.flatMap((nc) => nc.pods)).toHaveLength(11);
  expect(out.provisioning.unschedulable.map((u) => u.pod)).toEqual(['default/huge']);
  expect(out.input.now).toBe('2026-12-03T12:00:00.000Z');
  // nothing before or after the document but its final newline
  expect(r.stdout.startsWith('{')).toBe(true);
  expect(r.stdout.endsWith('}\n')).toBe(true);
  expect([again.code, again.stderr]).toEqual([0, '']);
  expect(again.stdout).toBe(r.stdout);
});
