import { CostExplorerClient, ListCostAllocationTagsCommand } from '@aws-sdk/client-cost-explorer';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/nested-clients/sts';
import { afterEach, describe, expect, it } from 'vitest';
import { assumeRoleCredentials } from '../../collectors/aws/assume-role.js';
import { newContext, serveHandlers, type ServedHandlers } from '../../test/fixtures/serve-handlers.js';
import { TINY_END, tinyScenario } from '../../test/fixtures/tiny-scenario.js';
import { costExplorerHandler } from './cost-explorer.js';
import { stsHandler } from './sts.js';

/**
 * STS AssumeRole over its query protocol, through the real SDK client: a role of the simulated account gives session
 * keys Cost Explorer takes as that account's; a role of another account is refused (AccessDenied naming the role);
 * session keys the sandbox never issued, or sent without their token, are not known.
 */

let served: ServedHandlers | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const LONG_TERM = { accessKeyId: 'AKIASTSSOURCE0000001', secretAccessKey: 'source-secret-not-a-real-key' };
const ACCOUNT = tinyScenario().accountId;
const ROLE = `arn:aws:iam::${ACCOUNT}:role/ledger-read`;

async function account(): Promise<ServedHandlers> {
  served = await serveHandlers([stsHandler, costExplorerHandler], newContext(tinyScenario(), TINY_END));
  return served;
}
const sts = (url: string) => new STSClient({ region: 'us-east-1', endpoint: url, credentials: LONG_TERM });
const ce = (url: string, credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) =>
  new CostExplorerClient({ region: 'us-east-1', endpoint: url, credentials, maxAttempts: 1 });
const failure = async (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (e: Error) => `${e.name}: ${e.message}`,
  );

describe('sandbox STS AssumeRole', () => {
  it("issues session keys that Cost Explorer takes as the role's account", async () => {
    const { url, ctx } = await account();
    const client = sts(url);
    const out = await client.send(new AssumeRoleCommand({ RoleArn: ROLE, RoleSessionName: 'nodepool-ledger' }));
    client.destroy();
    const c = out.Credentials;
    expect(c?.AccessKeyId).toMatch(/^ASIA[A-Z2-7]{16}$/);
    expect(out.AssumedRoleUser?.Arn).toBe(`arn:aws:sts::${ACCOUNT}:assumed-role/ledger-read/nodepool-ledger`);
    const expiresMs = c?.Expiration?.getTime() ?? 0;
    expect(expiresMs - Date.now()).toBeGreaterThan(55 * 60_000);
    expect(expiresMs - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    const keys = { accessKeyId: c?.AccessKeyId ?? '', secretAccessKey: c?.SecretAccessKey ?? '', sessionToken: c?.SessionToken ?? '' };
    const reader = ce(url, keys);
    const tags = await reader.send(new ListCostAllocationTagsCommand({}));
    expect(tags.CostAllocationTags?.length).toBeGreaterThan(0);
    // The same keys without their session token, or keys never issued, are not the account's.
    expect(
      await failure(
        ce(url, { accessKeyId: keys.accessKeyId, secretAccessKey: keys.secretAccessKey }).send(new ListCostAllocationTagsCommand({})),
      ),
    ).toBe('UnrecognizedClientException: The security token included in the request is invalid.');
    expect(await failure(ce(url, { ...keys, accessKeyId: 'ASIAAAAAAAAAAAAAAAAA' }).send(new ListCostAllocationTagsCommand({})))).toMatch(
      /^UnrecognizedClientException/,
    );
    // Expired: refused as AWS refuses a lapsed session.
    const session = ctx.stsSessions?.get(keys.accessKeyId);
    if (session) session.expiresAtMs = Date.now() - 1;
    expect(await failure(reader.send(new ListCostAllocationTagsCommand({})))).toMatch(/^ExpiredTokenException/);
    reader.destroy();
  });

  it('refuses a role of an account it does not serve: AccessDenied naming the role', async () => {
    const { url } = await account();
    const client = sts(url);
    const other = 'arn:aws:iam::999999999999:role/ledger-read';
    expect(await failure(client.send(new AssumeRoleCommand({ RoleArn: other, RoleSessionName: 'nodepool-ledger' })))).toBe(
      `AccessDenied: User: arn:aws:iam::${ACCOUNT}:user/sandbox-ledger is not authorized to perform: sts:AssumeRole on resource: ${other}`,
    );
    client.destroy();
  });

  it('the ledger’s provider assumes the role once and again before the credentials expire', async () => {
    const { url, ctx } = await account();
    process.env.AWS_ENDPOINT_URL_STS = url;
    let nowMs = Date.now();
    const provider = assumeRoleCredentials({ roleArn: ROLE, region: 'us-east-1', now: () => nowMs });
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = LONG_TERM.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = LONG_TERM.secretAccessKey;
    try {
      // Requests waiting at once share one AssumeRole; later ones take the remembered credentials.
      const [first, alongside] = await Promise.all([provider(), provider()]);
      expect(alongside.accessKeyId).toBe(first.accessKeyId);
      expect((await provider()).accessKeyId).toBe(first.accessKeyId);
      expect(ctx.requestLog.filter((r) => r.operation === 'sts:AssumeRole')).toHaveLength(1);
      // Within five minutes of the expiration: a new session, before any request is signed with the old one.
      nowMs = first.expiration.getTime() - 4 * 60_000;
      const renewed = await provider();
      expect(renewed.accessKeyId).not.toBe(first.accessKeyId);
      expect(ctx.requestLog.filter((r) => r.operation === 'sts:AssumeRole')).toHaveLength(2);
      // A refusal names the role.
      const refused = assumeRoleCredentials({ roleArn: 'arn:aws:iam::999999999999:role/r', region: 'us-east-1' });
      expect(await failure(refused())).toMatch(/^AccessDenied: assuming role arn:aws:iam::999999999999:role\/r: User: /);
      refused.destroy();
    } finally {
      provider.destroy();
      delete process.env.AWS_ENDPOINT_URL_STS;
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    }
  });
});
