// Signing in without a browser on the machine (SSH, containers): the device authorization
// grant (RFC 8628). pctl asks for a device code and a short user code, the operator enters the
// user code at the verification page in any browser, then goes through the same owner token
// and identity steps; meanwhile pctl polls the token endpoint.
import type { Request, Response } from '../../pipeline/handler.js';
import {
  CLIENT_ID, DEVICE_CODE_TTL_S, DEVICE_POLL_INTERVAL_S, DEVICE_VERIFICATION_PATH, formatUserCode, newUserCode, NO_STORE,
  normalizeUserCode, oauthError, randomToken,
} from './protocol.js';
import { codePage, deniedPage, deviceIntro, errorPage, ownerPage, secretForms, signedInPage, type PickTarget } from './pages.js';
import type { SignIn } from './signin.js';
import { MAX_DEVICE_GRANTS, MAX_PENDING, type DeviceGrant, type DevicePending } from './state.js';

export function deviceGrant(s: SignIn) {
  const { opts, devices, userCodes, devicePending, prune } = s;

  const deviceAuthorization = async (req: Request): Promise<Response> => {
    const form = await req.form();
    const clientId = form.get('client_id') ?? '';
    if (clientId !== CLIENT_ID) {
      return oauthError('invalid_client', `unknown client_id ${JSON.stringify(clientId)}: only "${CLIENT_ID}" may sign in here`, 401);
    }
    prune();
    if (devices.size >= MAX_DEVICE_GRANTS) {
      return oauthError('temporarily_unavailable', 'too many device sign-ins are in progress; try again in a few minutes', 503);
    }
    const deviceCode = randomToken(opts.random);
    let userCode = newUserCode(opts.random);
    while (userCodes.has(userCode)) userCode = newUserCode(opts.random);
    devices.set(deviceCode, {
      clientId, userCode, expiresAt: opts.clock() + DEVICE_CODE_TTL_S * 1000, interval: DEVICE_POLL_INTERVAL_S, status: 'pending',
    });
    userCodes.set(userCode, deviceCode);
    const verificationUri = `${opts.issuer()}${DEVICE_VERIFICATION_PATH}`;
    const shown = formatUserCode(userCode);
    return {
      body: {
        device_code: deviceCode,
        user_code: shown,
        verification_uri: verificationUri,
        verification_uri_complete: `${verificationUri}?user_code=${encodeURIComponent(shown)}`,
        expires_in: DEVICE_CODE_TTL_S,
        interval: DEVICE_POLL_INTERVAL_S,
      },
      headers: NO_STORE,
    };
  };

  /** The token endpoint for grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4, §3.5). */
  const deviceToken = async (form: URLSearchParams): Promise<Response> => {
    const deviceCode = form.get('device_code') ?? '';
    if (!deviceCode) return oauthError('invalid_request', 'device_code is required');
    prune();
    const grant = devices.get(deviceCode);
    if (!grant) return oauthError('invalid_grant', 'the device code is unknown or was already used');
    if ((form.get('client_id') ?? '') !== grant.clientId) return oauthError('invalid_grant', 'the device code was issued to another client_id');
    const now = opts.clock();
    if (grant.expiresAt <= now) {
      userCodes.delete(grant.userCode);
      return oauthError('expired_token', 'the device code has expired; sign in again');
    }
    const last = grant.lastPollAt;
    grant.lastPollAt = now;
    if (last !== undefined && now - last < grant.interval * 1000) {
      grant.interval += 5;
      return oauthError('slow_down', `polling too fast: wait ${grant.interval} seconds between requests`);
    }
    if (grant.status === 'pending') return oauthError('authorization_pending', 'the sign-in has not been approved yet');
    // Denied or approved: the answer is final, and the device code is spent.
    devices.delete(deviceCode);
    userCodes.delete(grant.userCode);
    if (grant.status === 'denied' || !grant.identityUid) return oauthError('access_denied', 'the sign-in was denied');
    return s.tokensFor(grant.identityUid);
  };

  /** The device grant a verification page works on, when it can still be approved. */
  const pendingDevice = (deviceCode: string): DeviceGrant | undefined => {
    const grant = devices.get(deviceCode);
    return grant && grant.status === 'pending' && grant.expiresAt > opts.clock() ? grant : undefined;
  };

  const deviceTarget = (grant: DeviceGrant): PickTarget => ({
    action: DEVICE_VERIFICATION_PATH,
    intro: deviceIntro(formatUserCode(grant.userCode)),
    secrets: secretForms(formatUserCode(grant.userCode), grant.userCode),
  });

  const verifyGet = (req: Request): Response => codePage(req.query.get('user_code') ?? '');

  const verifyPost = async (req: Request): Promise<Response> => {
    const form = await req.form();
    const step = form.get('step');
    if (step === 'code') {
      const entered = form.get('user_code') ?? '';
      prune();
      const deviceCode = userCodes.get(normalizeUserCode(entered));
      const grant = deviceCode ? pendingDevice(deviceCode) : undefined;
      if (!deviceCode || !grant) return codePage(entered.slice(0, 32), 'That code is unknown, expired or already used. Check it, or run pctl auth login --device again.', 400);
      if (devicePending.size >= MAX_PENDING) return errorPage('Too many sign-ins are in progress; try again in a few minutes.', 503);
      const csrf = randomToken(opts.random);
      const p: DevicePending = { deviceCode, expiresAt: grant.expiresAt, proven: s.hasSession(req) };
      devicePending.set(csrf, p);
      return p.proven ? s.pickPage(csrf, deviceTarget(grant)) : ownerPage(csrf, '', 200, DEVICE_VERIFICATION_PATH);
    }
    const csrf = form.get('csrf') ?? '';
    const p = devicePending.get(csrf);
    const grant = p && p.expiresAt > opts.clock() ? pendingDevice(p.deviceCode) : undefined;
    if (!p || !grant) {
      devicePending.delete(csrf);
      return errorPage('This sign-in page has expired or was already used. Run pctl auth login --device again.');
    }
    if (form.get('action') === 'deny') {
      devicePending.delete(csrf);
      grant.status = 'denied';
      return deniedPage();
    }
    if (step === 'owner') {
      if (!(await s.isOwnerToken(form.get('owner_token')))) {
        return ownerPage(csrf, 'That is not the owner token of this server.', 401, DEVICE_VERIFICATION_PATH);
      }
      p.proven = true;
      return s.withSession(s.pickPage(csrf, deviceTarget(grant)));
    }
    if (step === 'pick') {
      if (!p.proven) return ownerPage(csrf, 'Paste the owner token first.', 401, DEVICE_VERIFICATION_PATH);
      const uid = form.get('identity') ?? '';
      const identity = s.ownIdentities().find((r) => r.uid === uid);
      if (!identity) return s.pickPage(csrf, deviceTarget(grant), 'Choose one of the identities listed.', 400);
      devicePending.delete(csrf);
      grant.status = 'approved';
      grant.identityUid = identity.uid;
      return signedInPage(identity.name);
    }
    return errorPage('The form was not understood. Run pctl auth login --device again.');
  };

  return { deviceAuthorization, deviceToken, verifyGet, verifyPost };
}
