// What serve remembers of sign-ins in progress: pending sign-in pages, authorization codes,
// browser sessions and device grants. In memory only: a restart (or forget()) drops them, and
// the operator starts again. Bounded, so unauthenticated callers cannot make us remember much.

/** The sign-in page must be completed within this time. */
export const PENDING_TTL_MS = 10 * 60_000;
/** After proving the owner token, a browser may sign in again without it for this long. */
export const SESSION_TTL_MS = 8 * 3600_000;
/** After expiring, a device code is remembered this long more, to answer expired_token rather than invalid_grant. */
const DEVICE_EXPIRED_GRACE_MS = 10 * 60_000;
/** Bounds on what unauthenticated callers can make us remember. */
export const MAX_PENDING = 1000;
export const MAX_CODES = 1000;
export const MAX_DEVICE_GRANTS = 1000;
export const MAX_SESSIONS = 100;

interface AuthorizeParams {
  redirectUri: string;
  state: string;
  codeChallenge: string;
}

export interface Pending extends AuthorizeParams {
  expiresAt: number;
  /** The owner token was shown for this sign-in (or the browser's session already proved it). */
  proven: boolean;
  /** The redirect URI is this server's own console page (see isOwnConsole). */
  forConsole: boolean;
}

/** A device authorization (RFC 8628), from the device code's issue until its token is taken. */
export interface DeviceGrant {
  clientId: string;
  userCode: string;
  expiresAt: number;
  /** Seconds the client must wait between polls (raised by slow_down). */
  interval: number;
  lastPollAt?: number;
  status: 'pending' | 'approved' | 'denied';
  /** Set once approved. */
  identityUid?: string;
}

/** The verification page for one device grant, between the user code and the approval (keyed by its CSRF token). */
export interface DevicePending {
  deviceCode: string;
  expiresAt: number;
  proven: boolean;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  identityUid: string;
  expiresAt: number;
}

export interface SignInState {
  /** Authorization code sign-in pages, by CSRF token. */
  pending: Map<string, Pending>;
  codes: Map<string, Grant>;
  /** Browser session → until when it stands for a proven owner token. */
  sessions: Map<string, number>;
  /** By device code. */
  devices: Map<string, DeviceGrant>;
  /** User code (normalized, no dash) → device code, while the device code is valid. */
  userCodes: Map<string, string>;
  /** Verification pages in progress, by CSRF token. */
  devicePending: Map<string, DevicePending>;
  /** Drops whatever has expired. */
  prune: () => void;
  /** Drops everything, as at a start. */
  forget: () => void;
}

export function signInState(clock: () => number): SignInState {
  const pending = new Map<string, Pending>();
  const codes = new Map<string, Grant>();
  const sessions = new Map<string, number>();
  const devices = new Map<string, DeviceGrant>();
  const userCodes = new Map<string, string>();
  const devicePending = new Map<string, DevicePending>();

  const prune = () => {
    const now = clock();
    for (const [k, v] of pending) if (v.expiresAt <= now) pending.delete(k);
    for (const [k, v] of codes) if (v.expiresAt <= now) codes.delete(k);
    for (const [k, v] of sessions) if (v <= now) sessions.delete(k);
    for (const [k, v] of devicePending) if (v.expiresAt <= now) devicePending.delete(k);
    for (const [k, v] of devices) {
      if (v.expiresAt <= now) userCodes.delete(v.userCode);
      if (v.expiresAt + DEVICE_EXPIRED_GRACE_MS <= now) devices.delete(k);
    }
  };
  const forget = () => {
    for (const state of [pending, codes, sessions, devices, userCodes, devicePending]) state.clear();
  };
  return { pending, codes, sessions, devices, userCodes, devicePending, prune, forget };
}
