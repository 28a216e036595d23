import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { EXPORT_TABLES } from '../../cli/export-tables.js';
import { parseS3Destination, partitionKey } from '../../collectors/org/s3-layout.js';
import { ORG_TABLES } from '../../sandbox/serve/org-endpoints.js';

/*
 * What a platform team applies for the organisation on Athena, parsed and checked for least privilege:
 * - per cluster (deploy/org/cluster): deploy/kubernetes (collector, dashboard, the ledger's claim) plus an hourly
 *   export CronJob on the ledger's claim, under its own service account whose role (deploy/athena/export-role-*.json)
 *   may put objects only in this cluster's partitions of the export prefix, and be assumed only by that account;
 * - for the org (deploy/athena): the tables, and serve --org's role, which writes nothing but query results.
 * The S3 keys are the ones `export` makes (collectors/org/s3-layout.ts), matched with IAM's wildcard rules; what the
 * export and serve --org send at run time is checked against the same files in test/e2e/org-athena*.test.ts.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLUSTER_DIR = join(ROOT, 'deploy', 'org', 'cluster');

interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [k: string]: unknown;
}
interface Container {
  name: string;
  args?: string[];
  command?: string[];
  env?: { name: string; value?: string }[];
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    privileged?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
  volumeMounts?: { name: string; mountPath: string }[];
  resources?: { limits?: Record<string, string> };
}
interface PodSpec {
  serviceAccountName: string;
  securityContext: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
  affinity?: {
    podAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: { labelSelector: { matchLabels: Record<string, string> }; topologyKey: string }[];
    };
  };
  containers: Container[];
  volumes: { name: string; persistentVolumeClaim?: { claimName: string }; emptyDir?: unknown; hostPath?: unknown }[];
}
interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource?: string | string[];
  Principal?: Record<string, string>;
  Condition?: Record<string, Record<string, string | string[]>>;
}

const yamlObjects = (dir: string): Obj[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((f) =>
      parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => {
        if (d.errors.length > 0) throw new Error(`${f}: ${d.errors[0].message}`);
        return d.toJS() as Obj;
      }),
    );
const clusterObjects = yamlObjects(CLUSTER_DIR);
const baseObjects = yamlObjects(join(ROOT, 'deploy', 'kubernetes'));
const json = (name: string): { Statement: Statement[] } => JSON.parse(readFileSync(join(ROOT, 'deploy', 'athena', name), 'utf8'));
const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

const cronJob = () => {
  const found = clusterObjects.filter((o) => o.kind === 'CronJob');
  expect(found).toHaveLength(1);
  return found[0] as Obj & { spec: { concurrencyPolicy: string; jobTemplate: { spec: { template: { spec: PodSpec } } } } };
};
const exportPod = (): PodSpec => cronJob().spec.jobTemplate.spec.template.spec;
const collectorPod = (): PodSpec & { labels: Record<string, string> } => {
  const d = baseObjects.find((o) => o.kind === 'Deployment') as Obj & {
    spec: { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } };
  };
  return { ...d.spec.template.spec, labels: d.spec.template.metadata.labels };
};
const argv = (c: Container): string => [...(c.command ?? []), ...(c.args ?? [])].join(' ');
const envOf = (c: Container, name: string): string | undefined => c.env?.find((e) => e.name === name)?.value;

/** IAM's wildcard match of an ARN pattern (`*`: any run of characters, `/` included; `?`: one). */
const iamMatches = (pattern: string, arn: string): boolean =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  ).test(arn);
/** The policy with its placeholders filled in. */
const filled = (s: Statement, values: Record<string, string>): string[] =>
  list(s.Resource).map((r) => r.replace(/__([A-Z_]+)__/g, (m: string, k: string) => values[k] ?? m));

describe('deploy/org/cluster: the collector and its export CronJob, per cluster', () => {
  it('builds on deploy/kubernetes and lists every manifest of the folder', () => {
    const k = parseAllDocuments(readFileSync(join(CLUSTER_DIR, 'kustomization.yaml'), 'utf8'))[0].toJS() as { resources: string[] };
    const files = readdirSync(CLUSTER_DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...k.resources].sort()).toEqual(['../../kubernetes', ...files].sort());
    for (const o of clusterObjects) expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe('nodepool-ledger');
  });

  it("exports the collector's ledger (same --db, same claim) on the collector's node: the claim is ReadWriteOnce", () => {
    const pod = exportPod();
    const collector = collectorPod();
    const [c] = pod.containers;
    expect(pod.containers).toHaveLength(1);
    expect(argv(c)).toMatch(/^export --to \$\(EXPORT_TO\) --cluster \$\(CLUSTER_NAME\) --db (\S+)$/);
    const db = /--db (\S+)/.exec(argv(c))?.[1];
    const collectorArgs = argv(collector.containers.find((x) => x.name === 'collector') as Container);
    expect(/--db (\S+)/.exec(collectorArgs)?.[1]).toBe(db);
    const mount = c.volumeMounts?.find((m) => db?.startsWith(`${m.mountPath}/`));
    const claim = pod.volumes.find((v) => v.name === mount?.name)?.persistentVolumeClaim?.claimName;
    expect(claim).toBe(collector.volumes.find((v) => v.persistentVolumeClaim !== undefined)?.persistentVolumeClaim?.claimName);
    const pvc = baseObjects.find((o) => o.kind === 'PersistentVolumeClaim') as Obj & { spec: { accessModes: string[] } };
    expect(pvc.spec.accessModes).toEqual(['ReadWriteOnce']);
    const [affinity] = pod.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
    expect(affinity?.topologyKey).toBe('kubernetes.io/hostname');
    expect(collector.labels).toEqual(expect.objectContaining(affinity?.labelSelector.matchLabels));
    // The destination parses as export's --to does, and the cluster is the collector's.
    expect(() => parseS3Destination(envOf(c, 'EXPORT_TO') ?? '')).not.toThrow();
    expect(envOf(c, 'CLUSTER_NAME')).toBe(envOf(collector.containers[0], 'CLUSTER_NAME'));
    // One run at a time: a slow run is not overtaken by the next hour's.
    expect(cronJob().spec.concurrencyPolicy).toBe('Forbid');
  });

  it("runs under its own service account, not the collector's, non-root on a read-only root filesystem", () => {
    const pod = exportPod();
    expect(pod.serviceAccountName).not.toBe(collectorPod().serviceAccountName);
    expect(clusterObjects.filter((o) => o.kind === 'ServiceAccount').map((o) => o.metadata.name)).toEqual([pod.serviceAccountName]);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(pod.volumes.filter((v) => v.hostPath !== undefined)).toEqual([]);
    for (const c of pod.containers) {
      expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
      expect(c.securityContext?.privileged ?? false).toBe(false);
      expect(c.securityContext?.capabilities?.drop).toContain('ALL');
      expect(c.securityContext?.capabilities?.add ?? []).toEqual([]);
      expect(c.resources?.limits?.memory).toBeDefined();
      expect(pod.volumes.find((v) => v.name === c.volumeMounts?.find((m) => m.mountPath === '/tmp')?.name)?.emptyDir).toBeDefined();
    }
  });
});

describe("deploy/athena/export-role-*.json: the export's role, limited to its cluster's partitions of the prefix", () => {
  const dest = parseS3Destination('s3://my-ledger-bucket/ledger');
  const values = { BUCKET: dest.bucket, PREFIX: dest.prefix, CLUSTER: 'prod-eu' };
  const arn = (key: string) => `arn:aws:s3:::${dest.bucket}/${key}`;
  const allowed = (key: string): boolean =>
    json('export-role-policy.json').Statement.some(
      (s) => s.Effect === 'Allow' && list(s.Action).includes('s3:PutObject') && filled(s, values).some((r) => iamMatches(r, arn(key))),
    );

  it('is a valid policy that allows s3:PutObject only (the one call export makes), no Deny needed', () => {
    const policy = json('export-role-policy.json') as { Version?: string; Statement: Statement[] };
    expect(policy.Version).toBe('2012-10-17');
    expect([...new Set(policy.Statement.flatMap((s) => list(s.Action)))]).toEqual(['s3:PutObject']);
    expect(policy.Statement.every((s) => s.Effect === 'Allow')).toBe(true);
  });

  it("allows every key export writes for its cluster, and no other cluster's, table's or prefix's key", () => {
    for (const table of EXPORT_TABLES) expect(allowed(partitionKey(dest, table, 'prod-eu', '2026-11-02')), table).toBe(true);
    // Another cluster (its name a prefix of this one's, or this one's a prefix of it), a table Athena does not read, the bucket root.
    expect(allowed(partitionKey(dest, 'nodepool_hour', 'prod', '2026-11-02'))).toBe(false);
    expect(allowed(partitionKey(dest, 'nodepool_hour', 'prod-eu-2', '2026-11-02'))).toBe(false);
    expect(allowed(partitionKey(dest, 'secrets', 'prod-eu', '2026-11-02'))).toBe(false);
    expect(allowed(partitionKey(parseS3Destination('s3://my-ledger-bucket/other'), 'nodepool_hour', 'prod-eu', '2026-11-02'))).toBe(false);
    expect(allowed('athena-results/q.csv')).toBe(false);
    // The tables the policy names are the ones export writes and Athena reads.
    expect([...EXPORT_TABLES].sort()).toEqual([...ORG_TABLES].sort());
  });

  it('is assumed only by the export service account of the manifest, in its namespace (Pod Identity and IRSA)', () => {
    const sa = clusterObjects.find((o) => o.kind === 'ServiceAccount');
    const [pi] = json('export-role-trust-pod-identity.json').Statement;
    expect(pi.Principal).toEqual({ Service: 'pods.eks.amazonaws.com' });
    expect(list(pi.Action).sort()).toEqual(['sts:AssumeRole', 'sts:TagSession']);
    expect(pi.Condition?.StringEquals).toMatchObject({
      'aws:RequestTag/kubernetes-namespace': sa?.metadata.namespace,
      'aws:RequestTag/kubernetes-service-account': sa?.metadata.name,
      'aws:RequestTag/eks-cluster-name': '__CLUSTER__',
    });
    const [irsa] = json('export-role-trust-irsa.json').Statement;
    expect(list(irsa.Action)).toEqual(['sts:AssumeRoleWithWebIdentity']);
    expect(irsa.Condition?.StringEquals).toEqual({
      '__OIDC_PROVIDER__:aud': 'sts.amazonaws.com',
      '__OIDC_PROVIDER__:sub': `system:serviceaccount:${sa?.metadata.namespace}:${sa?.metadata.name}`,
    });
  });
});

describe("deploy/athena/org-read-role-policy.json: serve --org's role reads, and writes only query results", () => {
  const values = {
    BUCKET: 'my-ledger-bucket',
    PREFIX: 'ledger',
    RESULTS_PREFIX: 'athena-results',
    REGION: 'eu-west-1',
    ACCOUNT: '111122223333',
    WORKGROUP: 'primary',
  };
  const policy = json('org-read-role-policy.json');

  it('writes objects only under the results prefix, deletes nothing, changes no table', () => {
    const actions = policy.Statement.flatMap((s) => list(s.Action));
    expect(actions.filter((a) => /^s3:(Delete|PutBucket|PutObjectAcl)/.test(a) || /^glue:(Create|Update|Delete|Batch)/.test(a))).toEqual(
      [],
    );
    expect(actions.some((a) => a.includes('*'))).toBe(false);
    const writes = policy.Statement.filter((s) => list(s.Action).includes('s3:PutObject')).flatMap((s) => filled(s, values));
    expect(writes.length).toBeGreaterThan(0);
    for (const r of writes) expect(r.startsWith('arn:aws:s3:::my-ledger-bucket/athena-results/'), r).toBe(true);
    expect(
      writes.some((r) => iamMatches(r, 'arn:aws:s3:::my-ledger-bucket/ledger/table=nodepool_hour/cluster=a/day=2026-11-02/part-0.parquet')),
    ).toBe(false);
  });

  it('reads the export: every key export writes is readable', () => {
    const reads = policy.Statement.filter((s) => list(s.Action).includes('s3:GetObject')).flatMap((s) => filled(s, values));
    const dest = parseS3Destination('s3://my-ledger-bucket/ledger');
    for (const table of EXPORT_TABLES)
      expect(
        reads.some((r) => iamMatches(r, `arn:aws:s3:::my-ledger-bucket/${partitionKey(dest, table, 'staging', '2026-11-02')}`)),
        table,
      ).toBe(true);
  });
});
