import { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import { EC2Client } from '@aws-sdk/client-ec2';
import { PricingClient } from '@aws-sdk/client-pricing';

/**
 * Counts the HTTP requests an AWS SDK client sends, per service and operation, retries included: what AWS sees
 * (and, for Cost Explorer, bills at USD 0.01 each). A middleware around each call reads the attempts the SDK's
 * retry loop made from the `$metadata` of the output or of the error.
 */

const PLACE = { step: 'initialize', name: 'ledgerRequestCounter', override: true } as const;

const attemptsOf = (v: unknown): number => {
  const direct = (v as { $metadata?: { attempts?: unknown } } | null)?.$metadata?.attempts;
  const wrapped = (v as { output?: { $metadata?: { attempts?: unknown } } } | null)?.output?.$metadata?.attempts;
  const n = typeof wrapped === 'number' ? wrapped : direct;
  return typeof n === 'number' && n > 0 ? n : 1;
};

/** A pass-through middleware that counts a call's attempts under the command's name. */
const counting =
  <I, O>(bump: (commandName: string | undefined, attempts: number) => void) =>
  (next: (args: I) => Promise<O>, context: { commandName?: string }) =>
  async (args: I): Promise<O> => {
    try {
      const out = await next(args);
      bump(context.commandName, attemptsOf(out));
      return out;
    } catch (err) {
      bump(context.commandName, attemptsOf(err));
      throw err;
    }
  };

export class AwsRequestCounter {
  private readonly counts = new Map<string, number>();

  /** Starts counting the requests of `client` under `service` ('ce', 'pricing', 'ec2'); returns the client. */
  attach<C extends CostExplorerClient | PricingClient | EC2Client>(client: C, service: string): C {
    const bump = (commandName: string | undefined, attempts: number): void => {
      const key = `${service}:${(commandName ?? 'Unknown').replace(/Command$/, '')}`;
      this.counts.set(key, (this.counts.get(key) ?? 0) + attempts);
    };
    // One branch per client class: each stack is typed by its own service's inputs and outputs.
    if (client instanceof CostExplorerClient) client.middlewareStack.add(counting(bump), PLACE);
    else if (client instanceof PricingClient) client.middlewareStack.add(counting(bump), PLACE);
    else if (client instanceof EC2Client) client.middlewareStack.add(counting(bump), PLACE);
    return client;
  }

  /** Requests of one service (all operations), or of one `service:Operation`. */
  count(serviceOrOperation: string): number {
    if (serviceOrOperation.includes(':')) return this.counts.get(serviceOrOperation) ?? 0;
    let n = 0;
    for (const [key, v] of this.counts) if (key.startsWith(`${serviceOrOperation}:`)) n += v;
    return n;
  }

  /** Every `service:Operation` with its count, sorted by key. */
  entries(): [string, number][] {
    return [...this.counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  }
}
