#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx nodepool-ledger …` needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../cli/run.ts');
