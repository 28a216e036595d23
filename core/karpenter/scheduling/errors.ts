/** Bad input to the engine, with the object it came from named first ("Pod default/web-1: …"). */
export class EngineInputError extends Error {
  constructor(
    readonly object: string,
    readonly detail: string,
  ) {
    super(`${object}: ${detail}`);
  }
}

/** Runs `fn`, re-throwing any error as an EngineInputError naming `object`. */
export function naming<T>(object: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof EngineInputError) throw err;
    throw new EngineInputError(object, err instanceof Error ? err.message : String(err));
  }
}
