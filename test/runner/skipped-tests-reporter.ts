import type { Reporter, TestModule } from 'vitest/node';

/**
 * Lists every skipped test at the end of a run (each says in its name what it needs: kubectl, root, a mount), and
 * with LEDGER_EXPECT_NO_SKIPS=1 (set by .ci/run, which installs all of that) fails the run on any: a machine that
 * silently lost a tool would otherwise pass with fewer tests.
 */
export default class SkippedTestsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const skipped = testModules.flatMap((m) => [...m.children.allTests('skipped')].map((t) => `${m.relativeModuleId} > ${t.fullName}`));
    if (skipped.length === 0) return;
    const strict = process.env.LEDGER_EXPECT_NO_SKIPS === '1';
    const head = strict
      ? `${skipped.length} test(s) skipped, and LEDGER_EXPECT_NO_SKIPS=1 expects none: install what they need (see .ci/run)`
      : `${skipped.length} test(s) skipped`;
    process.stderr.write(`\n${head}:\n${skipped.map((s) => `  - ${s}`).join('\n')}\n`);
    if (strict) process.exitCode = 1;
  }
}
