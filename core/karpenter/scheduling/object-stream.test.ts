import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { node, NODEPOOL } from '../../../test/fixtures/karpenter-objects.js';
import { GETTING_STARTED_LIST_YAML, INFLATE_DEPLOYMENT_YAML, ZONE_SPREAD_DEPLOYMENT_YAML } from '../../../test/fixtures/kubectl-objects.js';
import { EngineInputError } from './errors.js';
import { ObjectStreamError, parseObjectStream } from './object-stream.js';

const names = (pods: { metadata: { namespace?: string; name: string } }[]) =>
  pods.map((p) => `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`);

const pod = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'shop', ...extra },
  spec: { containers: [{ name: 'c', resources: { requests: { cpu: '250m' } } }] },
});

const deployment = (name: string, replicas: number | undefined, ns = 'shop') => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: ns },
  spec: {
    ...(replicas === undefined ? {} : { replicas }),
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } },
  },
});

const yamlStream = (...objs: unknown[]) => objs.map((o) => stringify(o)).join('---\n');

describe('parseObjectStream: the stream forms kubectl prints', () => {
  it('a Deployment read back with kubectl get -o yaml (Karpenter examples/workloads/inflate.yaml) → 5 pending pods from its template', () => {
    const s = parseObjectStream(INFLATE_DEPLOYMENT_YAML, 'inflate.yaml');
    expect(names(s.pods)).toEqual([
      'default/inflate-0',
      'default/inflate-1',
      'default/inflate-2',
      'default/inflate-3',
      'default/inflate-4',
    ]);
    const p = s.pods[0];
    expect(p.spec.nodeName).toBeUndefined();
    expect(p.status?.phase).toBe('Pending');
    expect(p.metadata.labels).toEqual({ app: 'inflate' });
    expect(p.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'inflate', controller: true }]);
    expect(p.spec.containers[0].resources?.requests).toEqual({ cpu: '1', memory: '256M' });
    expect(s.expanded).toEqual([{ workload: 'Deployment default/inflate', replicas: 5, existing: 0, pods: names(s.pods) }]);
    expect(s.daemonSetPods).toBeUndefined();
  });

  it('a kind: List of a NodePool and an EC2NodeClass (getting-started step 12) → both read, nothing ignored', () => {
    const s = parseObjectStream(GETTING_STARTED_LIST_YAML, 'pools.yaml');
    expect(s.nodePools.map((n) => n.metadata.name)).toEqual(['default']);
    expect(s.nodePools[0].spec.limits).toEqual({ cpu: 1000 });
    expect(s.nodeClasses.map((n) => n.metadata.name)).toEqual(['default']);
    expect(s.ignored).toEqual([]);
  });

  it('multi-document YAML mixing a List, workloads and objects; empty documents and comments skipped', () => {
    const text = `# taken with kubectl get -o yaml\n---\n${GETTING_STARTED_LIST_YAML}---\n---\n${ZONE_SPREAD_DEPLOYMENT_YAML}---\n${stringify(node(NODE))}`;
    const s = parseObjectStream(text, 'all.yaml');
    expect(s.nodePools).toHaveLength(1);
    expect(s.pods).toHaveLength(6);
    expect(s.pods[0].spec.topologySpreadConstraints?.[0].topologyKey).toBe('topology.kubernetes.io/zone');
    expect(s.nodes.map((n) => n.metadata.name)).toEqual([NODE.nodeName]);
    expect(s.nodes[0].status?.allocatable).toEqual({ cpu: '7910m', 'ephemeral-storage': '17Gi', memory: '14162Mi', pods: '58' });
  });

  it('JSON as kubectl get -o json prints it (a List), and a bare JSON array', () => {
    const list = { apiVersion: 'v1', kind: 'List', items: [NODEPOOL, node(NODE)], metadata: { resourceVersion: '' } };
    const fromList = parseObjectStream(JSON.stringify(list, null, 2), 'x.json');
    expect(fromList.nodePools.map((n) => n.metadata.name)).toEqual(['default']);
    expect(fromList.nodes).toHaveLength(1);
    const fromArray = parseObjectStream(JSON.stringify([NODEPOOL, pod('a')]), 'x.json');
    expect(names(fromArray.pods)).toEqual(['shop/a']);
  });

  it('a typed list straight from the API (PodList: items without kind/apiVersion) takes its kind from the list', () => {
    const { kind: _k, apiVersion: _a, ...bare } = pod('a');
    const s = parseObjectStream(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', items: [bare] }), 'pods.json');
    expect(names(s.pods)).toEqual(['shop/a']);
  });

  it('Namespaces, PodDisruptionBudgets and the ignored kinds', () => {
    const s = parseObjectStream(
      yamlStream(
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { team: 'a' } } },
        { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: 'shop' }, spec: { maxUnavailable: 0 } },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: {} },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'shop' }, data: {} },
        { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'default-x9wxq' }, spec: {} },
      ),
      's.yaml',
    );
    expect(s.namespaces).toEqual([{ metadata: { name: 'shop', labels: { team: 'a' } } }]);
    expect(s.podDisruptionBudgets.map((p) => p.metadata.name)).toEqual(['web']);
    expect(s.ignored.map((i) => `${i.at}: ${i.kind} ${i.name}`)).toEqual([
      's.yaml document 3: Service web',
      's.yaml document 4: ConfigMap cfg',
      's.yaml document 5: NodeClaim default-x9wxq',
    ]);
  });

  it('an empty stream and a comment-only one give nothing, not an error', () => {
    for (const text of ['', '# nothing here\n', '---\n']) {
      const s = parseObjectStream(text, 'e.yaml');
      expect([s.nodePools, s.pods, s.nodes, s.ignored]).toEqual([[], [], [], []]);
    }
  });
});

const NODE = {
  name: 'default-x9wxq',
  nodeName: 'ip-10-0-71-87.us-west-2.compute.internal',
  instanceId: 'i-01234567890123',
  instanceType: 'c5a.2xlarge',
  capacityType: 'spot' as const,
  zone: 'us-west-2c',
  created: '2024-08-07T05:37:30Z',
};

describe('parseObjectStream: workloads become the pods their controller would create', () => {
  it.each([
    // [workload, pods expected]
    ['Deployment, replicas 3', deployment('web', 3), ['shop/web-0', 'shop/web-1', 'shop/web-2']],
    ['Deployment, replicas left out (the API defaults it to 1)', deployment('web', undefined), ['shop/web-0']],
    ['Deployment, replicas 0', deployment('web', 0), []],
    ['StatefulSet, replicas 2 (ordinals from 0)', { ...deployment('db', 2), kind: 'StatefulSet' }, ['shop/db-0', 'shop/db-1']],
    ['ReplicaSet with no owner, replicas 2', { ...deployment('rs', 2), kind: 'ReplicaSet' }, ['shop/rs-0', 'shop/rs-1']],
    [
      'Job, parallelism 3 of 10 completions',
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'j', namespace: 'shop' },
        spec: { parallelism: 3, completions: 10, template: deployment('j', 1).spec.template },
      },
      ['shop/j-0', 'shop/j-1', 'shop/j-2'],
    ],
    [
      'Job with 9 of 10 completions done: 1 more pod',
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'j', namespace: 'shop' },
        spec: { parallelism: 3, completions: 10, template: deployment('j', 1).spec.template },
        status: { succeeded: 9 },
      },
      ['shop/j-0'],
    ],
    [
      'Job already Complete: none',
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'j', namespace: 'shop' },
        spec: { template: deployment('j', 1).spec.template },
        status: { conditions: [{ type: 'Complete', status: 'True' }] },
      },
      [],
    ],
  ])('%s', (_name, obj, expected) => {
    expect(names(parseObjectStream(yamlStream(obj), 'w.yaml').pods)).toEqual(expected);
  });

  it('pods already in the stream count against replicas: a Deployment, its ReplicaSet and 2 running pods of 3 → 1 more', () => {
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: 'web-7d4b9c',
        namespace: 'shop',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', controller: true }],
      },
      spec: { replicas: 3, template: deployment('web', 3).spec.template },
    };
    const owned = (name: string) =>
      pod(name, {
        labels: { app: 'web', 'pod-template-hash': '7d4b9c' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d4b9c', controller: true }],
      });
    const s = parseObjectStream(yamlStream(deployment('web', 3), rs, owned('web-7d4b9c-abcde'), owned('web-7d4b9c-fghij')), 'live.yaml');
    expect(names(s.pods)).toEqual(['shop/web-7d4b9c-abcde', 'shop/web-7d4b9c-fghij', 'shop/web-0']);
    expect(s.expanded).toEqual([{ workload: 'Deployment shop/web', replicas: 3, existing: 2, pods: ['shop/web-0'] }]);
    // without the ReplicaSet in the stream, the pod-template-hash ties the pods to the Deployment all the same
    const noRs = parseObjectStream(yamlStream(deployment('web', 3), owned('web-7d4b9c-abcde'), owned('web-7d4b9c-fghij')), 'live.yaml');
    expect(noRs.expanded[0].existing).toBe(2);
  });

  it('a StatefulSet with db-0 running makes db-1 only; finished pods do not count', () => {
    const owner = { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', controller: true }] };
    const done = { ...pod('db-1', owner), status: { phase: 'Failed' } };
    const s = parseObjectStream(yamlStream({ ...deployment('db', 3), kind: 'StatefulSet' }, pod('db-0', owner), done), 'x.yaml');
    // db-1's name is taken by the failed pod, so the new pods take the next free names
    expect(s.expanded[0]).toEqual({ workload: 'StatefulSet shop/db', replicas: 3, existing: 1, pods: ['shop/db-2', 'shop/db-3'] });
  });

  it('DaemonSets: their templates, plus one running pod for a DaemonSet seen only through its pods', () => {
    const ds = { ...deployment('agent', undefined, 'kube-system'), kind: 'DaemonSet' };
    const other = {
      ...pod('proxy-abcde', { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'kube-proxy', controller: true }] }),
      spec: { nodeName: 'n1', containers: [{ name: 'c' }] },
    };
    const s = parseObjectStream(yamlStream(ds, other), 'ds.yaml');
    expect(names(s.daemonSetPods ?? [])).toEqual(['kube-system/agent-template', 'shop/proxy-abcde']);
    expect(s.daemonSetPods?.[0].metadata.ownerReferences?.[0].kind).toBe('DaemonSet');
    expect(names(s.pods)).toEqual(['shop/proxy-abcde']);
  });
});

describe('parseObjectStream: bad input names the document and the object', () => {
  it.each([
    [
      'YAML that does not parse, with its line',
      'kind: Pod\nmetadata: {name: a\n',
      /^bad\.yaml document 1: not valid YAML or JSON at line \d+, column \d+: /,
    ],
    [
      'a later document that does not parse',
      `${stringify(pod('a'))}---\nkind: [\n`,
      /^bad\.yaml document 2: not valid YAML or JSON at line \d+/,
    ],
    ['JSON with a missing brace', '{"kind": "Pod", "metadata": {"name": "a"}', /^bad\.yaml document 1: not valid YAML or JSON/],
    ['an object without kind', stringify({ apiVersion: 'v1', metadata: { name: 'a' } }), /^bad\.yaml document 1 \(a\): has no kind$/],
    [
      'an object without metadata.name',
      stringify({ apiVersion: 'v1', kind: 'Pod', metadata: {} }),
      /^bad\.yaml document 1 \(Pod\): has no metadata\.name$/,
    ],
    ['a scalar document', 'just text\n', /^bad\.yaml document 1: is a string, not a Kubernetes object$/],
    [
      'a NodePool of the beta API',
      stringify({ ...NODEPOOL, apiVersion: 'karpenter.sh/v1beta1' }),
      /^bad\.yaml document 1 \(NodePool default\): apiVersion "karpenter\.sh\/v1beta1" is not one the simulator reads for a NodePool \(it reads karpenter\.sh\/v1\)$/,
    ],
    [
      'a PodDisruptionBudget of policy/v1beta1',
      stringify({ apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'p', namespace: 'shop' }, spec: {} }),
      /^bad\.yaml document 1 \(PodDisruptionBudget shop\/p\): apiVersion "policy\/v1beta1"/,
    ],
    [
      'a pre-v1 Provisioner',
      stringify({ apiVersion: 'karpenter.sh/v1alpha5', kind: 'Provisioner', metadata: { name: 'default' }, spec: {} }),
      /^bad\.yaml document 1 \(Provisioner default\): is the pre-v1 Karpenter API/,
    ],
    [
      'a Deployment without a template',
      stringify({ ...deployment('web', 1), spec: { replicas: 1 } }),
      /^bad\.yaml document 1 \(Deployment shop\/web\): spec\.template\.spec is missing$/,
    ],
    [
      'replicas that are not a count',
      stringify({ ...deployment('web', 1), spec: { ...deployment('web', 1).spec, replicas: 'three' } }),
      /^bad\.yaml document 1 \(Deployment shop\/web\): spec\.replicas "three" is not a whole number ≥ 0$/,
    ],
    [
      'a Pod without spec',
      stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' } }),
      /^bad\.yaml document 1 \(Pod default\/a\): spec is missing$/,
    ],
    [
      'a List item that is not an object',
      stringify({ apiVersion: 'v1', kind: 'List', items: [NODEPOOL, 'oops'] }),
      /^bad\.yaml document 1, item 2: is not a Kubernetes object/,
    ],
    ['a duplicate key', 'kind: Pod\nkind: Node\nmetadata: {name: a}\n', /^bad\.yaml document 1: not valid YAML or JSON at line 2/],
  ])('%s', (_name, text, message) => {
    let caught: unknown;
    try {
      parseObjectStream(text, 'bad.yaml');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ObjectStreamError);
    expect(caught).toBeInstanceOf(EngineInputError);
    expect((caught as Error).message).toMatch(message);
  });
});
