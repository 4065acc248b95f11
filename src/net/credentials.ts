// Credentials in a URL the user gave (`https://alice:s3cret@host/channel`): kept in this process only, sent as Basic
// auth to that URL's scheme, host and port alone (as pip and conda do), and written nowhere: everything past the
// option that named it sees `https://alice:***@host/channel`.

/** What stands in for a password in every URL the program passes on. */
const HIDDEN = '***';

/** origin (scheme://host:port) -> user -> password. */
const known = new Map<string, Map<string, string>>();
/** origin -> a bearer token for it alone (the GitHub API's). */
const tokens = new Map<string, string>();

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** The URL with its password (or a user name that is a token) shown as `***`; anything else unchanged. */
export function redactUrl(url: string): string {
  const u = parse(url);
  if (!u || (!u.username && !u.password)) return url;
  if (u.password) u.password = HIDDEN;
  else u.username = HIDDEN;
  return u.href;
}

/** Every URL with credentials in a piece of text, redacted (for messages that quote a URL they were handed). */
export function redactText(text: string): string {
  return text.replace(/\b(https?:\/\/)([^\s/@:]+)(:[^\s/@]*)?@/g, (_m, scheme: string, user: string, pass: string | undefined) =>
    pass === undefined ? `${scheme}${HIDDEN}@` : `${scheme}${user}:${HIDDEN}@`,
  );
}

/**
 * Keeps the credentials of a URL the user named for requests to its origin, and answers the URL as the rest of the
 * program is to see it (redacted). A URL without credentials comes back as it is.
 */
export function rememberCredentials(url: string): string {
  const u = parse(url);
  if (!u || (!u.username && !u.password) || u.password === HIDDEN) return url;
  const user = decodeURIComponent(u.username);
  const pass = decodeURIComponent(u.password);
  let users = known.get(u.origin);
  if (!users) known.set(u.origin, (users = new Map()));
  users.set(user, pass);
  return redactUrl(url);
}

/**
 * What a request to `url` sends: the URL without credentials, and the Authorization header for its origin when the
 * user gave credentials for it (the user named in the URL, else the only one known there). Credentials written in
 * the URL itself in full are used for it alone.
 */
export function requestAuth(url: string): { url: string; authorization?: string } {
  const u = parse(url);
  if (!u) return { url };
  const user = decodeURIComponent(u.username);
  const pass = decodeURIComponent(u.password);
  const inUrl = !!(u.username || u.password);
  u.username = '';
  u.password = '';
  const bare = u.href;
  const basic = (name: string, secret: string) => `Basic ${Buffer.from(`${name}:${secret}`).toString('base64')}`;
  if (inUrl && pass !== HIDDEN && user !== HIDDEN) return { url: bare, authorization: basic(user, pass) };
  const users = known.get(u.origin);
  const token = tokens.get(u.origin);
  if (!users) return token === undefined ? { url: bare } : { url: bare, authorization: `Bearer ${token}` };
  if (inUrl && user !== HIDDEN) {
    const secret = users.get(user);
    return secret === undefined ? { url: bare } : { url: bare, authorization: basic(user, secret) };
  }
  if (users.size !== 1) return { url: bare };
  const [name, secret] = [...users][0]!;
  return { url: bare, authorization: basic(name, secret) };
}

/**
 * Sends `token` as a bearer token to the origin of `apiRoot` and nowhere else: not to the hosts it redirects to (a
 * release asset's storage), not to a mirror named in its place. Credentials the user wrote for that origin win.
 */
export function rememberToken(apiRoot: string, token: string): void {
  const u = parse(apiRoot);
  if (u && token) tokens.set(u.origin, token);
}

/** For tests: forget every credential. */
export function forgetCredentials(): void {
  known.clear();
  tokens.clear();
}
