/** A scripted fetch for the transport's unit tests: answers from a queue and records what was sent. */

export interface SentRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** Date.now() when it was sent (fake timers move it). */
  at: number;
}

export interface Scripted {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export function fakeFetch(...answers: Scripted[]) {
  const sent: SentRequest[] = [];
  const fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const body = init.body === undefined || init.body === null ? undefined : await new Response(init.body).text();
    sent.push({ url: String(input), method: init.method ?? 'GET', headers, body, at: Date.now() });
    const answer = answers.shift();
    if (!answer) throw new Error(`unexpected request ${init.method} ${String(input)}`);
    const json = answer.body !== undefined && typeof answer.body !== 'string';
    return new Response(json ? JSON.stringify(answer.body) : (answer.body as string | undefined) ?? null, {
      status: answer.status,
      headers: { ...(json ? { 'content-type': 'application/json; charset=utf-8' } : {}), ...answer.headers },
    });
  };
  return { fetch: fetch as typeof globalThis.fetch, sent };
}

export const errorBody = (code: string, message: string, extra: Record<string, unknown> = {}) => ({ error: { code, message, ...extra } });
