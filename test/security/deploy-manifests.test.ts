import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { COLLECTOR_HEAP_MB } from '../../bench/watch-bench.js';

/*
 * The shipped Kubernetes manifests, parsed: a read-only ClusterRole, a Deployment that meets the "restricted" Pod
 * Security Standard with a read-only root filesystem and somewhere writable for the database, a ClusterIP Service,
 * and a dashboard that binds beyond loopback only with its access token from a Secret.
 */
const DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'deploy', 'kubernetes');

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [k: string]: unknown;
}
interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}
interface Container {
  name: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  ports?: { name?: string; containerPort: number }[];
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    runAsNonRoot?: boolean;
    privileged?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}
interface PodSpec {
  serviceAccountName: string;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  securityContext: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
  containers: Container[];
  initContainers?: Container[];
  volumes: { name: string; persistentVolumeClaim?: unknown; emptyDir?: unknown; hostPath?: unknown }[];
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));
const objects: Obj[] = files
  .filter((f) => f !== 'kustomization.yaml')
  .flatMap((f) =>
    parseAllDocuments(readFileSync(join(DIR, f), 'utf8')).map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${f}: ${doc.errors[0].message}`);
      return doc.toJS() as Obj;
    }),
  );
const one = (kind: string): Obj => {
  const found = objects.filter((o) => o.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0];
};
const deployment = () =>
  one('Deployment') as Obj & {
    spec: {
      replicas: number;
      selector: { matchLabels: Record<string, string> };
      template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    };
  };
const allContainers = (pod: PodSpec): Container[] => [...pod.containers, ...(pod.initContainers ?? [])];
const argv = (c: Container): string => [...(c.command ?? []), ...(c.args ?? [])].join(' ');

describe('deploy/kubernetes', () => {
  it('parses, and the kustomization lists every manifest', () => {
    const k = parseAllDocuments(readFileSync(join(DIR, 'kustomization.yaml'), 'utf8'))[0].toJS() as { resources: string[] };
    expect([...k.resources].sort()).toEqual(files.filter((f) => f !== 'kustomization.yaml').sort());
    for (const kind of ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Service']) one(kind);
  });

  it('puts every namespaced object in one namespace', () => {
    const ns = one('Namespace').metadata.name;
    for (const o of objects.filter((x) => !['Namespace', 'ClusterRole', 'ClusterRoleBinding'].includes(x.kind))) {
      expect({ kind: o.kind, namespace: o.metadata.namespace }).toEqual({ kind: o.kind, namespace: ns });
    }
  });

  it('grants only list/watch, on exactly the resources a snapshot reads (metrics.k8s.io: list)', () => {
    const role = one('ClusterRole') as Obj & { rules: Rule[] };
    const granted = new Set<string>();
    for (const rule of role.rules) {
      expect(
        rule.verbs.every((v) => ['list', 'watch'].includes(v)),
        `verbs ${rule.verbs.join(',')}`,
      ).toBe(true);
      expect([...rule.apiGroups, ...rule.resources, ...rule.verbs]).not.toContain('*');
      expect(rule.nonResourceURLs).toBeUndefined();
      for (const g of rule.apiGroups) for (const r of rule.resources) for (const v of rule.verbs) granted.add(`${g}/${r}:${v}`);
    }
    const needed = [
      ['', 'nodes'],
      ['', 'pods'],
      ['', 'namespaces'],
      ['', 'events'],
      ['karpenter.sh', 'nodepools'],
      ['karpenter.sh', 'nodeclaims'],
      // What Karpenter decides on beyond pods and nodes (issue 21/22): the what-if reads them back as Karpenter does.
      ['', 'persistentvolumeclaims'],
      ['', 'persistentvolumes'],
      ['apps', 'daemonsets'],
      ['policy', 'poddisruptionbudgets'],
      ['storage.k8s.io', 'storageclasses'],
      ['storage.k8s.io', 'csinodes'],
      ['karpenter.sh', 'nodeoverlays'],
      ['karpenter.k8s.aws', 'ec2nodeclasses'],
    ].flatMap(([g, r]) => ['list', 'watch'].map((v) => `${g}/${r}:${v}`));
    // Usage (metrics-server): listed with every snapshot, never watched (the resource metrics API has no watch).
    needed.push('metrics.k8s.io/pods:list', 'metrics.k8s.io/nodes:list');
    expect([...granted].sort()).toEqual(needed.sort());
  });

  it('binds the ClusterRole to the ServiceAccount the Deployment runs as', () => {
    const sa = one('ServiceAccount');
    const role = one('ClusterRole');
    const binding = one('ClusterRoleBinding') as Obj & {
      roleRef: { kind: string; name: string };
      subjects: { kind: string; name: string; namespace: string }[];
    };
    expect(binding.roleRef).toMatchObject({ kind: 'ClusterRole', name: role.metadata.name });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace }]);
    expect(deployment().spec.template.spec.serviceAccountName).toBe(sa.metadata.name);
  });

  it('runs every container non-root, without privilege escalation or capabilities, on a read-only root filesystem', () => {
    const d = deployment();
    const pod = d.spec.template.spec;
    expect(d.spec.replicas).toBe(1); // one collector per database
    expect(d.spec.selector.matchLabels).toEqual(expect.objectContaining(d.spec.template.metadata.labels));
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(pod.securityContext.seccompProfile?.type).toBe('RuntimeDefault');
    expect([pod.hostNetwork, pod.hostPID, pod.hostIPC]).toEqual([undefined, undefined, undefined]);
    expect(pod.volumes.filter((v) => v.hostPath !== undefined)).toEqual([]);
    for (const c of allContainers(pod)) {
      const sc = c.securityContext;
      expect({
        container: c.name,
        allowPrivilegeEscalation: sc?.allowPrivilegeEscalation,
        readOnlyRootFilesystem: sc?.readOnlyRootFilesystem,
        privileged: sc?.privileged ?? false,
      }).toEqual({ container: c.name, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, privileged: false });
      expect(sc?.capabilities?.drop).toContain('ALL');
      expect(sc?.capabilities?.add ?? []).toEqual([]);
      expect(c.resources?.limits?.memory, `${c.name} memory limit`).toBeDefined();
    }
  });

  it("caps the collector's V8 heap as the watch bench measured it, under its memory request with room for the rest of the process", () => {
    const collector = deployment().spec.template.spec.containers.find((c) => c.name === 'collector');
    const heapMb = Number(/--max-old-space-size=(\d+)/.exec(collector?.env?.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '')?.[1]);
    expect(heapMb).toBe(COLLECTOR_HEAP_MB);
    const mib = (q: string | undefined) => (q?.endsWith('Gi') ? Number(q.slice(0, -2)) * 1024 : Number(q?.replace(/Mi$/, '')));
    // The heap is not the whole RSS: Node itself, the modules, buffers and SQLite took ~200 MB more at the envelope.
    expect(mib(collector?.resources?.requests?.memory)).toBeGreaterThanOrEqual(heapMb + 150);
    expect(mib(collector?.resources?.limits?.memory)).toBeGreaterThan(mib(collector?.resources?.requests?.memory));
  });

  it('gives each container a writable volume for the database folder and /tmp, the database on a claim that survives restarts', () => {
    const pod = deployment().spec.template.spec;
    const volumes = new Map(pod.volumes.map((v) => [v.name, v]));
    for (const c of pod.containers) {
      const db = /--db\s+(\S+)/.exec(argv(c))?.[1];
      expect(db, `${c.name} --db`).toBeDefined();
      const dataMount = c.volumeMounts?.find((m) => db?.startsWith(`${m.mountPath}/`));
      expect(dataMount?.readOnly ?? false).toBe(false); // SQLite writes its -wal and -shm beside the file, even to read
      expect(volumes.get(dataMount?.name ?? '')?.persistentVolumeClaim).toBeDefined();
      const tmp = c.volumeMounts?.find((m) => m.mountPath === '/tmp');
      expect(volumes.get(tmp?.name ?? '')?.emptyDir).toBeDefined();
    }
    const claim = (volumes.get('data')?.persistentVolumeClaim as { claimName: string }).claimName;
    expect(objects.find((o) => o.kind === 'PersistentVolumeClaim')?.metadata.name).toBe(claim);
  });

  it('binds the dashboard beyond loopback only with an access token taken from a Secret', () => {
    const pod = deployment().spec.template.spec;
    const servers = pod.containers.filter((c) => / serve /.test(` ${argv(c)} `));
    expect(servers).toHaveLength(1);
    const dashboard = servers[0];
    expect(argv(dashboard)).toMatch(/--host 0\.0\.0\.0/);
    expect(argv(dashboard)).not.toMatch(/--token/); // never on the command line (it shows in ps and the pod spec)
    const token = dashboard.env?.find((e) => e.name === 'LEDGER_TOKEN');
    expect(token?.value).toBeUndefined();
    expect(token?.valueFrom?.secretKeyRef?.name).toBeTruthy();
    // The collector reads, it does not serve: it needs no token and no port.
    const collector = pod.containers.find((c) => / collect /.test(` ${argv(c)} `));
    expect(collector?.ports).toBeUndefined();
    expect(argv(collector ?? { name: '' })).toMatch(/--watch/);
  });

  it('exposes the dashboard on a ClusterIP Service pointing at the dashboard port', () => {
    const svc = one('Service') as Obj & {
      spec: { type: string; selector: Record<string, string>; ports: { port: number; targetPort: string | number }[] };
    };
    expect(svc.spec.type).toBe('ClusterIP');
    expect(deployment().spec.template.metadata.labels).toEqual(expect.objectContaining(svc.spec.selector));
    const portNames = deployment()
      .spec.template.spec.containers.flatMap((c) => c.ports ?? [])
      .map((p) => p.name);
    for (const p of svc.spec.ports) expect(portNames).toContain(p.targetPort);
  });
});
