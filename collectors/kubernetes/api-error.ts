/**
 * @kubernetes/client-node puts the whole response in an ApiException's message ("HTTP-Code: 500\nMessage: …\nBody:
 * …\nHeaders: …"). For a person, the first line and the Status message the API server sent are what matter.
 */
export function kubeErrorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const line = text.split('\n')[0] ?? '';
  // "HTTP-Code: 403" alone becomes "HTTP 403"; after listAll's own "... with HTTP 403: " it is dropped.
  const first = /^HTTP-Code: (\d+)$/.test(line) ? line.replace('HTTP-Code: ', 'HTTP ') : line.replace(/:? ?HTTP-Code: \d+$/, '');
  const body = /^Body: (.*)$/m.exec(text)?.[1];
  let detail: string | null = null;
  if (body !== undefined) {
    try {
      // The body is printed as a JSON string holding the JSON Status, or as the Status itself.
      let v: unknown = JSON.parse(body);
      if (typeof v === 'string') v = JSON.parse(v);
      const message = (v as { message?: unknown } | null)?.message;
      if (typeof message === 'string' && message !== '') detail = message;
    } catch {
      // Not JSON: the first line is all there is to say.
    }
  }
  return detail === null ? first : `${first}: ${detail}`;
}
