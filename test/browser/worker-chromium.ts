import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/*
 * One Chromium per Vitest worker, not one per file. The browser files share their worker processes (vite.config.ts,
 * project `browser`, isolate: false): the first file a worker runs launches Chromium, every later file of that
 * worker opens its pages in it (test/browser/harness.ts), and the project's environment
 * (test/runner/browser-environment.ts) closes it when the worker ends. A launch cost Chromium 1.9–2.6 CPU s, and the
 * first page load of a new context 1.4 CPU s more than one in a page kept (the dashboard's chunks compiled again in a
 * new renderer). Kept on globalThis: the environment and the test files share it whatever module instances they load.
 */

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];

interface WorkerChromium {
  browser?: Promise<Browser>;
  /** The context a browser's pages share (openPage): it lasts as long as the browser, file after file. */
  shared: WeakMap<Browser, BrowserContext>;
  /** Pages of a shared context that a test has closed, handed to the next test instead of a new one. */
  spare: WeakMap<BrowserContext, Page[]>;
}
const worker = globalThis as { __ledgerChromium?: WorkerChromium };
export const workerState: WorkerChromium = (worker.__ledgerChromium ??= { shared: new WeakMap(), spare: new WeakMap() });

/** A Chromium of its own, headless as the harness runs it: its caller closes it. */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** This worker's Chromium, launched by the first file that asks for it (and again if it has gone). */
export async function workerChromium(): Promise<Browser> {
  const launched = await workerState.browser?.catch(() => undefined);
  if (launched?.isConnected() === true) return launched;
  const browser = launchChromium();
  workerState.browser = browser;
  return browser;
}

/** Closes the worker's Chromium, when there is one (the browser project's environment, as the worker ends). */
export async function closeWorkerChromium(): Promise<void> {
  const launched = await workerState.browser?.catch(() => undefined);
  workerState.browser = undefined;
  await launched?.close();
}
