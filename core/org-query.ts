/**
 * The organisation's view runs its statements on an engine the server does not know (Athena, through the collectors'
 * client, injected by `serve --org`): this is the one shape both sides share.
 */

export type OrgValue = string | number | boolean | null;

export interface OrgQueryResult {
  /** Rows keyed by lower-case column name, values typed by the engine's column types. */
  rows: Record<string, OrgValue>[];
  queryExecutionId: string;
  /** What the engine read (Athena bills by it). */
  scannedBytes: number;
  engineMs: number;
}

/** Runs one read-only statement and returns all its rows. */
export type OrgQueryRunner = (statement: string) => Promise<OrgQueryResult>;

/** What `serve --org` names: the engine's workgroup and database, for the banner and the answers. */
export interface OrgEngine {
  kind: 'athena';
  workGroup: string;
  database: string;
  run: OrgQueryRunner;
}
