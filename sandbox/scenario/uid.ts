/** Deterministic uid from a kind and a name: the same scenario gives the same objects, byte for byte. */
export function uidFor(kind: string, name: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  const s = `${kind}/${name}`;
  for (let i = 0; i < s.length; i++) {
    h1 = Math.imul(h1 ^ s.charCodeAt(i), 16777619) >>> 0;
    h2 = Math.imul(h2 ^ s.charCodeAt(i), 2246822519) >>> 0;
  }
  const hex = (h1.toString(16).padStart(8, '0') + h2.toString(16).padStart(8, '0')).repeat(2);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** RFC 3339 as the API server writes it (whole seconds). */
export const isoSeconds = (t: number): string => new Date(t).toISOString().replace('.000Z', 'Z');
