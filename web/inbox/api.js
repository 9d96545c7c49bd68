// The inbox's calls to its own server (/approvals/api/*). The session is an HttpOnly cookie the page never
// sees; state-changing calls carry the session's CSRF token, which is kept in this module's memory only.

let csrfToken = null;

export const setCsrfToken = (token) => {
  csrfToken = token;
};

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Call the inbox API; resolves to `result`, rejects with ApiError carrying the server's code and message. */
export async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The server could not be reached. Check the connection and try again.');
  }
  let data;
  try {
    data = await res.json();
  } catch {
    throw new ApiError(res.status, 'INTERNAL', `The server answered ${res.status} without a readable body.`);
  }
  if (!data || data.ok !== true) {
    const error = (data && data.error) || {};
    throw new ApiError(res.status, error.code || 'INTERNAL', error.message || `The server answered ${res.status}.`);
  }
  return data.result;
}
