import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { LEDGER_METRICS } from './ledger-metrics.js';

/*
 * deploy/prometheus/rules.yaml and deploy/grafana/nodepool-ledger.json name only metrics /metrics exposes, with labels
 * those metrics carry: a metric renamed or a label dropped in server/metrics/ledger-metrics.ts turns this red.
 * (test/contract/prometheus-metrics.test.ts checks the endpoint exposes every metric of LEDGER_METRICS.)
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const LABELS = new Map<string, readonly string[]>(Object.values(LEDGER_METRICS).map((m) => [m.name, m.labelNames]));

/** What is wrong with one PromQL expression: metrics not exposed, labels no named metric carries. */
function problems(expr: string): string[] {
  const out: string[] = [];
  const named = [...expr.matchAll(/\b(nodepool_ledger_[a-z0-9_]+)\b(\{[^}]*\})?/g)];
  if (named.length === 0) out.push(`names no nodepool_ledger_ metric: ${expr}`);
  const carried = new Set<string>();
  for (const [, name, selector] of named) {
    const labels = LABELS.get(name);
    if (labels === undefined) {
      out.push(`${name} is not exposed`);
      continue;
    }
    for (const l of labels) carried.add(l);
    for (const [, label] of (selector ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)) {
      if (!labels.includes(label)) out.push(`${name} has no label ${label}`);
    }
  }
  for (const [, list] of expr.matchAll(/\b(?:by|on|without|ignoring)\s*\(([^)]*)\)/g)) {
    for (const label of list
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      if (!carried.has(label)) out.push(`no metric of the expression carries ${label}`);
    }
  }
  return out;
}

interface Rule {
  alert?: string;
  expr?: string;
  for?: string;
  annotations?: { summary?: string; description?: string };
}

const rules = parse(readFileSync(join(ROOT, 'deploy/prometheus/rules.yaml'), 'utf8')) as {
  apiVersion: string;
  kind: string;
  spec: { groups: { name: string; rules: Rule[] }[] };
};
const allRules = rules.spec.groups.flatMap((g) => g.rules);

interface Panel {
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: { expr: string }[];
}
const dashboard = JSON.parse(readFileSync(join(ROOT, 'deploy/grafana/nodepool-ledger.json'), 'utf8')) as {
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: unknown; definition?: string }[] };
};
const queryPanels = dashboard.panels.filter((p) => p.type !== 'row');

describe('the expression check', () => {
  it('catches a metric not exposed, a label it does not carry and a grouping by a label none carries', () => {
    expect(problems('nodepool_ledger_cost_per_hour > 1')).toEqual(['nodepool_ledger_cost_per_hour is not exposed']);
    expect(problems('nodepool_ledger_idle_cost_per_hour{resource="cpu"}')).toEqual([
      'nodepool_ledger_idle_cost_per_hour has no label resource',
    ]);
    expect(problems('sum by (zone) (nodepool_ledger_nodes)')).toEqual(['no metric of the expression carries zone']);
    expect(problems('up == 0')).toEqual(['names no nodepool_ledger_ metric: up == 0']);
    expect(problems('sum by (nodepool) (nodepool_ledger_nodes{capacity_type="spot"})')).toEqual([]);
  });
});

describe('deploy/prometheus/rules.yaml', () => {
  it('is a PrometheusRule with alerts', () => {
    expect(rules.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(rules.kind).toBe('PrometheusRule');
    expect(allRules.map((r) => r.alert)).toEqual(
      expect.arrayContaining(['NodePoolLedgerCollectorStale', 'NodePoolIdleShareHigh', 'NodePoolSpotShareFell']),
    );
  });

  it('names in every expression only metrics /metrics exposes, with labels they carry', () => {
    expect(allRules.flatMap((r) => problems(r.expr ?? '').map((p) => `${r.alert}: ${p}`))).toEqual([]);
  });

  it('gives every alert a hold time and a summary and description, each a sentence', () => {
    for (const r of allRules) {
      expect({ alert: r.alert, for: /^\d+[smh]$/.test(r.for ?? '') }).toEqual({ alert: r.alert, for: true });
      for (const text of [r.annotations?.summary, r.annotations?.description]) {
        expect({ alert: r.alert, sentence: /^\S.*\.$/s.test(text ?? '') }).toEqual({ alert: r.alert, sentence: true });
      }
    }
  });
});

describe('deploy/grafana/nodepool-ledger.json', () => {
  it('has a Prometheus datasource variable and a NodePool variable from an exposed label', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const vars = new Map(dashboard.templating.list.map((v) => [v.name, v]));
    expect(vars.get('datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    const nodepool = vars.get('nodepool');
    expect(nodepool?.type).toBe('query');
    const m = /^label_values\((\w+), nodepool\)$/.exec(nodepool?.definition ?? '');
    expect(LABELS.get(m?.[1] ?? '')).toContain('nodepool');
  });

  it('has the panels the issue asks for, every one on the ${datasource} variable', () => {
    expect(queryPanels.map((p) => p.title)).toEqual(
      expect.arrayContaining([
        'Cost per hour by NodePool',
        'Packing per resource',
        'Idle cost per hour',
        'Spot savings per hour',
        'Snapshot age',
        'Last run per kind',
      ]),
    );
    for (const p of queryPanels) expect({ panel: p.title, uid: p.datasource?.uid }).toEqual({ panel: p.title, uid: '${datasource}' });
  });

  it('names in every target only metrics /metrics exposes, with labels they carry', () => {
    const targets = queryPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
    expect(targets.length).toBeGreaterThanOrEqual(queryPanels.length);
    expect(targets.flatMap((t) => problems(t.expr).map((p) => `${t.panel}: ${p}`))).toEqual([]);
  });
});
