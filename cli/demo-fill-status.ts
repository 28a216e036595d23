import type { FillStatus } from '../server/schemas/status.js';

/** The fill's progress, as GET /api/status reports it. */
export class DemoFill {
  private stage: FillStatus['stage'] = 'simulating';
  private done = 0;
  private total = 0;
  private readonly startedAtMs = Date.now();
  private finishedAtMs: number | null = null;
  private error: string | null = null;

  /** `onStage` records each stage as it begins (a write, so the API's response cache sees the change). */
  constructor(private readonly onStage: (stage: FillStatus['stage']) => void = () => undefined) {}

  begin(stage: FillStatus['stage']): void {
    this.stage = stage;
    if (stage === 'done' || stage === 'failed') this.finishedAtMs = Date.now();
    this.onStage(stage);
  }

  snapshots(done: number, total: number): void {
    this.done = done;
    this.total = total;
  }

  fail(err: unknown): void {
    this.error = err instanceof Error ? err.message : String(err);
    this.begin('failed');
  }

  get finished(): boolean {
    return this.finishedAtMs !== null;
  }

  status(): FillStatus {
    return {
      stage: this.stage,
      snapshotsDone: this.done,
      snapshotsTotal: this.total,
      startedAt: new Date(this.startedAtMs).toISOString(),
      finishedAt: this.finishedAtMs === null ? null : new Date(this.finishedAtMs).toISOString(),
      error: this.error,
    };
  }
}
