/** A progress bar on stderr: redrawn in place on a terminal, a line every 10% otherwise (CI logs). */
export class ProgressBar {
  private readonly startedAt = Date.now();
  private lastDecile = -1;
  private readonly tty: boolean;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {
    this.tty = Boolean(out.isTTY);
  }

  update(done: number, note = ''): void {
    const fraction = this.total > 0 ? Math.min(1, done / this.total) : 1;
    const seconds = ((Date.now() - this.startedAt) / 1000).toFixed(1);
    const width = 28;
    const filled = Math.round(fraction * width);
    const line = `${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(fraction * 100)}% ${done}/${this.total} ${seconds}s ${note}`;
    if (this.tty) {
      this.out.write(`\r${line.padEnd(100)}`);
      if (done >= this.total) this.out.write('\n');
      return;
    }
    const decile = Math.floor(fraction * 10);
    if (decile > this.lastDecile) {
      this.lastDecile = decile;
      this.out.write(`${line}\n`);
    }
  }
}
