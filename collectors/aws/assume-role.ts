import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/nested-clients/sts';

/** Temporary credentials as the SDK clients take them (`credentials`); `expiration` lets them refresh in time. */
export interface RoleCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

export interface AssumeRoleOptions {
  /** arn:aws:iam::111111111111:role/ledger-read */
  roleArn: string;
  /** The region STS is asked in (its regional endpoint); AWS_ENDPOINT_URL_STS still overrides it. */
  region: string;
  /** The source credentials: a named profile, else the default chain (env, AWS_PROFILE, SSO, instance or pod role). */
  profile?: string;
  /** The machine's clock (the credentials' expiration is real time). */
  now?: () => number;
}

/** The session name CloudTrail shows for the ledger's reads. */
export const ROLE_SESSION_NAME = 'nodepool-ledger';
/** Credentials are renewed this long before they expire, so no request is signed with keys about to lapse. */
export const REFRESH_BEFORE_MS = 5 * 60_000;

/**
 * A credential provider for SDK clients: STS AssumeRole of `roleArn` with the source credentials, remembered until
 * REFRESH_BEFORE_MS before they expire, then asked again (one AssumeRole at a time however many requests wait). A
 * refusal names the role. `destroy` closes the STS client.
 */
export function assumeRoleCredentials(opts: AssumeRoleOptions): (() => Promise<RoleCredentials>) & { destroy(): void } {
  const now = opts.now ?? Date.now;
  let sts: STSClient | null = null;
  let current: RoleCredentials | null = null;
  let pending: Promise<RoleCredentials> | null = null;

  const assume = async (): Promise<RoleCredentials> => {
    // The nested STS client has no credential chain of its own: the source credentials are the default chain's
    // (the SDK clients' own), a named profile's when given.
    sts ??= new STSClient({
      region: opts.region,
      credentials: defaultProvider(opts.profile !== undefined ? { profile: opts.profile } : {}),
    });
    let out;
    try {
      out = await sts.send(new AssumeRoleCommand({ RoleArn: opts.roleArn, RoleSessionName: ROLE_SESSION_NAME }));
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      const named = new Error(`assuming role ${opts.roleArn}: ${e.message}`);
      named.name = e.name;
      throw named;
    }
    const c = out.Credentials;
    if (c?.AccessKeyId === undefined || c.SecretAccessKey === undefined || c.SessionToken === undefined || c.Expiration === undefined)
      throw new Error(`assuming role ${opts.roleArn}: STS answered without complete credentials`);
    return { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken, expiration: c.Expiration };
  };

  const provider = async (): Promise<RoleCredentials> => {
    if (current !== null && now() < current.expiration.getTime() - REFRESH_BEFORE_MS) return current;
    pending ??= assume().finally(() => {
      pending = null;
    });
    current = await pending;
    return current;
  };
  return Object.assign(provider, {
    destroy: () => {
      sts?.destroy();
      sts = null;
    },
  });
}
