/** Query-string edits, pure so they can be tested without a browser. */

/** Keys to set; `undefined` (or '') removes the key. */
export type ParamUpdates = Readonly<Record<string, string | undefined>>;

/** `search` ("?a=1" or "a=1") with `updates` applied, as "?..." or "" when nothing is left. Keeps the order of existing keys. */
export function withParams(search: string, updates: ParamUpdates): string {
  const params = new URLSearchParams(search);
  for (const [key, value] of Object.entries(updates)) {
    if (value === undefined || value === '') params.delete(key);
    else params.set(key, value);
  }
  const qs = params.toString();
  return qs === '' ? '' : `?${qs}`;
}

/** Only the `keys` of `search`, in that order: what a link to another page carries over. */
export function pickParams(search: string, keys: readonly string[]): string {
  const from = new URLSearchParams(search);
  const out = new URLSearchParams();
  for (const key of keys) {
    const value = from.get(key);
    if (value !== null && value !== '') out.set(key, value);
  }
  const qs = out.toString();
  return qs === '' ? '' : `?${qs}`;
}
