import { describe, expect, it } from 'vitest';
import { ClustersFileError, clustersOfContexts, parseClustersFile } from './clusters-file.js';

const problems = (text: string): readonly string[] => {
  try {
    parseClustersFile('clusters.yaml', text);
  } catch (err) {
    if (err instanceof ClustersFileError) return err.problems;
    throw err;
  }
  return [];
};

describe('--clusters FILE', () => {
  it('reads each cluster: context or in-cluster, region, account, profile or role, Prometheus', () => {
    const text = `
clusters:
  - name: week4
    context: week4
    region: us-west-2
    account: "111111111111"
    profile: prod
    prometheus: http://prometheus.monitoring:9090
  - name: staging
    inCluster: true
    region: eu-west-1
    roleArn: arn:aws:iam::222222222222:role/ledger-read
`;
    expect(parseClustersFile('clusters.yaml', text)).toEqual([
      {
        name: 'week4',
        context: 'week4',
        inCluster: false,
        region: 'us-west-2',
        account: '111111111111',
        profile: 'prod',
        roleArn: null,
        prometheusUrl: 'http://prometheus.monitoring:9090',
      },
      {
        name: 'staging',
        context: null,
        inCluster: true,
        region: 'eu-west-1',
        account: null,
        profile: null,
        roleArn: 'arn:aws:iam::222222222222:role/ledger-read',
        prometheusUrl: null,
      },
    ]);
  });

  it.each([
    ['no name', '- context: a', 'clusters[0]: name: the EKS cluster name is required'],
    ['neither context nor inCluster', '- name: a', 'clusters[0] (a): context: a kubeconfig context is required (or inCluster: true)'],
    ['both context and inCluster', '- {name: a, context: a, inCluster: true}', 'clusters[0] (a): context and inCluster: one or the other'],
    [
      'a bad region',
      '- {name: a, context: a, region: uswest2}',
      'clusters[0] (a): region: an AWS region name like us-west-2, got "uswest2"',
    ],
    ['an unquoted account that lost its zeros', '- {name: a, context: a, account: 012345678901}', ''],
    ['a short account', '- {name: a, context: a, account: "1234"}', 'clusters[0] (a): account: a 12-digit AWS account id'],
    [
      'profile and role together',
      '- {name: a, context: a, profile: p, roleArn: "arn:aws:iam::111111111111:role/r"}',
      'clusters[0] (a): profile and roleArn: one or the other',
    ],
    [
      'a role of another account',
      '- {name: a, context: a, account: "222222222222", roleArn: "arn:aws:iam::111111111111:role/r"}',
      "clusters[0] (a): roleArn: its account 111111111111 is not the entry's account 222222222222",
    ],
    ['a malformed role', '- {name: a, context: a, roleArn: "arn:aws:iam::1:user/r"}', 'clusters[0] (a): roleArn: an IAM role ARN'],
    [
      'a Prometheus that is not a URL',
      '- {name: a, context: a, prometheus: prometheus:9090}',
      'clusters[0] (a): prometheus: an http(s) URL',
    ],
    ['an unknown key', '- {name: a, context: a, kubeconfig: /x}', 'clusters[0] (a): unknown key "kubeconfig"'],
    ['a name Cost Explorer tags cannot match', '- {name: "a b", context: a}', 'clusters[0] (a b): name: "a b" is not an EKS cluster name'],
  ])('refuses %s, naming the entry', (_what, entry, problem) => {
    const found = problems(`clusters:\n  ${entry}\n`);
    // 012345678901 unquoted is the number 12345678901 to YAML: padded back to its 12 digits, it is accepted.
    if (problem === '') expect(found).toEqual([]);
    else expect(found).toEqual([expect.stringContaining(problem)]);
  });

  it('names every bad entry of a file, and the second of two with one name or context', () => {
    const text = `
clusters:
  - {name: week4, context: week4}
  - {name: week4, context: other}
  - {name: staging, context: week4}
  - {name: x}
  - {name: in1, inCluster: true}
  - {name: in2, inCluster: true}
`;
    expect(problems(text)).toEqual([
      'clusters[1] (week4): name: "week4" is clusters[0]\'s too',
      'clusters[2] (staging): context: "week4" is clusters[0]\'s too',
      'clusters[3] (x): context: a kubeconfig context is required (or inCluster: true)',
      "clusters[5] (in2): inCluster: only one cluster can be the collector's own (clusters[4] is)",
    ]);
  });

  it.each([
    ['not YAML', 'clusters: [a', 'bad YAML'],
    ['no clusters key', 'cluster: []', 'expected a mapping with one key, clusters'],
    ['an empty list', 'clusters: []', 'clusters: the list is empty'],
  ])('refuses a file with %s', (_what, text, problem) => {
    expect(problems(text)[0]).toContain(problem);
  });
});

describe('repeated --context', () => {
  it('names each cluster from its kubeconfig cluster, region and account from an EKS ARN', () => {
    const kube: Record<string, string> = {
      prod: 'arn:aws:eks:us-west-2:111111111111:cluster/week4',
      staging: 'staging',
    };
    expect(clustersOfContexts(['prod', 'staging'], (c) => kube[c] ?? c)).toEqual([
      {
        name: 'week4',
        context: 'prod',
        inCluster: false,
        region: 'us-west-2',
        account: '111111111111',
        profile: null,
        roleArn: null,
        prometheusUrl: null,
      },
      {
        name: 'staging',
        context: 'staging',
        inCluster: false,
        region: null,
        account: null,
        profile: null,
        roleArn: null,
        prometheusUrl: null,
      },
    ]);
  });

  it('refuses a context given twice', () => {
    expect(() => clustersOfContexts(['a', 'a'], (c) => c)).toThrow('--context a: given twice');
  });
});
