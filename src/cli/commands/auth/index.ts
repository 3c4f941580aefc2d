// pctl auth login | status | token | logout
import { defineCommand, defineGroup, flag } from '../../command.js';

export const loginFlags = {
  browser: flag.bool('--no-browser', 'only print the sign-in URL, do not open a browser'),
  withToken: flag.bool('--with-token', 'read a token from stdin instead (CI), check it against the API and save it'),
  device: flag.bool('--device', 'sign in from another device: print a URL and a code to enter there (SSH, containers, no browser here)', {
    conflicts: 'withToken',
  }),
  identityToken: flag.string('--identity-token <file>', "CI: exchange an identity token (a workload's OIDC token; - reads stdin) at the API's issuer for a token of the API, as the vendor's clients do; it is renewed with its refresh token near expiry", {
    complete: 'file', conflicts: 'withToken',
  }),
  identity: flag.string('--identity <uid>', 'with --identity-token: the identity to assume (its claimMatch must accept the token); default: the one whose claimMatch does'),
};

export const authCommand = defineGroup(
  'auth',
  {
    summary: 'sign in to the API and manage the saved token',
    description: 'Sign in to the API, and show, print or remove the token saved in the current profile.',
    examples: [
      ['sign in with a browser', 'pctl auth login'],
      ['who am I, and until when', 'pctl auth status'],
    ],
  },
  [
    defineCommand({
      name: 'login',
      flags: loginFlags,
      help: {
        summary: 'sign in with a browser (authorization code + PKCE) and save the token in the profile',
        description:
          'Sign in with a browser (authorization code with PKCE, answered on a loopback port) and save the token in the profile. ' +
          'With --device, sign in from a browser on any other device instead (device authorization grant): pctl prints a URL and a ' +
          'code to enter there, and waits until the sign-in is approved, denied or the code expires. ' +
          'In CI, --with-token reads a token from stdin instead and checks it against the API before saving it; ' +
          '--identity-token exchanges a workload identity token (GitHub Actions, GitLab, Kubernetes) at the issuer ' +
          '(POST /sts/exchange, the vendor\'s token exchange; aud = the API URL) for a token of an identity whose claimMatch accepts it.',
        examples: [
          ['sign in with a browser', 'pctl auth login'],
          ['over SSH or in a container: enter a code in a browser elsewhere', 'pctl auth login --device'],
          ['CI: exchange the workload identity token for an identity', 'pctl auth login --identity-token "$TOKEN_FILE" --identity "$IDENTITY_UID"'],
        ],
      },
      load: () => import('./login.js'),
    }),
    defineCommand({
      name: 'status',
      help: {
        summary: 'show the profile, API URL, issuer, subject, identity and expiry of the token (never the token)',
        description: 'Show the profile, API URL, issuer, subject, identity and expiry of the token in use. The token itself is never printed.',
        examples: [['check the token in use', 'pctl auth status']],
      },
      load: () => import('./status.js'),
    }),
    defineCommand({
      name: 'token',
      help: {
        summary: 'print the token, for $(pctl auth token)',
        description: 'Print the token in use (from PCTL_TOKEN or the profile), for other tools.',
        examples: [['call the API with curl', 'curl -H "Authorization: Bearer $(pctl auth token)" "$PCTL_API_URL/iam/v2/groups"']],
      },
      load: () => import('./token.js'),
    }),
    defineCommand({
      name: 'logout',
      help: {
        summary: 'remove the token from the profile',
        description: 'Remove the token from the profile; the API URL stays.',
        examples: [['sign out of the current profile', 'pctl auth logout']],
      },
      load: () => import('./logout.js'),
    }),
  ],
);
