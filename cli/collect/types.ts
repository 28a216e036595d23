import type { CostCollectResult } from '../../collectors/cost-explorer/collect.js';
import type { MetricsState } from '../../core/usage.js';
import type { RetentionRunRecord } from '../../db/repositories/retention-store-repository.js';

export interface CollectOptions {
  cluster: string;
  region?: string;
  sinceMs: number;
  watch: boolean;
  intervalMs: number;
  /** How long per-container usage samples are kept behind the newest snapshot (default 3 days). */
  usageRetentionMs?: number;
  /** --raw-retention and --retention as given (absent: the stored settings, else 14d and 13mo). */
  rawRetention?: string;
  retention?: string;
  /** Base URL of a Prometheus-compatible HTTP API to backfill usage history from; absent: none. */
  prometheusUrl?: string;
  /** How much usage history a Prometheus backfill asks for (default 14 days). */
  prometheusSinceMs?: number;
  kubeconfig?: string;
  context?: string;
  dbPath: string;
  quiet: boolean;
  /** The AWS profile for Cost Explorer (GovCloud: the associated standard account's). */
  billingProfile?: string;
  /** Karpenter's release as the user gives it (--karpenter-version); wins over the controller image's tag. */
  karpenterVersion?: string;
}

export interface CollectIo {
  /** The collection time; default the wall clock (tests pass the sandbox's clock). */
  now?: () => number;
  /** Summary lines (stdout). */
  out?: (line: string) => void;
  /** Warnings and watch-mode notes (stderr). */
  err?: (line: string) => void;
  /** Ends --watch (SIGINT/SIGTERM in the CLI). */
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** How often a stage ran in this invocation and how many of its runs (or steps) failed: its error budget spent. */
export interface StageTally {
  runs: number;
  failures: number;
}

export interface CollectSummary {
  /** True when every stage of every cycle succeeded. */
  ok: boolean;
  /** `stage: message` for each failure. */
  failures: string[];
  /** Per stage (cli/collect/*.ts, by its name): runs and failures. A failing stage never stops the others. */
  stages: Record<string, StageTally>;
  snapshots: number;
  snapshotNodeRows: number;
  costLines: number;
  priceRows: number;
  kubeRequests: number;
  /** The last snapshot's metrics.k8s.io status, and how many pods it reported; null before any snapshot. */
  usage: { state: MetricsState; message: string; pods: number } | null;
  /** Requests sent to the Prometheus API (retries included) and the hourly rollups its backfill wrote. */
  prometheusRequests: number;
  prometheusRollups: number;
  /** `service:Operation` -> HTTP requests sent (retries included). */
  awsRequests: Record<string, number>;
  costExplorerRequests: number;
  costExplorerUsd: number;
  /** Cost Explorer periods in the window already final, so not requested again. */
  finalPeriodsSkipped: number;
  costRuns: CostCollectResult[];
  /** The last retention pass (folds, deletes past the horizon, pages freed); null when none ran. */
  retention: RetentionRunRecord | null;
  seconds: number;
}
