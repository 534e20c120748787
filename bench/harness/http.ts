import { request as undiciRequest } from 'undici';

export type JsonResponse = { status: number; headers: Record<string, string | string[] | undefined>; body: any };

/** One JSON request (not for the measured load: items use autocannon or an undici Pool for that). */
export const requestJson = async (
  url: string,
  options: { method?: string; key?: string | null; body?: unknown } = {},
): Promise<JsonResponse> => {
  const headers: Record<string, string> = {};
  if (options.key) headers['x-api-key'] = options.key;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await undiciRequest(url, {
    method: (options.method ?? 'GET') as 'GET',
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.body.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.statusCode, headers: response.headers, body };
};
