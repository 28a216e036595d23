import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

/*
 * Set up for the unit tier only (vite.config.ts). Unit tests run in seconds because they start nothing: no server,
 * no process. Listening on a port or starting a process throws here, naming where such a test belongs, so a slow
 * test cannot creep into `npm run test:unit` unnoticed.
 */
const refuse = (what: string) => (): never => {
  throw new Error(`a unit test may not ${what}: list its file under INTEGRATION in vite.config.ts (npm run test:integration)`);
};

net.Server.prototype.listen = refuse('listen on a port (start a server)');
const cp = childProcess as unknown as Record<string, unknown>;
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'])
  cp[name] = refuse(`start a process (${name})`);
// `import { spawn } from 'node:child_process'` in the test file reads the patched functions too.
syncBuiltinESMExports();
