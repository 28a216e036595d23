import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';

/**
 * deploy/prometheus/rules.yaml through Prometheus' own checker. The file is a PrometheusRule (the Operator's CRD);
 * promtool reads plain rule files, so its `spec` (the `groups`) is what is checked. promtool comes from Debian's
 * prometheus package: .ci/run extracts /usr/bin/promtool from the .deb (dpkg-deb, no install: the package would
 * enable a Prometheus server daemon). Skipped without it (CI fails on a skip: LEDGER_EXPECT_NO_SKIPS).
 */
const PROMTOOL = process.env.LEDGER_PROMTOOL ?? ['/usr/local/bin/promtool', '/usr/bin/promtool'].find((p) => existsSync(p)) ?? '';
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'promtool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(PROMTOOL === '')('promtool check rules deploy/prometheus/rules.yaml (needs promtool from Debian prometheus)', () => {
  const rules = parse(readFileSync(new URL('../../deploy/prometheus/rules.yaml', import.meta.url), 'utf8')) as {
    spec: { groups: unknown[] };
  };

  it('passes: every expression parses, every rule is well-formed', async () => {
    const file = join(dir, 'rules.yaml');
    writeFileSync(file, stringify(rules.spec));
    const { stdout } = await run(PROMTOOL, ['check', 'rules', file]);
    expect(stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('fails a rule whose expression does not parse (the check can fail)', async () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(
      file,
      stringify({ groups: [{ name: 'x', rules: [{ alert: 'Broken', expr: 'sum by (nodepool (nodepool_ledger_nodes)' }] }] }),
    );
    await expect(run(PROMTOOL, ['check', 'rules', file])).rejects.toMatchObject({ code: 1 });
  });
});
